/**
 * /api/user_tickets/ and /{id}/: the caller's own tickets in upstream's compact shape (docs/upstream.md: routes and
 * permissions; upstream's cases 13 and 15).
 */
import { describe, expect, it } from 'vitest';
import { API, call, createTicket, createUser, unique, type Json } from './client';

const KEYS = ['ticket', 'id', 'title', 'queue', 'status', 'created', 'due_date', 'submitter', 'kbitem', 'secret_key'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const NBSP = '\u00a0';
const JUST_NOW = new RegExp(`^(now|a second ago|\\d+${NBSP}seconds ago)$`);

async function mine(auth: string, query = ''): Promise<Json> {
  const reply = await call('GET', `/api/user_tickets/${query}`, { auth });
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe('GET /api/user_tickets/', () => {
  it('case 13: a user sees only the tickets submitted with their e-mail, newest first', async () => {
    const foo = `${unique('foo')}@example.com`;
    const bar = `${unique('bar')}@example.com`;
    const test2 = await createUser({ email: foo });
    const t1 = (await createTicket({ title: 'Test 1', submitter_email: foo })).body;
    await createTicket({ title: 'Test 2', submitter_email: bar });
    const t3 = (await createTicket({ title: 'Test 3', submitter_email: foo })).body;
    const body = await mine(test2.auth);
    expect(body.count).toBe(2);
    expect(body.next).toBeNull();
    expect(body.previous).toBeNull();
    expect(body.results.map((t: Json) => [t.id, t.title])).toEqual([
      [t3.id, 'Test 3'],
      [t1.id, 'Test 1'],
    ]);
  });

  it('case 15: without credentials gives 401 with WWW-Authenticate', async () => {
    const reply = await call('GET', '/api/user_tickets/', { auth: null });
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ detail: 'Authentication credentials were not provided.' });
    expect(reply.headers.get('www-authenticate')).toBe('Basic realm="api"');
    expect(reply.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });

  it("answers upstream's compact shape, keys in order", async () => {
    const user = await createUser();
    const ticket = (await createTicket({ title: 'Compact', submitter_email: user.email })).body;
    const entry = (await mine(user.auth)).results[0];
    expect(Object.keys(entry)).toEqual(KEYS);
    expect(entry).toEqual({
      ticket: `${ticket.id} [support-${ticket.id}]`,
      id: ticket.id,
      title: 'Compact',
      queue: { title: 'Support', id: 1 },
      status: 'Open',
      created: entry.created,
      due_date: null,
      submitter: user.email,
      kbitem: '',
      secret_key: entry.secret_key,
    });
    expect(entry.created).toMatch(JUST_NOW);
    expect(entry.secret_key).toMatch(UUID);
  });

  it('each ticket has its own secret_key, which never changes', async () => {
    const user = await createUser();
    await createTicket({ submitter_email: user.email });
    await createTicket({ submitter_email: user.email });
    const [a, b] = (await mine(user.auth)).results;
    expect(a.secret_key).not.toBe(b.secret_key);
    await call('PATCH', `/api/tickets/${a.id}/`, { json: { title: 'renamed' } });
    expect((await mine(user.auth)).results[0]).toMatchObject({ id: a.id, title: 'renamed', secret_key: a.secret_key });
  });

  it('status is the state\'s label, with " - On Hold" when on hold', async () => {
    const user = await createUser();
    const ticket = (await createTicket({ submitter_email: user.email })).body;
    for (const [changes, label] of [
      [{ on_hold: true }, 'Open - On Hold'],
      [{ status: 2, on_hold: false }, 'Reopened'],
      [{ status: 3, on_hold: true }, 'Resolved - On Hold'],
      [{ status: 4, on_hold: false }, 'Closed'],
      [{ status: 5 }, 'Duplicate'],
    ] as const) {
      expect((await call('PATCH', `/api/tickets/${ticket.id}/`, { json: changes })).status).toBe(200);
      expect((await mine(user.auth)).results[0].status, JSON.stringify(changes)).toBe(label);
    }
  });

  it('due_date is relative to now, with a non-breaking space between number and unit', async () => {
    const user = await createUser();
    const cases: [number, string][] = [
      [3 * DAY + 30 * MINUTE, `3${NBSP}days from now`],
      [10 * DAY + HOUR + 30 * MINUTE, `1${NBSP}week, 3${NBSP}days from now`],
      [2 * HOUR + 30 * MINUTE, `2${NBSP}hours from now`],
      [-(2 * DAY + 5 * HOUR + 10 * MINUTE), `2${NBSP}days, 5${NBSP}hours ago`],
      [-(90 * MINUTE), 'an hour ago'],
      [-(5 * MINUTE + 30_000), `5${NBSP}minutes ago`],
    ];
    const ids: number[] = [];
    for (const [offset] of cases)
      ids.push((await createTicket({ submitter_email: user.email, due_date: inMs(offset) })).body.id);
    const reply = await call('GET', '/api/user_tickets/', { auth: user.auth });
    expect(reply.text).toContain('\u00a0'); // raw UTF-8, not \u escapes
    expect(reply.text).not.toContain('\\u00a0');
    const byId = new Map(reply.body.results.map((t: Json) => [t.id, t.due_date]));
    cases.forEach(([, expected], i) => expect(byId.get(ids[i]!), expected).toBe(expected));
  });

  it('is paginated: page_size, links and page=last', async () => {
    const user = await createUser();
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await createTicket({ submitter_email: user.email })).body.id);
    const first = await mine(user.auth, '?page_size=2');
    expect(first.count).toBe(3);
    expect(first.results.map((t: Json) => t.id)).toEqual([ids[2], ids[1]]);
    expect(first.next).toBe(`${API}/api/user_tickets/?page=2&page_size=2`);
    const last = await mine(user.auth, '?page_size=2&page=last');
    expect(last.results.map((t: Json) => t.id)).toEqual([ids[0]]);
    expect(last.previous).toBe(`${API}/api/user_tickets/?page_size=2`);
    const beyond = await call('GET', '/api/user_tickets/?page=3&page_size=2', { auth: user.auth });
    expect(beyond.status).toBe(404);
    expect(beyond.body).toEqual({ detail: 'Invalid page.' });
  });

  it('a user without tickets gets the empty page', async () => {
    const user = await createUser();
    expect(await mine(user.auth)).toEqual({ count: 0, next: null, previous: null, results: [] });
  });

  it('matches the e-mail without regard to case (one rule for addresses), the address kept as given', async () => {
    const name = unique('case');
    const user = await createUser({ email: `${name}@example.com` });
    await createTicket({ submitter_email: `${name.toUpperCase()}@example.com` });
    const listed = await mine(user.auth);
    expect(listed.count).toBe(1);
    expect(listed.results[0].submitter).toBe(`${name.toUpperCase()}@example.com`);
  });

  it('follows submitter changes and deletes', async () => {
    const user = await createUser();
    const other = `${unique('other')}@example.com`;
    const ticket = (await createTicket({ submitter_email: other })).body;
    expect((await mine(user.auth)).count).toBe(0);
    await call('PATCH', `/api/tickets/${ticket.id}/`, { json: { submitter_email: user.email } });
    expect((await mine(user.auth)).results.map((t: Json) => t.id)).toEqual([ticket.id]);
    await call('PATCH', `/api/tickets/${ticket.id}/`, { json: { submitter_email: other } });
    expect((await mine(user.auth)).count).toBe(0);
    await call('PATCH', `/api/tickets/${ticket.id}/`, { json: { submitter_email: user.email } });
    expect((await call('DELETE', `/api/tickets/${ticket.id}/`)).status).toBe(204);
    expect((await mine(user.auth)).count).toBe(0);
  });

  it('staff see only their own tickets too: the admin (no e-mail) sees none of these', async () => {
    const user = await createUser();
    const ticket = (await createTicket({ submitter_email: user.email })).body;
    const admin = await call('GET', '/api/user_tickets/?page_size=100');
    expect(admin.status).toBe(200);
    expect(admin.body.results.map((t: Json) => t.id)).not.toContain(ticket.id);
    expect((await call('GET', `/api/user_tickets/${ticket.id}/`)).status).toBe(404);
  });

  it('answers GET, HEAD and OPTIONS only: POST gives 405', async () => {
    const user = await createUser();
    const reply = await call('POST', '/api/user_tickets/', { auth: user.auth, json: {} });
    expect(reply.status).toBe(405);
    expect(reply.body).toEqual({ detail: 'Method "POST" not allowed.' });
    expect(reply.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });
});

describe('GET /api/user_tickets/{id}/', () => {
  it("answers the same object as the list for one of the caller's tickets", async () => {
    const user = await createUser();
    const ticket = (await createTicket({ submitter_email: user.email, due_date: inMs(3 * DAY + 30 * MINUTE) })).body;
    const entry = (await mine(user.auth)).results[0];
    const reply = await call('GET', `/api/user_tickets/${ticket.id}`, { auth: user.auth });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(Object.keys(reply.body)).toEqual(KEYS);
    expect({ ...reply.body, created: entry.created }).toEqual(entry);
  });

  it("another user's ticket, an unknown id and a non-integer id give 404", async () => {
    const user = await createUser();
    const someone = await createUser();
    const theirs = (await createTicket({ submitter_email: someone.email })).body;
    for (const path of [`/api/user_tickets/${theirs.id}/`, '/api/user_tickets/99999999/', '/api/user_tickets/abc/']) {
      const reply = await call('GET', path, { auth: user.auth });
      expect(reply.status, path).toBe(404);
      expect(reply.body).toEqual({ detail: 'Not found.' });
    }
    expect((await call('GET', `/api/user_tickets/${theirs.id}/`, { auth: someone.auth })).status).toBe(200);
  });

  it('PUT, PATCH and DELETE give 405', async () => {
    const user = await createUser();
    const ticket = (await createTicket({ submitter_email: user.email })).body;
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      const reply = await call(method, `/api/user_tickets/${ticket.id}/`, { auth: user.auth, json: {} });
      expect(reply.status, method).toBe(405);
      expect(reply.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    }
    expect((await call('GET', `/api/tickets/${ticket.id}/`)).status).toBe(200);
  });
});
