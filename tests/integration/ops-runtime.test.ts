/**
 * The local runtime configured as a deployed environment can be: CORS on (HELPDESK_CORS_ORIGINS)
 * and Lambda's one-line JSON logs (POWERTOOLS_DEV=false). One runtime for both, started here.
 *
 * CORS as API Gateway does it when an environment lists origins: preflights answered before any
 * function, without credentials; the allowed origin on every other response; plain OPTIONS still
 * described by the function. Off by default (the shared runtime).
 *
 * Logs: one record per request, with the fields operators search on, and never the credentials
 * or the body (`npm start` pretty-prints the same records).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, call, type Json } from './client';
import { spawnRuntime, type SpawnedRuntime } from './spawn-runtime';
import { onSharedEngines } from './shared-engines';

const ADMIN = { username: 'ops-admin', password: 'ops-admin-password-secret' };
const APP = 'https://app.example.com';
const OTHER = 'https://evil.example.com';

let runtime: SpawnedRuntime | undefined;

beforeAll(async () => {
  runtime = await spawnRuntime({
    ...onSharedEngines(),
    HELPDESK_CORS_ORIGINS: `${APP}, http://localhost:5173`,
    HELPDESK_ACTIVATE_API_ENDPOINT: 'True',
    POWERTOOLS_DEV: 'false',
    POWERTOOLS_LOG_LEVEL: 'INFO',
    HELPDESK_ADMIN_USERNAME: ADMIN.username,
    HELPDESK_ADMIN_PASSWORD: ADMIN.password,
  });
});

afterAll(async () => {
  await runtime?.stop();
});

async function send(method: string, path: string, headers: Record<string, string>) {
  const res = await fetch(`${runtime!.url}${path}`, { method, headers });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const preflight = (origin: string, method = 'POST') => ({
  origin,
  'access-control-request-method': method,
  'access-control-request-headers': 'authorization,content-type',
});

/** The request records written so far: the output's lines that are JSON with message "request". */
function requestRecords(): Record<string, Json>[] {
  return runtime!
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, Json>)
    .filter((record) => record.message === 'request');
}

async function sendLogged(method: string, path: string, init: { auth?: boolean; json?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (init.auth !== false) headers.authorization = basic(ADMIN.username, ADMIN.password);
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${runtime!.url}${path}`, {
    method,
    headers,
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
  await res.arrayBuffer();
  return res.status;
}

/** Waits until `count` request records are out (the line is written after the response). */
async function waitForRecords(count: number): Promise<Record<string, Json>[]> {
  await expect.poll(() => requestRecords().length, { timeout: 10_000, interval: 50 }).toBeGreaterThanOrEqual(count);
  return requestRecords();
}

describe('request logs of the local runtime', () => {
  it('writes exactly one JSON line per request with request id, route, status, latency and cold start', async () => {
    const before = requestRecords().length;
    const requests: [string, string, { auth?: boolean; json?: unknown }, number, string][] = [
      ['GET', '/api/', {}, 200, 'GET /api'],
      ['GET', '/api/', {}, 200, 'GET /api'],
      ['GET', '/api/tickets/', { auth: false }, 401, 'GET /api/tickets'],
      ['GET', '/api/tickets/999999999/', {}, 404, 'GET /api/tickets/{id}'],
      ['POST', '/api/users/', { json: { username: 'x', password: 'body-password-secret' } }, 400, 'POST /api/users'],
      ['DELETE', '/api/users/', {}, 405, 'ANY /api/{proxy+}'],
    ];
    for (const [method, path, init, status] of requests)
      expect(await sendLogged(method, path, init), `${method} ${path}`).toBe(status);

    const records = (await waitForRecords(before + requests.length)).slice(before);
    expect(records).toHaveLength(requests.length);
    records.forEach((record, i) => {
      const [method, path, , status, route] = requests[i]!;
      expect(record).toMatchObject({
        level: 'INFO',
        service: 'helpdesk',
        method,
        path,
        status,
        route,
        request_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        function_request_id: record.request_id,
        latency_ms: expect.any(Number),
        cold_start: expect.any(Boolean),
      });
    });
    expect(new Set(records.map((r) => r.request_id)).size).toBe(requests.length);
    // The first request a handler serves is its cold start, the next one is not.
    expect(records[0]!.cold_start).toBe(true);
    expect(records[1]!.cold_start).toBe(false);
    expect(records[0]!.operation).toBe('api/root');

    const output = runtime!.output();
    expect(output).not.toContain(ADMIN.password);
    expect(output).not.toContain(Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64'));
    expect(output).not.toContain('body-password-secret');
  });

  it("gives each of concurrent requests its own function's context, though one process serves them all", async () => {
    const before = requestRecords().length;
    // Every request's context is set before any has its answer (each waits on DynamoDB).
    const paths = ['/api/tickets/', '/api/users/', '/api/queues/', '/api/followups/'];
    const sent = Array.from({ length: 16 }, (_, i) => paths[i % paths.length]!);
    const statuses = await Promise.all(sent.map((path) => sendLogged('GET', path)));
    expect(statuses).toEqual(sent.map(() => 200));

    const records = (await waitForRecords(before + sent.length)).slice(before);
    expect(records).toHaveLength(sent.length);
    for (const record of records) {
      // `operation` is the request line's own (observe.ts); the function's context is Powertools'.
      expect(record.function_request_id, String(record.path)).toBe(record.request_id);
      expect(record.function_name, String(record.path)).toBe(record.operation);
    }
  });
});

describe('CORS on (HELPDESK_CORS_ORIGINS)', () => {
  it('answers a preflight itself, with no credentials, for any path', async () => {
    for (const path of ['/api/tickets/', '/api/tickets/12/', '/api/no-such-thing/']) {
      const reply = await send('OPTIONS', path, preflight(APP));
      expect(reply.status, path).toBe(204);
      expect(reply.text).toBe('');
      expect(reply.headers.get('access-control-allow-origin')).toBe(APP);
      expect(reply.headers.get('access-control-allow-methods')).toBe('GET,HEAD,POST,PUT,PATCH,DELETE,OPTIONS');
      expect(reply.headers.get('access-control-allow-headers')).toBe(
        'authorization,content-type,if-match,if-none-match,idempotency-key',
      );
      expect(reply.headers.get('access-control-max-age')).toBe('3600');
    }
  });

  it('answers the preflight of an origin not listed without allowing it', async () => {
    const reply = await send('OPTIONS', '/api/tickets/', preflight(OTHER));
    expect(reply.status).toBe(204);
    expect(reply.headers.get('access-control-allow-origin')).toBeNull();
    expect(reply.headers.get('access-control-allow-methods')).toBeNull();
  });

  it('lets a plain OPTIONS reach the function, which describes the route', async () => {
    const reply = await send('OPTIONS', '/api/tickets/', {
      origin: APP,
      authorization: basic(ADMIN.username, ADMIN.password),
    });
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.text)).toMatchObject({ name: expect.any(String), renders: ['application/json'] });
    expect(reply.headers.get('allow')).toBe('GET, POST, HEAD, OPTIONS');
    expect(reply.headers.get('access-control-allow-origin')).toBe(APP);
  });

  it('adds the allowed origin and the exposed headers to answers, errors included', async () => {
    const ok = await send('GET', '/api/', { origin: APP, authorization: basic(ADMIN.username, ADMIN.password) });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(APP);
    expect(ok.headers.get('access-control-expose-headers')).toBe(
      'etag,retry-after,location,allow,www-authenticate,idempotent-replayed',
    );

    const unauthenticated = await send('GET', '/api/tickets/', { origin: 'http://localhost:5173' });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');

    const other = await send('GET', '/api/', { origin: OTHER, authorization: basic(ADMIN.username, ADMIN.password) });
    expect(other.status).toBe(200);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();

    const sameOrigin = await send('GET', '/api/', { authorization: basic(ADMIN.username, ADMIN.password) });
    expect(sameOrigin.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('CORS off (the default)', () => {
  it('sends a preflight to the function like any OPTIONS, which asks for credentials', async () => {
    const reply = await call('OPTIONS', '/api/tickets/', { auth: null, headers: preflight(APP) });
    expect(reply.status).toBe(401);
    expect(reply.headers.get('access-control-allow-origin')).toBeNull();
    expect(reply.headers.get('access-control-allow-methods')).toBeNull();
  });

  it('adds no CORS header to answers', async () => {
    const reply = await call('GET', '/api/', { headers: { origin: APP } });
    expect(reply.status).toBe(200);
    for (const name of ['access-control-allow-origin', 'access-control-expose-headers'])
      expect(reply.headers.get(name)).toBeNull();
  });
});
