/**
 * The users routes beyond creation (issue 34): GET /api/users/ with its filters, GET and PATCH
 * /api/users/{id}/, GET /api/users/me/, on a runtime of its own with `basic,token` so that a
 * deactivation's token revocation shows over HTTP.
 */
import { describe, expect, it } from 'vitest';
import { ADMIN, ADMIN_ID, unique, type Json } from './client';
import { useOwnRuntime } from './own-runtime';

const own = useOwnRuntime({ HELPDESK_AUTHENTICATION_CLASSES: 'basic,token' });

const USER_KEYS = [
  'id',
  'username',
  'first_name',
  'last_name',
  'email',
  'is_active',
  'is_staff',
  'is_superuser',
  'queues',
];

/** A new user through the API, made staff by PATCH when asked; its id and Basic header. */
async function newUser(staff = false, email?: string): Promise<{ id: number; username: string; auth: string }> {
  const user = await own.api.createUser(email ? { email } : {});
  const found = await own.api.call('GET', `/api/users/?email=${encodeURIComponent(user.email)}`);
  const id = (found.body.results as Json[]).find((u) => u.username === user.username).id as number;
  if (staff) expect((await own.api.call('PATCH', `/api/users/${id}/`, { json: { is_staff: true } })).status).toBe(200);
  return { id, username: user.username, auth: user.auth };
}

describe('GET /api/users/', () => {
  it('staff list users in id order, paged, never a password; the filters narrow it', { timeout: 60_000 }, async () => {
    const staff = await newUser(true);
    const plain = await newUser(false, `${unique('Mixed')}@Example.com`);
    const first = await own.api.call('GET', '/api/users/?page_size=1', { auth: staff.auth });
    expect(first.status, first.text).toBe(200);
    expect(first.body.count).toBeGreaterThanOrEqual(3);
    expect(first.body.next).toContain('page=2');
    expect(Object.keys(first.body.results[0])).toEqual(USER_KEYS);
    expect(first.body.results[0]).toMatchObject({
      id: ADMIN_ID,
      username: ADMIN.username,
      is_superuser: true,
      queues: [],
    });
    expect(first.text).not.toContain('password');

    const everyone = (await own.api.call('GET', '/api/users/?page_size=100')).body.results as Json[];
    const ids = everyone.map((u) => u.id as number);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const nonStaff = (await own.api.call('GET', '/api/users/?is_staff=false&page_size=100')).body.results as Json[];
    expect(nonStaff.map((u) => u.id)).toContain(plain.id);
    expect(nonStaff.map((u) => u.id)).not.toContain(staff.id);
    const staffOnly = (await own.api.call('GET', '/api/users/?is_staff=true&page_size=100')).body.results as Json[];
    expect(staffOnly.every((u) => u.is_staff)).toBe(true);
    const byEmail = await own.api.call(
      'GET',
      `/api/users/?email=${encodeURIComponent(everyone.find((u) => u.id === plain.id).email.toUpperCase())}`,
    );
    expect(byEmail.body.results.map((u: Json) => u.id)).toEqual([plain.id]);
    expect((await own.api.call('GET', '/api/users/?is_active=false')).body.results).toEqual([]);

    const bad = await own.api.call('GET', '/api/users/?is_staff=maybe');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ is_staff: ['Must be a valid boolean.'] });
    expect((await own.api.call('GET', '/api/users/', { auth: plain.auth })).status).toBe(403);
  });
});

describe('GET /api/users/{id}/ and /api/users/me/', () => {
  it('one user by id (staff); 404 for no such id; anyone signed in sees themselves', { timeout: 60_000 }, async () => {
    const plain = await newUser();
    const one = await own.api.call('GET', `/api/users/${plain.id}/`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({
      id: plain.id,
      username: plain.username,
      is_staff: false,
      is_active: true,
      queues: [],
    });
    expect((await own.api.call('GET', '/api/users/99999999/')).status).toBe(404);
    expect((await own.api.call('GET', '/api/users/abc/')).status).toBe(404);
    expect((await own.api.call('GET', `/api/users/${plain.id}/`, { auth: plain.auth })).status).toBe(403);

    const me = await own.api.call('GET', '/api/users/me/', { auth: plain.auth });
    expect(me.status).toBe(200);
    expect(me.body).toEqual(one.body);
    expect((await own.api.call('GET', '/api/users/me/', { auth: null })).status).toBe(401);
  });
});

describe('PATCH /api/users/{id}/', () => {
  it(
    'a superuser changes names, e-mail, staff and queues; an unknown queue is 400 and changes nothing',
    { timeout: 60_000 },
    async () => {
      const target = await newUser();
      const slug = unique('q');
      const queue = await own.api.call('POST', '/api/queues/', { json: { title: slug, slug } });
      expect(queue.status).toBe(201);
      const changed = await own.api.call('PATCH', `/api/users/${target.id}/`, {
        json: {
          first_name: 'Ann',
          last_name: '',
          email: 'ann.new@example.com',
          is_staff: true,
          queues: [queue.body.id, queue.body.id],
        },
      });
      expect(changed.status, changed.text).toBe(200);
      expect(changed.body).toMatchObject({
        first_name: 'Ann',
        last_name: '',
        email: 'ann.new@example.com',
        is_staff: true,
        queues: [queue.body.id],
      });
      // Now staff: the staff routes open to them, and they see their queues.
      expect((await own.api.call('GET', '/api/users/me/', { auth: target.auth })).body.queues).toEqual([queue.body.id]);
      expect((await own.api.call('GET', '/api/tickets/?page_size=1', { auth: target.auth })).status).toBe(200);

      const refused = await own.api.call('PATCH', `/api/users/${target.id}/`, {
        json: { first_name: 'Never', queues: [queue.body.id, 99999999] },
      });
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ queues: ['Invalid pk "99999999" - object does not exist.'] });
      const malformed = await own.api.call('PATCH', `/api/users/${target.id}/`, {
        json: { queues: 'x', is_active: 'maybe', email: 'nope' },
      });
      expect(malformed.body).toEqual({
        email: ['Enter a valid email address.'],
        is_active: ['Must be a valid boolean.'],
        queues: ['Expected a list of items but got type "str".'],
      });
      expect((await own.api.call('GET', `/api/users/${target.id}/`)).body.first_name).toBe('Ann');
      expect((await own.api.call('PATCH', '/api/users/99999999/', { json: { is_staff: true } })).status).toBe(404);
    },
  );

  it('staff who are not superusers may not change users (403)', async () => {
    const staff = await newUser(true);
    const reply = await own.api.call('PATCH', `/api/users/${staff.id}/`, {
      auth: staff.auth,
      json: { first_name: 'Me' },
    });
    expect(reply.status).toBe(403);
  });

  it(
    'deactivating refuses the Basic credential at once (even one just verified), revokes the tokens; the tickets stay',
    { timeout: 60_000 },
    async () => {
      const leaver = await newUser(true);
      const token = await own.api.call('POST', '/api/tokens/', { auth: leaver.auth, json: {} });
      expect(token.status).toBe(201);
      const ticket = await own.api.createTicket({ assigned_to: leaver.id });
      // Both credentials work, and the password one is now remembered by this runtime.
      expect((await own.api.call('GET', '/api/users/me/', { auth: leaver.auth })).status).toBe(200);
      expect((await own.api.call('GET', '/api/users/me/', { auth: `Token ${token.body.key}` })).status).toBe(200);

      const off = await own.api.call('PATCH', `/api/users/${leaver.id}/`, { json: { is_active: false } });
      expect(off.status).toBe(200);
      expect(off.body.is_active).toBe(false);
      const basicReply = await own.api.call('GET', '/api/users/me/', { auth: leaver.auth });
      expect(basicReply.status).toBe(401);
      expect(basicReply.body).toEqual({ detail: 'Invalid username/password.' });
      const tokenReply = await own.api.call('GET', '/api/users/me/', { auth: `Token ${token.body.key}` });
      expect(tokenReply.status).toBe(401);
      expect(tokenReply.body).toEqual({ detail: 'Invalid token.' });
      const tokens = (await own.api.call('GET', '/api/tokens/?page_size=100')).body.results as Json[];
      expect(tokens.filter((t) => t.user === leaver.username)).toEqual([]);
      expect((await own.api.call('GET', `/api/tickets/${ticket.body.id}/`)).body.assigned_to).toBe(leaver.id);
      expect((await own.api.call('GET', '/api/users/?is_active=false')).body.results.map((u: Json) => u.id)).toEqual([
        leaver.id,
      ]);

      // Active again: the password works again; the revoked token stays revoked.
      expect((await own.api.call('PATCH', `/api/users/${leaver.id}/`, { json: { is_active: true } })).status).toBe(200);
      expect((await own.api.call('GET', '/api/users/me/', { auth: leaver.auth })).status).toBe(200);
      expect((await own.api.call('GET', '/api/users/me/', { auth: `Token ${token.body.key}` })).status).toBe(401);
    },
  );
});
