/**
 * The route table: the single source of truth for the API's operations. The CDK stack makes one
 * function and one API Gateway route per entry from it; the local server routes with it; the
 * middleware reads each route's permission and its path's `Allow` header from it.
 *
 * Paths are written without the trailing slash: API Gateway HTTP APIs (and the local server) answer
 * both forms. Every GET route also serves HEAD.
 */

import { GRANTS as G, type TableGrant } from './table-access';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call: any authenticated user; staff (`is_staff`, as upstream: a superuser without it is
 * refused); or superusers (`is_superuser`), for the operator resources upstream keeps in its admin.
 */
export type Permission = 'authenticated' | 'staff' | 'superuser';

/** What a function may do to the attachment bucket; the stack grants exactly this. */
export type FileAccess = 'read' | 'write' | 'delete';

export interface Route {
  /** `ANY` only for the fallback. */
  method: Method | 'ANY';
  path: string;
  /** Handler file under functions/, without extension; it exports `handler`. */
  handler: string;
  permission: Permission;
  /**
   * What the function may do to the table besides authenticating (shared/api/table-access.ts): the
   * stack grants exactly this, and the local runtime refuses anything else.
   */
  table: readonly TableGrant[];
  files: FileAccess[];
  /** False for a route that answers a redirect or a page rather than JSON: no `Accept` check (406). */
  negotiatesJson?: false;
  /**
   * True for a route whose success answer holds a secret shown once (a new token's key): an
   * Idempotency-Key keeps no copy of it, and a replay answers 409 instead of repeating it.
   */
  answerHoldsSecret?: true;
  /** True for a route that queues webhook deliveries (the stack grants sending to the queue). */
  queuesWebhooks?: true;
  /**
   * Files from node_modules that the function reads at run time, copied into its bundle's
   * `assets/` folder by the CDK stack (the local runtime reads them from node_modules).
   */
  assets?: readonly string[];
}

/** The reference page's renderer: Swagger UI's standalone bundle and style sheet, served by the API itself. */
export const DOCS_ASSETS = ['swagger-ui-dist/swagger-ui-bundle.js', 'swagger-ui-dist/swagger-ui.css'] as const;

export const routes: readonly Route[] = [
  { method: 'GET', path: '/api', handler: 'api/root', permission: 'authenticated', table: [], files: [] },
  // The OpenAPI document and the reference page rendered from it: authenticated like every route
  // (the page's 401 asks the browser for Basic credentials, which it then sends with the page's
  // own requests to the same origin).
  { method: 'GET', path: '/api/openapi.json', handler: 'api/openapi', permission: 'authenticated', table: [...G.customFieldDefinitions], files: [] },
  { method: 'GET', path: '/api/docs', handler: 'api/docs', permission: 'authenticated', table: [], files: [], negotiatesJson: false },
  {
    method: 'GET',
    path: '/api/docs/{asset}',
    handler: 'api/docs-assets',
    permission: 'authenticated',
    table: [],
    files: [],
    negotiatesJson: false,
    assets: DOCS_ASSETS,
  },
  { method: 'GET', path: '/api/tickets', handler: 'tickets/list', permission: 'staff', table: [...G.customFieldDefinitions, ...G.countsTotals, ...G.listTickets], files: [] },
  { method: 'POST', path: '/api/tickets', handler: 'tickets/create', permission: 'staff', table: [...G.customFieldDefinitions, ...G.newIds, ...G.ticketReferences, ...G.writeTickets, ...G.writeRefs, ...G.fileCleanups, ...G.outbox], files: ['write', 'delete'] },
  { method: 'GET', path: '/api/tickets/{id}', handler: 'tickets/get', permission: 'staff', table: [...G.customFieldDefinitions, ...G.readTickets], files: [] },
  { method: 'PUT', path: '/api/tickets/{id}', handler: 'tickets/replace', permission: 'staff', table: [...G.customFieldDefinitions, ...G.ticketReferences, ...G.writeTickets], files: [] },
  { method: 'PATCH', path: '/api/tickets/{id}', handler: 'tickets/update', permission: 'staff', table: [...G.customFieldDefinitions, ...G.ticketReferences, ...G.writeTickets], files: [] },
  { method: 'DELETE', path: '/api/tickets/{id}', handler: 'tickets/delete', permission: 'staff', table: [...G.customFieldDefinitions, ...G.writeTickets, ...G.writeRefs, ...G.fileCleanups], files: ['delete'] },
  {
    method: 'GET',
    path: '/api/tickets/{id}/attachments/{attachmentId}',
    handler: 'attachments/download',
    permission: 'staff',
    table: [...G.readTickets],
    files: ['read'],
    negotiatesJson: false,
  },
  { method: 'GET', path: '/api/followups', handler: 'followups/list', permission: 'staff', table: [...G.listRefs, ...G.readTickets], files: [] },
  { method: 'POST', path: '/api/followups', handler: 'followups/create', permission: 'staff', table: [...G.newIds, ...G.userSummaries, ...G.writeTickets, ...G.writeRefs, ...G.fileCleanups, ...G.outbox], files: ['write', 'delete'] },
  { method: 'GET', path: '/api/followups/{id}', handler: 'followups/get', permission: 'staff', table: [...G.readRefs, ...G.readTickets], files: [] },
  { method: 'PUT', path: '/api/followups/{id}', handler: 'followups/replace', permission: 'staff', table: [...G.userSummaries, ...G.writeTickets, ...G.writeRefs], files: [] },
  { method: 'PATCH', path: '/api/followups/{id}', handler: 'followups/update', permission: 'staff', table: [...G.userSummaries, ...G.writeTickets, ...G.writeRefs], files: [] },
  { method: 'DELETE', path: '/api/followups/{id}', handler: 'followups/delete', permission: 'staff', table: [...G.writeTickets, ...G.writeRefs, ...G.fileCleanups], files: ['delete'] },
  { method: 'GET', path: '/api/followups-attachments', handler: 'attachments/list', permission: 'staff', table: [...G.listRefs, ...G.readTickets], files: [] },
  { method: 'POST', path: '/api/followups-attachments', handler: 'attachments/create', permission: 'staff', table: [...G.newIds, ...G.writeTickets, ...G.writeRefs, ...G.fileCleanups, ...G.outbox], files: ['write', 'delete'] },
  { method: 'GET', path: '/api/followups-attachments/{id}', handler: 'attachments/get', permission: 'staff', table: [...G.readRefs, ...G.readTickets], files: [] },
  { method: 'DELETE', path: '/api/followups-attachments/{id}', handler: 'attachments/delete', permission: 'staff', table: [...G.writeTickets, ...G.writeRefs, ...G.fileCleanups], files: ['delete'] },
  { method: 'POST', path: '/api/users', handler: 'users/create', permission: 'staff', table: [...G.newIds, ...G.createUsers], files: [] },
  { method: 'GET', path: '/api/user_tickets', handler: 'user-tickets/list', permission: 'authenticated', table: [...G.customFieldDefinitions, ...G.ticketsBySubmitter, ...G.readQueues], files: [] },
  { method: 'GET', path: '/api/user_tickets/{id}', handler: 'user-tickets/get', permission: 'authenticated', table: [...G.customFieldDefinitions, ...G.readTickets, ...G.readQueues], files: [] },
  { method: 'GET', path: '/api/tokens', handler: 'tokens/list', permission: 'staff', table: [...G.readTokens], files: [] },
  { method: 'POST', path: '/api/tokens', handler: 'tokens/create', permission: 'staff', table: [...G.newIds, ...G.writeTokens], files: [], answerHoldsSecret: true },
  { method: 'DELETE', path: '/api/tokens/{id}', handler: 'tokens/revoke', permission: 'staff', table: [...G.writeTokens], files: [] },
  { method: 'GET', path: '/api/queues', handler: 'queues/list', permission: 'superuser', table: [...G.readQueues], files: [] },
  { method: 'POST', path: '/api/queues', handler: 'queues/create', permission: 'superuser', table: [...G.newIds, ...G.writeQueues], files: [] },
  { method: 'GET', path: '/api/queues/{id}', handler: 'queues/get', permission: 'superuser', table: [...G.readQueues], files: [] },
  { method: 'PATCH', path: '/api/queues/{id}', handler: 'queues/update', permission: 'superuser', table: [...G.writeQueues], files: [] },
  { method: 'DELETE', path: '/api/queues/{id}', handler: 'queues/delete', permission: 'superuser', table: [...G.writeQueues, ...G.countsTotals], files: [] },
  { method: 'GET', path: '/api/custom-fields', handler: 'custom-fields/list', permission: 'superuser', table: [...G.readCustomFields], files: [] },
  { method: 'POST', path: '/api/custom-fields', handler: 'custom-fields/create', permission: 'superuser', table: [...G.writeCustomFields], files: [] },
  { method: 'GET', path: '/api/custom-fields/{name}', handler: 'custom-fields/get', permission: 'superuser', table: [...G.readCustomFields], files: [] },
  { method: 'PATCH', path: '/api/custom-fields/{name}', handler: 'custom-fields/update', permission: 'superuser', table: [...G.writeCustomFields], files: [] },
  { method: 'DELETE', path: '/api/custom-fields/{name}', handler: 'custom-fields/delete', permission: 'superuser', table: [...G.writeCustomFields], files: [] },
  { method: 'GET', path: '/api/webhook-deliveries', handler: 'webhook-deliveries/list', permission: 'staff', table: [...G.readDeliveries], files: [] },
  { method: 'GET', path: '/api/webhook-deliveries/{id}', handler: 'webhook-deliveries/get', permission: 'staff', table: [...G.readDeliveries], files: [] },
  {
    method: 'POST',
    path: '/api/webhook-deliveries/{id}/redeliver',
    handler: 'webhook-deliveries/redeliver',
    permission: 'staff',
    table: [...G.redeliver],
    files: [],
    queuesWebhooks: true,
  },
];

/**
 * Answers what no entry above matches under /api: 404 for unknown paths, 405 (after authentication
 * and permission, as upstream) for a known path with another method, and OPTIONS.
 */
export const fallbackRoute: Route = {
  method: 'ANY',
  path: '/api/{proxy+}',
  handler: 'api/fallback',
  permission: 'authenticated',
  table: [...G.customFieldDefinitions],
  files: [],
};

/** The paths the fallback is deployed on (API Gateway prefers the more specific routes). */
export const FALLBACK_PATHS = ['/api', '/api/{proxy+}'] as const;

export function routeByHandler(handler: string): Route {
  const route = [...routes, fallbackRoute].find((r) => r.handler === handler);
  if (!route) throw new Error(`No route for handler ${handler}`);
  return route;
}

const patterns = new Map<string, RegExp>();
function pattern(path: string): RegExp {
  let re = patterns.get(path);
  if (!re) {
    const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{(\w+)\\?\}/g, '(?<$1>[^/]+)');
    re = new RegExp(`^${source}/?$`);
    patterns.set(path, re);
  }
  return re;
}

/** Path parameters when `rawPath` matches `path` (with or without a trailing slash). */
export function matchPath(path: string, rawPath: string): Record<string, string> | undefined {
  const m = pattern(path).exec(rawPath);
  return m ? { ...m.groups } : undefined;
}

export interface PathMatch {
  path: string;
  params: Record<string, string>;
  routes: Route[];
}

/** All routes of the path that `rawPath` names, if any. */
export function matchRoutes(rawPath: string): PathMatch | undefined {
  for (const route of routes) {
    const params = matchPath(route.path, rawPath);
    if (params) return { path: route.path, params, routes: routes.filter((r) => r.path === route.path) };
  }
  return undefined;
}

/** The methods a path answers, as its `Allow` header lists them (upstream's order). */
export function allowedMethods(path: string): string[] {
  const methods = new Set(routes.filter((r) => r.path === path).map((r) => r.method as string));
  if (methods.has('GET')) methods.add('HEAD');
  methods.add('OPTIONS');
  const order = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
  return order.filter((m) => methods.has(m));
}
