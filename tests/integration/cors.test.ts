/**
 * CORS in the local runtime, as API Gateway does it when an environment lists origins
 * (HELPDESK_CORS_ORIGINS here): preflights answered before any function, without credentials; the
 * allowed origin on every other response; plain OPTIONS still described by the function. Off by
 * default (the shared runtime).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, call } from './client';
import { spawnRuntime, type SpawnedRuntime } from './spawn-runtime';

const ADMIN = { username: 'cors-admin', password: 'cors-admin-password' };
const APP = 'https://app.example.com';
const OTHER = 'https://evil.example.com';

let runtime: SpawnedRuntime | undefined;

beforeAll(async () => {
  runtime = await spawnRuntime({
    HELPDESK_CORS_ORIGINS: `${APP}, http://localhost:5173`,
    HELPDESK_ACTIVATE_API_ENDPOINT: 'True',
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

describe('CORS on (HELPDESK_CORS_ORIGINS)', () => {
  it('answers a preflight itself, with no credentials, for any path', async () => {
    for (const path of ['/api/tickets/', '/api/tickets/12/', '/api/no-such-thing/']) {
      const reply = await send('OPTIONS', path, preflight(APP));
      expect(reply.status, path).toBe(204);
      expect(reply.text).toBe('');
      expect(reply.headers.get('access-control-allow-origin')).toBe(APP);
      expect(reply.headers.get('access-control-allow-methods')).toBe('GET,HEAD,POST,PUT,PATCH,DELETE,OPTIONS');
      expect(reply.headers.get('access-control-allow-headers')).toBe('authorization,content-type,if-match,idempotency-key');
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
    const reply = await send('OPTIONS', '/api/tickets/', { origin: APP, authorization: basic(ADMIN.username, ADMIN.password) });
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.text)).toMatchObject({ name: expect.any(String), renders: ['application/json'] });
    expect(reply.headers.get('allow')).toBe('GET, POST, HEAD, OPTIONS');
    expect(reply.headers.get('access-control-allow-origin')).toBe(APP);
  });

  it('adds the allowed origin and the exposed headers to answers, errors included', async () => {
    const ok = await send('GET', '/api/', { origin: APP, authorization: basic(ADMIN.username, ADMIN.password) });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(APP);
    expect(ok.headers.get('access-control-expose-headers')).toBe('etag,retry-after,location,allow,www-authenticate');

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
    for (const name of ['access-control-allow-origin', 'access-control-expose-headers']) expect(reply.headers.get(name)).toBeNull();
  });
});
