/**
 * The API switch (docs/upstream.md: where we differ, a): with HELPDESK_ACTIVATE_API_ENDPOINT other than `True`,
 * every /api path answers 404 before authentication. Needs a second runtime, started here only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic } from './client';
import { spawnRuntime, type SpawnedRuntime } from './spawn-runtime';
import { onSharedEngines } from './shared-engines';

const ADMIN = { username: 'switch-admin', password: 'switch-admin-password' };

let runtime: SpawnedRuntime | undefined;

beforeAll(async () => {
  runtime = await spawnRuntime({
    ...onSharedEngines(),
    HELPDESK_ACTIVATE_API_ENDPOINT: 'False',
    HELPDESK_ADMIN_USERNAME: ADMIN.username,
    HELPDESK_ADMIN_PASSWORD: ADMIN.password,
  });
});

afterAll(async () => {
  await runtime?.stop();
});

async function request(method: string, path: string, init: { auth?: string; body?: string; type?: string } = {}) {
  const headers: Record<string, string> = {};
  if (init.auth) headers.authorization = init.auth;
  if (init.type) headers['content-type'] = init.type;
  const res = await fetch(`${runtime!.url}${path}`, { method, headers, body: init.body, redirect: 'manual' });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text };
}

const PATHS: [string, string][] = [
  ['GET', '/api/tickets/'],
  ['GET', '/api/tickets'],
  ['POST', '/api/tickets/'],
  ['GET', '/api/tickets/1/'],
  ['PUT', '/api/tickets/1/'],
  ['PATCH', '/api/tickets/1'],
  ['DELETE', '/api/tickets/1/'],
  ['GET', '/api/tickets/1/attachments/1'],
  ['POST', '/api/followups/'],
  ['POST', '/api/users/'],
  ['GET', '/api/users/'],
  ['OPTIONS', '/api/tickets/'],
  ['GET', '/api/'],
  ['GET', '/api/unknown/'],
];

describe('with HELPDESK_ACTIVATE_API_ENDPOINT=False', () => {
  it('every /api path answers 404 {"detail":"Not found."} without credentials', async () => {
    for (const [method, path] of PATHS) {
      const reply = await request(method, path);
      expect(reply.status, `${method} ${path}`).toBe(404);
      expect(reply.text).toBe('{"detail":"Not found."}');
      expect(reply.headers.get('content-type')).toBe('application/json');
      expect(reply.headers.get('www-authenticate')).toBeNull();
    }
  });

  it('valid staff credentials get the same 404', async () => {
    const auth = basic(ADMIN.username, ADMIN.password);
    for (const [method, path] of PATHS) {
      const reply = await request(method, path, { auth });
      expect(reply.status, `${method} ${path}`).toBe(404);
      expect(reply.text).toBe('{"detail":"Not found."}');
    }
  });

  it('a valid ticket body is not accepted either', async () => {
    const reply = await request('POST', '/api/tickets/', {
      auth: basic(ADMIN.username, ADMIN.password),
      type: 'application/json',
      body: JSON.stringify({ queue: 1, title: 't', description: 'd', submitter_email: 'a@example.com' }),
    });
    expect(reply.status).toBe(404);
    expect(reply.text).toBe('{"detail":"Not found."}');
  });

  it('the 404 comes before any other check: bad credentials, bad bodies, Accept', async () => {
    const checks = [
      await request('GET', '/api/tickets/', { auth: basic(ADMIN.username, 'wrong') }),
      await request('GET', '/api/tickets/', { auth: 'Basic !!!' }),
      await request('POST', '/api/tickets/', { type: 'text/plain', body: 'x' }),
      await request('POST', '/api/tickets/', { type: 'application/json', body: '{bad' }),
      await request('DELETE', '/api/tickets/'),
    ];
    for (const reply of checks) {
      expect(reply.status).toBe(404);
      expect(reply.text).toBe('{"detail":"Not found."}');
    }
  });
});
