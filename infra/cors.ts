/**
 * CORS, off unless an environment lists allowed origins. On AWS the HTTP API does it
 * (`corsPreflight`, api-stack.ts): API Gateway answers every preflight (an OPTIONS request with
 * `Origin` and `Access-Control-Request-Method`) itself, without calling a function, and adds
 * `Access-Control-Allow-Origin` to the functions' responses for an allowed origin. A plain OPTIONS
 * still reaches the function, which describes the route as upstream does. The local server
 * (infra/local/server.ts, `HELPDESK_CORS_ORIGINS`) does the same with the functions below.
 */
import { routes } from '../shared/api/routes';

/** Request headers a browser may send: credentials, bodies, and the conditional/retry headers. */
export const CORS_ALLOW_HEADERS = [
  'Authorization',
  'Content-Type',
  'If-Match',
  'If-None-Match',
  'Idempotency-Key',
] as const;

/** Response headers a browser script may read beyond the CORS-safelisted ones. */
export const CORS_EXPOSE_HEADERS = [
  'ETag',
  'Retry-After',
  'Location',
  'Allow',
  'WWW-Authenticate',
  'Idempotent-Replayed',
] as const;

/** How long a browser may reuse a preflight answer. */
export const CORS_MAX_AGE_SECONDS = 3600;

/** Every method of the route table, HEAD with GET, and OPTIONS. */
export function corsAllowMethods(): string[] {
  const methods = new Set(routes.map((r) => r.method as string));
  if (methods.has('GET')) methods.add('HEAD');
  methods.add('OPTIONS');
  return ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].filter((m) => methods.has(m));
}

export { parseCorsOrigins } from '../shared/domain/cross-origin';

/** The value of Access-Control-Allow-Origin for `origin`, or undefined when it is not allowed. */
export function allowedOrigin(allowed: readonly string[], origin: string | undefined): string | undefined {
  if (!origin || allowed.length === 0) return undefined;
  if (allowed.includes('*')) return '*';
  return allowed.find((o) => o.toLowerCase() === origin.toLowerCase()) ? origin : undefined;
}

/** A request that API Gateway answers itself when CORS is on. */
export function isPreflight(method: string, headers: Record<string, string | undefined>): boolean {
  return method === 'OPTIONS' && Boolean(headers.origin) && Boolean(headers['access-control-request-method']);
}

/** Headers of the answer to a preflight (204); none but the status for an origin not allowed. */
export function preflightHeaders(allowed: readonly string[], origin: string | undefined): Record<string, string> {
  const allow = allowedOrigin(allowed, origin);
  if (!allow) return {};
  return {
    'Access-Control-Allow-Origin': allow,
    'Access-Control-Allow-Methods': corsAllowMethods().join(','),
    'Access-Control-Allow-Headers': CORS_ALLOW_HEADERS.join(',').toLowerCase(),
    'Access-Control-Max-Age': String(CORS_MAX_AGE_SECONDS),
  };
}

/** Headers added to any other response, for an allowed origin. */
export function responseCorsHeaders(allowed: readonly string[], origin: string | undefined): Record<string, string> {
  const allow = allowedOrigin(allowed, origin);
  if (!allow) return {};
  return {
    'Access-Control-Allow-Origin': allow,
    'Access-Control-Expose-Headers': CORS_EXPOSE_HEADERS.join(',').toLowerCase(),
  };
}
