/**
 * Authentication, permission and the order of checks (docs/upstream.md: authentication and the order of checks; where
 * we differ, l).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_AUTH, basic, call, createTicket, createUser, form, type Reply } from './client';

const NOT_PROVIDED = 'Authentication credentials were not provided.';
const INVALID = 'Invalid username/password.';
const FORBIDDEN = { detail: 'You do not have permission to perform this action.' };
const TICKETS_ALLOW = 'GET, POST, HEAD, OPTIONS';

function expect401(reply: Reply, detail: string): void {
  expect(reply.status).toBe(401);
  expect(reply.body).toEqual({ detail });
  expect(reply.headers.get('www-authenticate')).toBe('Basic realm="api"');
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

let plain: { username: string; auth: string };

beforeAll(async () => {
  plain = await createUser();
});

describe('401 for unauthenticated requests', () => {
  it('a request without Authorization gets 401 "not provided" with WWW-Authenticate', async () => {
    expect401(await call('GET', '/api/tickets/', { auth: null }), NOT_PROVIDED);
  });

  it('an empty Authorization header counts as no credentials', async () => {
    expect401(await call('GET', '/api/tickets/', { auth: '' }), NOT_PROVIDED);
  });

  it('a scheme other than Basic counts as no credentials', async () => {
    expect401(await call('GET', '/api/tickets/', { auth: 'Bearer abc.def.ghi' }), NOT_PROVIDED);
    expect401(await call('GET', '/api/tickets/', { auth: `Digest ${b64('admin:admin')}` }), NOT_PROVIDED);
  });

  it('a wrong password gets 401 "Invalid username/password."', async () => {
    expect401(await call('GET', '/api/tickets/', { auth: basic('admin', 'wrong-password') }), INVALID);
  });

  it('an unknown username gets 401 "Invalid username/password."', async () => {
    expect401(await call('GET', '/api/tickets/', { auth: basic('nobody-here-at-all', 'whatever') }), INVALID);
  });

  it('"Basic" with nothing after it gets "No credentials provided"', async () => {
    expect401(await call('GET', '/api/tickets/', { auth: 'Basic' }), 'Invalid basic header. No credentials provided.');
  });

  it('"Basic" followed by two tokens gets "should not contain spaces"', async () => {
    expect401(
      await call('GET', '/api/tickets/', { auth: `Basic ${b64('admin:x')} extra` }),
      'Invalid basic header. Credentials string should not contain spaces.',
    );
  });

  it('a credential that is not base64 gets "not correctly base64 encoded"', async () => {
    expect401(
      await call('GET', '/api/tickets/', { auth: 'Basic !!!not-base64!!!' }),
      'Invalid basic header. Credentials not correctly base64 encoded.',
    );
  });

  it('a decoded credential without a colon gets "not correctly base64 encoded"', async () => {
    expect401(
      await call('GET', '/api/tickets/', { auth: `Basic ${b64('adminadmin')}` }),
      'Invalid basic header. Credentials not correctly base64 encoded.',
    );
  });

  it('credentials containing NUL characters get "Invalid username/password."', async () => {
    expect401(await call('GET', '/api/tickets/', { auth: `Basic ${b64('ad\0min:x')}` }), INVALID);
    expect401(await call('GET', '/api/tickets/', { auth: `Basic ${b64('admin:pass\0word')}` }), INVALID);
  });

  it('the scheme name is case-insensitive', async () => {
    const reply = await call('GET', '/api/tickets/?page_size=1', { auth: ADMIN_AUTH.replace('Basic', 'basic') });
    expect(reply.status).toBe(200);
  });

  it('the credential is split at the first colon, so a password may contain colons', async () => {
    const user = await createUser({ password: 'pa:ss:word' });
    const reply = await call('GET', '/api/tickets/', { auth: basic(user.username, 'pa:ss:word') });
    expect(reply.status).toBe(403); // authenticated, not staff
    expect401(await call('GET', '/api/tickets/', { auth: basic(user.username, 'pa') }), INVALID);
  });

  it('every 401 carries the route Allow header', async () => {
    const reply = await call('GET', '/api/tickets/', { auth: null });
    expect(reply.headers.get('allow')).toBe(TICKETS_ALLOW);
  });

  it('every staff operation refuses anonymous callers', async () => {
    const ticket = (await createTicket()).body;
    const requests = staffRequests(ticket.id);
    for (const [method, path] of requests) {
      expect401(await call(method, path, { auth: null, ...(method === 'GET' ? {} : { json: {} }) }), NOT_PROVIDED);
    }
    expect((await call('GET', `/api/tickets/${ticket.id}/`)).status).toBe(200);
  });
});

/** The spec's staff operations, on one existing ticket. */
function staffRequests(ticket: number): [string, string][] {
  return [
    ['GET', '/api/tickets/'],
    ['POST', '/api/tickets/'],
    ['GET', `/api/tickets/${ticket}/`],
    ['PUT', `/api/tickets/${ticket}/`],
    ['PATCH', `/api/tickets/${ticket}/`],
    ['DELETE', `/api/tickets/${ticket}/`],
    ['POST', '/api/followups/'],
    ['POST', '/api/users/'],
  ];
}

describe('403 for authenticated users who are not staff', () => {
  it('a non-staff user gets 403 on every staff operation, without WWW-Authenticate', async () => {
    const ticket = (await createTicket()).body;
    const requests = staffRequests(ticket.id);
    for (const [method, path] of requests) {
      const reply = await call(method, path, { auth: plain.auth, ...(method === 'GET' ? {} : { json: {} }) });
      expect(reply.status, `${method} ${path}`).toBe(403);
      expect(reply.body).toEqual(FORBIDDEN);
      expect(reply.headers.get('www-authenticate')).toBeNull();
    }
    // Nothing happened to the ticket.
    expect((await call('GET', `/api/tickets/${ticket.id}/`)).body).toEqual(ticket);
  });

  it('a 403 carries the route Allow header', async () => {
    const reply = await call('POST', '/api/tickets/', { auth: plain.auth, json: {} });
    expect(reply.headers.get('allow')).toBe(TICKETS_ALLOW);
  });
});

describe('order of checks', () => {
  it('an unauthenticated DELETE /api/tickets/ gets 401, not 405', async () => {
    expect401(await call('DELETE', '/api/tickets/', { auth: null }), NOT_PROVIDED);
  });

  it('GET /api/users/ gives 403 to a non-staff user and a page of users to staff (upstream: 405)', async () => {
    const asPlain = await call('GET', '/api/users/', { auth: plain.auth });
    expect(asPlain.status).toBe(403);
    expect(asPlain.body).toEqual(FORBIDDEN);
    const asStaff = await call('GET', '/api/users/');
    expect(asStaff.status).toBe(200);
    expect(asStaff.body.results.map((u: { username: string }) => u.username)).toContain('admin');
  });

  it('a non-staff request for a missing ticket gets 403, not 404', async () => {
    const reply = await call('GET', '/api/tickets/999999999/', { auth: plain.auth });
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual(FORBIDDEN);
  });

  it('a non-staff request with an unparseable body gets 403, not 400 or 415', async () => {
    const bad = await call('POST', '/api/tickets/', {
      auth: plain.auth,
      body: '{nope',
      contentType: 'application/json',
    });
    expect(bad.status).toBe(403);
    const unsupported = await call('POST', '/api/tickets/', { auth: plain.auth, body: 'x', contentType: 'text/plain' });
    expect(unsupported.status).toBe(403);
  });

  it('an unauthenticated request with an invalid body gets 401', async () => {
    const reply = await call('POST', '/api/tickets/', { auth: null, form: form({ queue: 'abc' }) });
    expect401(reply, NOT_PROVIDED);
  });

  it('an unknown /api path gets 404 before authentication', async () => {
    const reply = await call('GET', '/api/does-not-exist/', { auth: null });
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ detail: 'Not found.' });
    expect(reply.headers.get('www-authenticate')).toBeNull();
  });

  it('an Accept header JSON cannot satisfy gets 406 before authentication', async () => {
    const reply = await call('GET', '/api/tickets/', { auth: null, headers: { accept: 'application/xml' } });
    expect(reply.status).toBe(406);
    expect(reply.body).toEqual({ detail: 'Could not satisfy the request Accept header.' });
  });

  it('Accept headers that allow JSON are served', async () => {
    for (const accept of [
      'application/json',
      '*/*',
      'application/*',
      'application/json; indent=4',
      'text/html,application/xhtml+xml,*/*;q=0.8',
    ]) {
      const reply = await call('GET', '/api/tickets/?page_size=1', { headers: { accept } });
      expect(reply.status, accept).toBe(200);
    }
  });
});
