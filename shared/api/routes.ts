import { GRANTS as G } from './table-access';
import { apiRoutes } from './route-table/api';
import { ticketsRoutes } from './route-table/tickets';
import { attachmentsRoutes } from './route-table/attachments';
import { followupsRoutes } from './route-table/followups';
import { usersRoutes } from './route-table/users';
import { userTicketsRoutes } from './route-table/user-tickets';
import { tokensRoutes } from './route-table/tokens';
import { queuesRoutes } from './route-table/queues';
import { mailRoutes } from './route-table/mail';
import { customFieldsRoutes } from './route-table/custom-fields';
import { eventsRoutes } from './route-table/events';
import { webhooksRoutes } from './route-table/webhooks';
import type { Permission, Route } from './route-types';

export type * from './route-types';
export { TAGS } from './route-types';
export { TICKET_ETAG, CHANGE_EVENT_EXAMPLE } from './route-table/common';

export const routes: readonly Route[] = [
  ...apiRoutes,
  ...ticketsRoutes,
  ...attachmentsRoutes,
  ...followupsRoutes,
  ...usersRoutes,
  ...userTicketsRoutes,
  ...tokensRoutes,
  ...queuesRoutes,
  ...mailRoutes,
  ...customFieldsRoutes,
  ...eventsRoutes,
  ...webhooksRoutes,
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

/**
 * What a function's middleware needs of its route at run time. A function's bundle has only this,
 * compiled in (infra/bundling.ts), not the table: the table, with every route's docs and field
 * sets, would add ~25 KiB to every bundle.
 */
export interface RouteFacts {
  method: Route['method'];
  permission: Permission;
  /** The path's `Allow` header. */
  allow: string[];
  negotiatesJson: boolean;
  answerHoldsSecret: boolean;
  /** answersCanBeLarge: an answer past Lambda's response limit is parked (middleware/large-answers.ts). */
  largeAnswers: boolean;
}

export function routeFacts(route: Route): RouteFacts {
  return {
    method: route.method,
    permission: route.permission,
    allow: allowedMethods(route.path),
    negotiatesJson: route.negotiatesJson !== false,
    answerHoldsSecret: route.answerHoldsSecret === true,
    largeAnswers: answersCanBeLarge(route),
  };
}

/**
 * Whether a route's answer can pass Lambda's response limit: a page (up to 100 records, each up to DynamoDB's 400 KB,
 * and a ticket's with its followups), or a ticket read or changed, with its followups. One record alone cannot
 * (400 KB is under 3 MB once escaped twice, in the worst case). These functions may park an answer in the bucket
 * (answers/*: the stack's grant).
 */
export function answersCanBeLarge(route: Route): boolean {
  const shape = route.doc?.success.shape;
  if (shape?.endsWith('Page')) return true;
  // A ticket just made holds one followup, within its record's limits; one read or changed holds all of them.
  return (shape === 'Ticket' || shape === 'UserTicket') && route.method !== 'POST';
}

/** The methods a path answers, as its `Allow` header lists them (upstream's order). */
export function allowedMethods(path: string): string[] {
  const methods = new Set(routes.filter((r) => r.path === path).map((r) => r.method as string));
  if (methods.has('GET')) methods.add('HEAD');
  methods.add('OPTIONS');
  const order = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
  return order.filter((m) => methods.has(m));
}
