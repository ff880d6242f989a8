/**
 * Behind the optional edge (infra/edge.ts), the functions answer only requests that carry
 * CloudFront's secret header (shared/middleware/origin.ts), before any other check, and their links
 * name the edge's address. Here on a runtime of its own given the secret as the stack gives it to
 * the functions (HELPDESK_ORIGIN_SECRET locally; from Secrets Manager on AWS).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_AUTH, clientFor } from './client';
import { startInProcessRuntime, type InProcessRuntime } from './in-process-runtime';

const SECRET = 'edge-secret-for-this-test-0123456789abcdef';
const EDGE_URL = 'https://api.helpdesk.example.com';
let runtime: InProcessRuntime;
let api: ReturnType<typeof clientFor>;

beforeAll(async () => {
  runtime = await startInProcessRuntime({ HELPDESK_ORIGIN_SECRET: SECRET, HELPDESK_PUBLIC_URL: EDGE_URL });
  api = clientFor(runtime.url);
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
});

const through = { 'X-Origin-Verify': SECRET };

describe('a request that went around the edge', () => {
  it(
    'is refused with 403 and a clear detail, before authentication (no challenge) ' + 'and before the body is read',
    async () => {
      for (const [method, path, auth] of [
        ['GET', '/api/tickets/', ADMIN_AUTH],
        ['GET', '/api/tickets/', null],
        ['POST', '/api/tickets/', ADMIN_AUTH],
      ] as const) {
        const reply = await api.call(method, path, { auth, ...(method === 'POST' ? { json: { title: 'x' } } : {}) });
        expect(reply.status, `${method} ${path}`).toBe(403);
        expect(reply.body).toEqual({ detail: "Requests must come through the API's edge address." });
        expect(reply.headers.get('www-authenticate')).toBeNull();
      }
    },
  );

  it('with a wrong or empty secret is refused the same way', async () => {
    for (const value of ['', 'edge-secret-for-this-test-0123456789abcdeF', `${SECRET}x`]) {
      const reply = await api.call('GET', '/api/', { headers: { 'X-Origin-Verify': value } });
      expect(reply.status, value).toBe(403);
    }
  });
});

describe('a request through the edge', () => {
  it('is served as usual, and its links name the edge', async () => {
    const created = await api.call('POST', '/api/tickets/', {
      headers: through,
      json: { queue: 1, title: 'Through the edge', description: 'd', submitter_email: 'edge@example.com' },
    });
    expect(created.status, created.text).toBe(201);
    const list = await api.call('GET', '/api/tickets/?page_size=1', { headers: through });
    expect(list.status).toBe(200);
    expect((await api.call('GET', '/api/', { headers: through })).body).toMatchObject({
      tickets: `${EDGE_URL}/api/tickets/`,
    });
    expect((await api.call('GET', '/api/tickets/', { headers: through, auth: null })).status).toBe(401);
  });

  it(
    "takes the edge's address as this API's own for cross-site checks (the Host " + "it sees is CloudFront's origin)",
    async () => {
      const ticket = { queue: 1, title: 'From the edge page', description: 'd', submitter_email: 'edge@example.com' };
      const same = await api.call('POST', '/api/tickets/', { headers: { ...through, Origin: EDGE_URL }, json: ticket });
      expect(same.status, same.text).toBe(201);
      const other = await api.call('POST', '/api/tickets/', {
        headers: { ...through, Origin: 'https://evil.example' },
        json: ticket,
      });
      expect(other.status).toBe(403);
    },
  );
});
