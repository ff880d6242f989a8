/**
 * The local HTTP server: turns each request into an API Gateway HTTP API (payload 2.0) event,
 * routes it with the route table and calls the very handler that CDK deploys.
 */
import { randomUUID } from 'node:crypto';
import { ROUTE_FUNCTION_TIMEOUT_SECONDS } from '../../shared/api/function-limits';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isPreflight, preflightHeaders, responseCorsHeaders } from '../cors';
import { config } from '../../shared/config';
import { fallbackRoute, matchRoutes, type Route } from '../../shared/api/routes';
import { MAX_BODY_BYTES } from '../../shared/middleware/body';
import {
  LAMBDA_RESPONSE_LIMIT_BYTES,
  SECURITY_HEADERS,
  bytesOver,
  type HttpEvent,
  type HttpResult,
} from '../../shared/middleware/http';
import { asRoute } from './table-access';
import { asInvocation, LOCAL_FUNCTION_CONCURRENCY } from './invocations';

type Handler = (event: HttpEvent, context: object) => Promise<HttpResult>;

const handlers = new Map<string, Promise<Handler>>();
function loadHandler(route: Route): Promise<Handler> {
  let handler = handlers.get(route.handler);
  if (!handler) {
    // A computed URL, not a template in import(): vite (the tests run the runtime in-process too)
    // only resolves templates one folder deep, and would refuse `functions/<resource>/<op>.ts`.
    const url = new URL(`../../functions/${route.handler}.ts`, import.meta.url).href;
    handler = import(/* @vite-ignore */ url).then((m: { handler: Handler }) => m.handler);
    handlers.set(route.handler, handler);
  }
  return handler;
}

/** Which route serves a request: HEAD goes to GET; anything unmatched to the fallback handler. */
export function resolveRoute(method: string, path: string): { route: Route; params: Record<string, string> } {
  const match = matchRoutes(path);
  const wanted = method === 'HEAD' ? 'GET' : method;
  const route = match?.routes.find((r) => r.method === wanted);
  if (match && route) return { route, params: match.params };
  return { route: fallbackRoute, params: { proxy: path.replace(/^\/api\/?/, '') } };
}

/** API Gateway passes these content types as text and base64-encodes everything else. */
function isTextual(contentType: string | undefined): boolean {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return (
    type === '' ||
    type.startsWith('text/') ||
    ['application/json', 'application/x-www-form-urlencoded', 'application/xml', 'application/javascript'].includes(
      type,
    ) ||
    type.endsWith('+json') ||
    type.endsWith('+xml')
  );
}

class BodyTooLarge extends Error {}

/**
 * The most of a body over the limit that is read (and dropped) before the 413: past it, or declared past it, the
 * 413 goes out at once, as API Gateway's does for a declared length over its limit. Reading on would let one request
 * hold a connection and the server's time for as long as its client sends (the probe: a declared terabyte).
 */
const DRAINED_MAX_BYTES = 4 * MAX_BODY_BYTES;

/**
 * Reads the whole body, as API Gateway does. A body over the limit is read to its end and dropped
 * before the 413 goes out: answering while the client is still sending makes the connection close
 * with unread data, and many clients (Node's among them) then lose the answer to a reset. One over
 * DRAINED_MAX_BYTES is not read to its end.
 */
function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > DRAINED_MAX_BYTES) return reject(new BodyTooLarge());
    let tooLarge = declared > MAX_BODY_BYTES;
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      if (size > DRAINED_MAX_BYTES) {
        req.off('data', onData);
        req.pause();
        reject(new BodyTooLarge());
      } else if (!tooLarge) chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => (tooLarge ? reject(new BodyTooLarge()) : resolve(Buffer.concat(chunks))));
    req.on('error', reject);
  });
}

/** The request's URL, parsed once per request (the route and the event both read it). */
const requestUrl = (req: IncomingMessage) => new URL(req.url ?? '/', 'http://local');

export function toEvent(
  req: IncomingMessage,
  body: Buffer,
  route: Route,
  params: Record<string, string>,
  url = requestUrl(req),
): HttpEvent {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && name !== 'cookie') headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  headers['x-forwarded-proto'] = 'http';
  headers['x-forwarded-for'] = req.socket.remoteAddress ?? '127.0.0.1';
  const method = (req.method ?? 'GET').toUpperCase();
  const rawQueryString = url.search.slice(1);
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = k in query ? `${query[k]},${v}` : v;
  const textual = isTextual(headers['content-type']);
  const routeKey = route === fallbackRoute ? 'ANY /api/{proxy+}' : `${route.method} ${route.path}`;
  const now = new Date();
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString,
    cookies: req.headers.cookie ? req.headers.cookie.split(/;\s*/) : undefined,
    headers,
    queryStringParameters: rawQueryString ? query : undefined,
    pathParameters: Object.keys(params).length ? params : undefined,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: {
        method,
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: headers['x-forwarded-for'],
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    body: body.length ? body.toString(textual ? 'utf8' : 'base64') : undefined,
    isBase64Encoded: body.length > 0 && !textual,
  };
}

function send(res: ServerResponse, method: string, result: HttpResult): void {
  const body =
    result.body === undefined ? undefined : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8');
  res.writeHead(result.statusCode, { ...result.headers, ...(body ? { 'Content-Length': body.length } : {}) });
  res.end(method === 'HEAD' ? undefined : body);
}

/** `npm start`'s access log: one line per request (HELPDESK_LOG_FORMAT=line, its default). */
export function accessLine(
  method: string,
  url: string,
  status: number,
  ms: number,
  requestId: string | undefined,
): string {
  return `${method} ${url} ${status} ${Math.round(ms)} ms ${requestId ?? '-'}`;
}

/**
 * What the HTTP API answers when a route's function fails: runs past its timeout (15 s, before the integration's own
 * 30 s), or returns a response payload past Lambda's limit. Lambda reports the invocation failed, and the HTTP API
 * answers 500 with its own body.
 */
export const FUNCTION_FAILED: HttpResult = {
  statusCode: 500,
  headers: { 'Content-Type': 'application/json' },
  body: '{"message":"Internal Server Error"}',
};

/**
 * The function's answer, or FUNCTION_FAILED once it has run `ms`. As on Lambda, what the handler was
 * doing is not undone (a write it sent may still land); here it even runs on, unanswered.
 */
export async function withFunctionTimeout(invocation: Promise<HttpResult>, ms: number): Promise<HttpResult> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<HttpResult>((resolve) => (timer = setTimeout(() => resolve(FUNCTION_FAILED), ms)));
  try {
    return await Promise.race([invocation, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The function's answer as Lambda returns it: one whose payload is past Lambda's limit fails the invocation, as on AWS
 * (the functions park such answers: shared/middleware/large-answers.ts; this finds one that does not).
 */
export function withinPayloadLimit(result: HttpResult, handler: string): HttpResult {
  const bytes = bytesOver(result, LAMBDA_RESPONSE_LIMIT_BYTES);
  if (bytes === undefined) return result;
  console.error(
    JSON.stringify({
      level: 'ERROR',
      message:
        `Response payload size (${bytes} bytes) exceeded maximum allowed payload size ` +
        `(${LAMBDA_RESPONSE_LIMIT_BYTES} bytes).`,
      handler,
    }),
  );
  return FUNCTION_FAILED;
}

/** Invokes a handler within its function's concurrency; `waiting()` counts the invocations waiting for a slot. */
export type FunctionConcurrency = (<T>(handler: string, invoke: () => Promise<T>) => Promise<T>) & {
  waiting(): number;
};

/**
 * Each function's concurrency, as a reserved concurrency bounds a Lambda function's: at most
 * `limit` invocations of one handler at once; the others wait their turn here (where Lambda would
 * throttle them: the local runtime answers a burst late rather than with errors). Nothing else
 * holds a request back: not the stream consumer's backlog (docs/local.md, "Concurrency and timeouts").
 */
export function functionConcurrency(limit: number): FunctionConcurrency {
  const running = new Map<string, number>();
  const waiting = new Map<string, (() => void)[]>();
  let waitingCount = 0;
  const bound = async <T>(handler: string, invoke: () => Promise<T>): Promise<T> => {
    if ((running.get(handler) ?? 0) >= limit) {
      waitingCount++;
      await new Promise<void>((start) => waiting.set(handler, [...(waiting.get(handler) ?? []), start]));
      waitingCount--;
    } else running.set(handler, (running.get(handler) ?? 0) + 1);
    try {
      return await invoke();
    } finally {
      const next = waiting.get(handler)?.shift();
      // The slot passes to the next in line, else it is freed.
      if (next) next();
      else running.set(handler, running.get(handler)! - 1);
    }
  };
  return Object.assign(bound, { waiting: () => waitingCount });
}

/** Serves one request; returns the request id given to its handler, if one ran. */
async function answer(
  req: IncomingMessage,
  res: ServerResponse,
  corsOrigins: readonly string[],
  grants: boolean,
  functionTimeoutMs: number,
  concurrency: FunctionConcurrency,
): Promise<string | undefined> {
  const method = (req.method ?? 'GET').toUpperCase();
  const url = requestUrl(req);
  const path = url.pathname;
  const origin = req.headers.origin;
  // With CORS on, API Gateway answers preflights itself (infra/cors.ts) and adds the allowed
  // origin to every other response; without it both reach the function like any request.
  if (corsOrigins.length > 0 && isPreflight(method, req.headers as Record<string, string | undefined>)) {
    req.resume();
    send(res, method, { statusCode: 204, headers: preflightHeaders(corsOrigins, origin) });
    return undefined;
  }
  const cors = corsOrigins.length > 0 ? responseCorsHeaders(corsOrigins, origin) : {};
  const { route, params } = resolveRoute(method, path);
  let body: Buffer;
  try {
    body = await readBody(req);
  } catch (error) {
    // What API Gateway answers for a payload over its limit, in upstream's error shape.
    const detail =
      error instanceof BodyTooLarge
        ? `Request body is larger than ${MAX_BODY_BYTES} bytes.`
        : 'Request body could not be read.';
    send(res, method, {
      statusCode: error instanceof BodyTooLarge ? 413 : 400,
      headers: { ...SECURITY_HEADERS, ...cors, 'Content-Type': 'application/json', Connection: 'close' },
      body: JSON.stringify({ detail }),
    });
    return undefined;
  }
  const event = toEvent(req, body, route, params, url);
  const handler = await loadHandler(route);
  const { requestId } = event.requestContext;
  const invoke = () =>
    asInvocation(requestId, () => handler(event, { awsRequestId: requestId, functionName: route.handler }));
  // The timeout counts from the invocation's start, as Lambda's does.
  const result = await concurrency(route.handler, () =>
    withFunctionTimeout(grants ? asRoute(route, invoke) : invoke(), functionTimeoutMs),
  );
  const returned = withinPayloadLimit(result, route.handler);
  send(res, method, { ...returned, headers: { ...returned.headers, ...cors } });
  return requestId;
}

/** Answers that the server's clientError sent itself, the parser having refused their request's body. */
const refusedByParser = new WeakSet<ServerResponse>();

/**
 * `corsOrigins`: HELPDESK_CORS_ORIGINS, comma-separated allowed origins (or `*`); unset or empty,
 * CORS is off. `grants`: each handler's DynamoDB calls are held to its route's grants
 * (table-access.ts); off only where the runtime does not enforce them (RuntimeOptions.awsEmulation).
 */
export function createLocalServer({
  corsOrigins = config.corsOrigins,
  accessLog = false,
  grants = true,
  functionTimeoutMs = ROUTE_FUNCTION_TIMEOUT_SECONDS * 1000,
  concurrency = functionConcurrency(LOCAL_FUNCTION_CONCURRENCY),
}: {
  corsOrigins?: readonly string[];
  accessLog?: boolean;
  grants?: boolean;
  functionTimeoutMs?: number;
  /** Each function's concurrency (the runtime shares it with the stream's poller, which yields to a burst). */
  concurrency?: FunctionConcurrency;
} = {}): Server {
  return createServer((req, res) => {
    const started = performance.now();
    let requestId: string | undefined;
    answer(req, res, corsOrigins, grants, functionTimeoutMs, concurrency)
      .then(
        (id) => void (requestId = id),
        (error: Error) => {
          if (refusedByParser.has(res)) return;
          console.error(JSON.stringify({ level: 'ERROR', message: 'local server error', error: error.message }));
          if (!res.headersSent)
            send(res, 'GET', {
              statusCode: 500,
              headers: { ...SECURITY_HEADERS, 'Content-Type': 'application/json' },
              body: '{"detail":"A server error occurred."}',
            });
          else res.destroy();
        },
      )
      // Every request gets its line, a failed one too.
      .finally(
        () =>
          accessLog &&
          console.log(
            accessLine(
              (req.method ?? 'GET').toUpperCase(),
              req.url ?? '/',
              res.statusCode,
              performance.now() - started,
              requestId,
            ),
          ),
      );
  }).on('clientError', (error: Error & { code?: string }, socket) => {
    // A request Node's parser refuses (an unknown method, bytes not allowed in a header, headers
    // too large, a body's framing broken after its head was read): answered in the API's JSON error
    // shape, with its headers, as API Gateway would. Mid-body, the route reading the body gets an
    // error once the socket closes: it leaves the answer to this one.
    const response = (socket as { _httpMessage?: ServerResponse })._httpMessage;
    if (!socket.writable || response?.headersSent) return void socket.destroy();
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    if (response) {
      refusedByParser.add(response);
      response.statusCode = status; // for the access line
    }
    const body = JSON.stringify({ detail: status === 431 ? 'Request headers are too large.' : 'Malformed request.' });
    const headers = Object.entries({
      ...SECURITY_HEADERS,
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(body),
      Connection: 'close',
    });
    const reason = status === 431 ? 'Request Header Fields Too Large' : 'Bad Request';
    const head = headers.map(([k, v]) => `${k}: ${v}\r\n`).join('');
    socket.end(`HTTP/1.1 ${status} ${reason}\r\n${head}\r\n${body}`);
  });
}
