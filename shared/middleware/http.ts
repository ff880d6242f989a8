/** The API Gateway HTTP API (payload format 2.0) event and result, and response helpers. */
import { config } from '../config';
export { LAMBDA_RESPONSE_LIMIT_BYTES } from '../api/function-limits';
import type { ParsedBody } from '../domain/body';
import type { User } from '../domain/records';

export interface HttpEvent {
  version: '2.0';
  routeKey: string;
  rawPath: string;
  rawQueryString: string;
  cookies?: string[];
  headers: Record<string, string | undefined>;
  queryStringParameters?: Record<string, string | undefined>;
  pathParameters?: Record<string, string | undefined>;
  requestContext: {
    accountId: string;
    apiId: string;
    domainName: string;
    domainPrefix: string;
    http: { method: string; path: string; protocol: string; sourceIp: string; userAgent: string };
    requestId: string;
    routeKey: string;
    stage: string;
    time: string;
    timeEpoch: number;
  };
  body?: string;
  isBase64Encoded: boolean;
}

export interface HttpResult {
  statusCode: number;
  headers?: Record<string, string>;
  body?: string;
  isBase64Encoded?: boolean;
}

/** What the middleware chain adds to the event for the handler. */
export interface ApiEvent extends HttpEvent {
  user?: User;
  /** Who the request is from, as the failed-login throttle counts it (domain/client-address.ts). */
  clientSource?: string;
  /** Parses the body on first call (after the handler's own lookups, as upstream orders its checks). */
  parseBody?: () => Promise<ParsedBody>;
}

/** JSON writes a UTF-16 unit as at most 6 bytes (a control character: `\u001f`). */
const MAX_JSON_BYTES_PER_UNIT = 6;

/**
 * The size of `result` as Lambda's runtime sends it (JSON) when that is over `limit` bytes, else undefined. Most
 * answers are far below it, which their length shows without serialising them again.
 */
export function bytesOver(result: HttpResult, limit: number): number | undefined {
  const units =
    (result.body?.length ?? 0) + Object.entries(result.headers ?? {}).reduce((n, [k, v]) => n + k.length + v.length, 0);
  // The bound, and the envelope's keys and punctuation (statusCode, headers, body, isBase64Encoded).
  if (units * MAX_JSON_BYTES_PER_UNIT + 256 <= limit) return undefined;
  const bytes = Buffer.byteLength(JSON.stringify(result));
  return bytes > limit ? bytes : undefined;
}

export function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpResult {
  return { statusCode, headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

export function noContent(): HttpResult {
  return { statusCode: 204, headers: {} };
}

/** A GET whose `If-None-Match` names the current representation: its tag, no body. */
export function notModified(etag: string): HttpResult {
  return { statusCode: 304, headers: { ETag: etag } };
}

export function redirect(location: string): HttpResult {
  return { statusCode: 302, headers: { Location: location, 'Cache-Control': 'no-store' } };
}

/** Headers upstream (Django's middleware) sends on every response. */
export const SECURITY_HEADERS = {
  Vary: 'Accept',
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
};

export function header(event: HttpEvent, name: string): string | undefined {
  return event.headers[name.toLowerCase()] ?? undefined;
}

/** The API's own origin as the client reached it, for absolute links. */
export function baseUrl(event: HttpEvent): string {
  // Behind the edge (infra/edge.ts) the host a function sees is CloudFront's origin, which refuses
  // requests that do not come through CloudFront: links name the edge's address.
  if (config.publicUrl) return config.publicUrl;
  const proto = header(event, 'x-forwarded-proto') ?? 'https';
  const host = header(event, 'host') ?? event.requestContext.domainName;
  return `${proto}://${host}`;
}

/** The query string's parameters in order, repeated names kept. */
export function queryPairs(event: HttpEvent): [string, string][] {
  return [...new URLSearchParams(event.rawQueryString ?? '')];
}

export function queryParam(event: HttpEvent, name: string): string | undefined {
  const values = queryPairs(event).filter(([k]) => k === name);
  return values.at(-1)?.[1];
}
