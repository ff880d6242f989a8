/**
 * The Middy chain every handler shares, assembled once. Order of checks, as upstream, after the
 * edge's origin header when there is an edge (origin.ts, 403): activation flag (404) → route →
 * `Accept` (406) → authentication (401) → permission (403) → Idempotency-Key (replay, 409, 422) →
 * the handler, which looks up its object (404) and then parses the body (415, 400) → validation
 * (400) → action.
 */
import middy from '@middy/core';
import type { Permission, RouteFacts } from '../api/routes';
import {
  HttpError,
  MissingRecord,
  NotAcceptable,
  NotFound,
  PermissionDenied,
  ServiceUnavailable,
} from '../domain/errors';
import { checkAuthenticationSettings, config } from '../config';
import { MAX_TEXT_PARAM } from '../domain/fields';
import { logger } from '../observability';
import { authenticate } from './auth';
import { crossOriginRefusal } from '../domain/cross-origin';
import { VIEWER_ADDRESS_HEADER, clientSource } from '../domain/client-address';
import { parseBody } from './body';
import { idempotency } from './idempotency';
import { observe } from './observe';
import { parkedIfLarge } from './large-answers';
import { ORIGIN_HEADER, checkOrigin } from './origin';
import { isRetryableFailure } from '../aws/aws-request';
import { SECURITY_HEADERS, header, json, type ApiEvent, type HttpResult } from './http';
import { apiWriter } from '../domain/actor';
import { withWriter } from '../store/actor';

export type { ApiEvent, HttpResult } from './http';

/** What the chain needs to know about the route a request is on. */
export interface RouteInfo {
  permission: Permission;
  allow: string[];
}

type Request = middy.Request<ApiEvent, HttpResult, Error>;

/**
 * A bundled function has its route's facts compiled in (infra/bundling.ts defines this variable), and
 * its bundle leaves the route table out; unbundled (the local runtime, tests), they come from the table.
 * Each read stays the literal expression esbuild replaces: held in a variable, the constant would not
 * be folded, and the import would stay in the bundle.
 */
// eslint-disable-next-line no-restricted-properties -- a build-time constant (esbuild's define), not a setting
const routeTable = process.env.HELPDESK_ROUTE_FACTS ? undefined : await import('../api/routes');

function factsOf(handlerName: string): RouteFacts {
  // eslint-disable-next-line no-restricted-properties -- a build-time constant (esbuild's define), not a setting
  if (process.env.HELPDESK_ROUTE_FACTS) return JSON.parse(process.env.HELPDESK_ROUTE_FACTS) as RouteFacts;
  return routeTable!.routeFacts(routeTable!.routeByHandler(handlerName));
}

/**
 * Failures named by this project rather than by the SDK: a plain write meeting a transaction in
 * flight (DynamoDB's TransactionConflictException, which the SDK does not retry: the store does,
 * store/transact.ts) and an S3 call whose fetch rejected (aws/s3.ts).
 */
const OUR_RETRYABLE = new Set(['TransactionConflictException', 'S3NetworkError']);
/** Why DynamoDB cancels a transaction when trying again may succeed (any other reason is final). */
const RETRYABLE_CANCELLATIONS = new Set(['ThrottlingError', 'TransactionConflict', 'ProvisionedThroughputExceeded']);

/**
 * A dependency that is throttling, failing (5xx after the SDK's retries) or unreachable. Every write
 * leaves nothing it could not undo when a call fails (tests/integration/faults.test.ts), so the
 * client may send the request again.
 */
function dependencyUnavailable(error: unknown): boolean {
  const e = error as {
    name?: string;
    code?: string;
    $metadata?: { httpStatusCode?: number };
    CancellationReasons?: { Code?: string }[];
  };
  if (!e) return false;
  // Throttling and transient failures as the SDK classifies them (timeouts, dropped connections, DNS
  // and routing failures, in the error or its cause), which the store's clients retried first.
  if (isRetryableFailure(e) || OUR_RETRYABLE.has(e.name ?? '')) return true;
  if ((e.$metadata?.httpStatusCode ?? 0) >= 500) return true;
  // A transaction throttled or in conflict with another is cancelled, with the reason per item.
  return (
    e.name === 'TransactionCanceledException' &&
    (e.CancellationReasons ?? []).some((r) => RETRYABLE_CANCELLATIONS.has(r?.Code ?? ''))
  );
}

/** Errors become upstream's bodies; unknown ones a logged 500 without internals. */
export function errorResponse(error: unknown): HttpResult {
  if (error instanceof HttpError) return json(error.status, error.body, error.headers);
  if (error instanceof MissingRecord) {
    const e = new NotFound();
    return json(e.status, e.body, e.headers);
  }
  if (dependencyUnavailable(error)) {
    // Why, for the operator: the client sees only a retryable 503.
    const e0 = error as { name?: string; code?: string; message?: string; CancellationReasons?: { Code?: string }[] };
    logger.warn('dependency unavailable', {
      error: e0.name,
      code: e0.code,
      reasons: e0.CancellationReasons?.map((r) => r?.Code),
      detail: e0.message?.slice(0, 200),
    });
    const e = new ServiceUnavailable();
    return json(e.status, e.body, e.headers);
  }
  // No mapping of DynamoDB's "item size has exceeded" any more: the domain's limits (docs/api.md,
  // "Limits") keep every record under 400 KB, so reaching it would be a bug, logged as one.
  logger.error('unhandled error', error instanceof Error ? error : String(error));
  return json(500, { detail: 'A server error occurred.' });
}

function finish(request: Request, route: RouteInfo | undefined): void {
  const response = request.response!;
  response.headers = { ...SECURITY_HEADERS, ...(route ? { Allow: route.allow.join(', ') } : {}), ...response.headers };
  if (request.event.requestContext.http.method === 'HEAD') delete response.body;
}

/**
 * DRF's content negotiation with JSON as the only renderer: some media range of `Accept` must match
 * `application/json` (parameters and q-values do not matter, as in DRF). No header means any.
 */
export function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  return accept.split(',').some((range) => {
    const [type = '', subtype = ''] = range.split(';')[0]!.trim().toLowerCase().split('/');
    return (type === '*' || type === 'application') && (subtype === '*' || subtype === 'json');
  });
}

const ROUTE = Symbol('route');
type Routed = ApiEvent & { [ROUTE]?: RouteInfo };

/**
 * Builds a Lambda handler. `resolveRoute` defaults to the handler's entry in the route table; the
 * fallback handler passes its own (which 404s unknown paths before authentication).
 */
export function apiHandler(
  handlerName: string,
  fn: (event: ApiEvent) => HttpResult | Promise<HttpResult>,
  resolveRoute?: (event: ApiEvent) => RouteInfo,
) {
  const entry = factsOf(handlerName);
  // A bad authentication setting fails the function as it loads, with its message, not each request.
  checkAuthenticationSettings();
  const fixed: RouteInfo = { permission: entry.permission, allow: entry.allow };
  const resolve = resolveRoute ?? (() => fixed);

  const responses: middy.MiddlewareObj<ApiEvent, HttpResult> = {
    after: async (request) => {
      finish(request, (request.event as Routed)[ROUTE]);
      // Only the bundles of the routes whose answers can be too large carry the parking (routes.ts answersCanBeLarge):
      // infra/bundling.ts replaces this expression, and esbuild drops the branch and its imports from the others.
      // eslint-disable-next-line no-restricted-properties -- a build-time constant (esbuild's define), not a setting
      if (process.env.HELPDESK_PARKS_ANSWERS !== 'false' && entry.largeAnswers)
        request.response = await parkedIfLarge(request.response!);
    },
    onError: (request) => {
      request.response = errorResponse(request.error);
      finish(request, (request.event as Routed)[ROUTE]);
    },
  };

  // First of all: behind the edge, a request that went around it learns nothing (origin.ts). One
  // that came through it is from the viewer CloudFront names; any other, from its own source.
  const edgeOnly: middy.MiddlewareObj<ApiEvent, HttpResult> = {
    before: async (request) => {
      const e = request.event;
      const throughEdge = await checkOrigin(header(e, ORIGIN_HEADER));
      e.clientSource = clientSource(
        e.requestContext.http.sourceIp,
        throughEdge ? header(e, VIEWER_ADDRESS_HEADER) : undefined,
      );
    },
  };

  const activationAndRoute: middy.MiddlewareObj<ApiEvent, HttpResult> = {
    before: (request) => {
      if (!config.apiActive) throw new NotFound();
      (request.event as Routed)[ROUTE] = resolve(request.event);
      if (entry.negotiatesJson && !acceptsJson(header(request.event, 'accept'))) throw new NotAcceptable();
    },
  };

  // Before any password work or body parsing: a forged cross-site write costs nothing.
  const crossOrigin: middy.MiddlewareObj<ApiEvent, HttpResult> = {
    before: (request) => {
      const e = request.event;
      const refusal = crossOriginRefusal(
        // Behind the edge the Host a function sees is CloudFront's origin; a browser's Origin names the edge.
        {
          method: e.requestContext.http.method,
          host: config.publicUrl ? new URL(config.publicUrl).host : header(e, 'host'),
          origin: header(e, 'origin'),
          secFetchSite: header(e, 'sec-fetch-site'),
        },
        config.corsOrigins,
      );
      if (refusal) throw new PermissionDenied(refusal);
    },
  };

  const authentication: middy.MiddlewareObj<ApiEvent, HttpResult> = {
    before: async (request) => {
      request.event.user = await authenticate(header(request.event, 'authorization'), request.event.clientSource);
    },
  };

  const permission: middy.MiddlewareObj<ApiEvent, HttpResult> = {
    before: (request) => {
      const route = (request.event as Routed)[ROUTE]!;
      const user = request.event.user;
      if (route.permission === 'staff' && !user?.is_staff) throw new PermissionDenied();
      if (route.permission === 'superuser' && !user?.is_superuser) throw new PermissionDenied();
    },
  };

  const body: middy.MiddlewareObj<ApiEvent, HttpResult> = {
    before: (request) => {
      let parsed: ReturnType<typeof parseBody> | undefined;
      request.event.parseBody = () => (parsed ??= parseBody(request.event));
    },
  };

  const chain = middy<ApiEvent, HttpResult>()
    .use(observe(handlerName)) // logs, metrics, traces (observe.ts): first in, last out, around every check
    .use(responses)
    .use(edgeOnly)
    .use(activationAndRoute)
    .use(crossOrigin)
    .use(authentication)
    .use(permission)
    .use(body); // parses on first use (memoised): the handler, or a keyed POST's fingerprint
  // A POST route with Idempotency-Key: once per key (idempotency.ts). Not the fallback: a 404 or 405
  // has no effect to make once, and its function may not write keys (shared/api/table-access.ts).
  if (entry.method === 'POST') chain.use(idempotency(handlerName, { answerHoldsSecret: entry.answerHoldsSecret }));
  // Everything the handler writes names its caller (store/actor.ts): the change feed's, the webhooks' and the mail
  // log's actor.
  return chain.handler((event) => (event.user ? withWriter(apiWriter(event.user), () => fn(event)) : fn(event)));
}

/** Path parameter as text, percent-decoded (`@`, `#` may come encoded); a malformed escape or one too long: 404. */
export function textParam(event: ApiEvent, name: string): string {
  let text: string;
  try {
    text = decodeURIComponent(event.pathParameters?.[name] ?? '');
  } catch {
    throw new NotFound();
  }
  // Longer names nothing, and is refused before any read: DynamoDB refuses a sort key over 1,024 bytes.
  if (text.length > MAX_TEXT_PARAM) throw new NotFound();
  return text;
}

/** Path parameter as an integer id; anything else is 404, as upstream's `\d+` routes. */
export function idParam(event: ApiEvent, name = 'id'): number {
  const raw = event.pathParameters?.[name] ?? '';
  if (!/^\d{1,15}$/.test(raw)) throw new NotFound();
  return Number(raw);
}
