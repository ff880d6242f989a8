/**
 * Everything under /api that no route entry matches: 404 for unknown paths (before
 * authentication), and for a known path with another method, after authentication and permission
 * as upstream: OPTIONS describes the route, anything else is 405 with `Allow`.
 */
import { allowedMethods, matchRoutes } from '../../shared/api/routes';
import { apiHandler } from '../../shared/middleware';
import { json } from '../../shared/middleware/http';
import { MethodNotAllowed, NotFound } from '../../shared/domain/errors';
import { describeRoute } from '../../shared/domain/describe';
import { listCustomFields } from '../../shared/store/custom-fields';

export const handler = apiHandler(
  'api/fallback',
  async (event) => {
    const method = event.requestContext.http.method.toUpperCase();
    if (method !== 'OPTIONS') throw new MethodNotAllowed(method);
    const match = matchRoutes(event.rawPath)!;
    const defs = match.path.startsWith('/api/tickets') ? await listCustomFields() : [];
    return json(200, describeRoute(match.path, defs));
  },
  (event) => {
    const match = matchRoutes(event.rawPath);
    if (!match) throw new NotFound();
    return { permission: match.routes[0]!.permission, allow: allowedMethods(match.path) };
  },
);
