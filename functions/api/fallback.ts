/**
 * Everything under /api that no route entry matches: 404 for unknown paths (before
 * authentication), and for a known path with another method, after authentication and permission
 * as upstream: OPTIONS describes the route, anything else is 405 with `Allow`.
 */
import { allowedMethods, matchRoutes } from '../../infra/routes';
import { apiHandler } from '../../shared/middleware';
import { json } from '../../shared/middleware/http';
import { MethodNotAllowed, NotFound } from '../../shared/domain/errors';

const PARSES = ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'];

export const handler = apiHandler(
  'api/fallback',
  async (event) => {
    const method = event.requestContext.http.method.toUpperCase();
    const match = matchRoutes(event.rawPath)!;
    if (method !== 'OPTIONS') throw new MethodNotAllowed(method);
    const resource = match.path.split('/')[2] ?? 'api';
    const name = `${resource[0]!.toUpperCase()}${resource.slice(1)} ${match.path.includes('{id}') ? 'Instance' : 'List'}`;
    return json(200, { name, description: '', renders: ['application/json'], parses: PARSES });
  },
  (event) => {
    const match = matchRoutes(event.rawPath);
    if (!match) throw new NotFound();
    return { permission: match.routes[0]!.permission, allow: allowedMethods(match.path) };
  },
);
