/**
 * The local runtime writes one log record per request, with the fields operators search on, and
 * never the credentials or the body. Started here with POWERTOOLS_DEV=false: one JSON line per
 * record, as Lambda writes them (`npm start` pretty-prints the same records).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic } from './client';
import { spawnRuntime, type SpawnedRuntime } from './spawn-runtime';

const ADMIN = { username: 'log-admin', password: 'log-admin-password-secret' };

let runtime: SpawnedRuntime | undefined;

beforeAll(async () => {
  runtime = await spawnRuntime({
    POWERTOOLS_DEV: 'false',
    HELPDESK_ACTIVATE_API_ENDPOINT: 'True',
    HELPDESK_ADMIN_USERNAME: ADMIN.username,
    HELPDESK_ADMIN_PASSWORD: ADMIN.password,
  });
});

afterAll(async () => {
  await runtime?.stop();
});

/** The request records written so far: the output's lines that are JSON with message "request". */
function requestRecords(): Record<string, any>[] {
  return runtime!
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, any>)
    .filter((record) => record.message === 'request');
}

async function send(method: string, path: string, init: { auth?: boolean; json?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (init.auth !== false) headers.authorization = basic(ADMIN.username, ADMIN.password);
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${runtime!.url}${path}`, { method, headers, body: init.json === undefined ? undefined : JSON.stringify(init.json) });
  await res.arrayBuffer();
  return res.status;
}

/** Waits until `count` request records are out (the line is written after the response). */
async function waitForRecords(count: number): Promise<Record<string, any>[]> {
  const deadline = Date.now() + 10_000;
  while (requestRecords().length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
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
    for (const [method, path, init, status] of requests) expect(await send(method, path, init), `${method} ${path}`).toBe(status);

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
});
