/**
 * A ticket's CC list (upstream's TicketCC) over HTTP: /api/tickets/{id}/cc/ (staff), and the
 * suppression list's routes (superusers). A suppression made by a bounce is in mail-events.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { ADMIN_ID, call, createTicket, createUser, unique } from './client';
import { MAX_CCS_PER_TICKET, TOO_MANY_CCS } from '../../shared/domain/mail-settings';

async function ticketId(): Promise<number> {
  return (await createTicket()).body.id as number;
}

describe("a ticket's CC list", () => {
  it(`holds at most ${MAX_CCS_PER_TICKET} entries: one more is a 400 naming the bound, till one goes`, async () => {
    const ticket = await ticketId();
    const added = [];
    for (let n = 0; n < MAX_CCS_PER_TICKET; n++) {
      const reply = await call('POST', `/api/tickets/${ticket}/cc/`, { json: { email: `cc${n}@example.com` } });
      expect(reply.status, reply.text).toBe(201);
      added.push(reply.body.id as number);
    }
    const user = ADMIN_ID;
    for (const entry of [{ email: 'one-more@example.com' }, { user }]) {
      const refused = await call('POST', `/api/tickets/${ticket}/cc/`, { json: entry });
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ non_field_errors: [TOO_MANY_CCS] });
    }
    expect((await call('GET', `/api/tickets/${ticket}/cc/`)).body.count).toBe(MAX_CCS_PER_TICKET);
    expect((await call('DELETE', `/api/tickets/${ticket}/cc/${added[0]}/`)).status).toBe(204);
    expect((await call('POST', `/api/tickets/${ticket}/cc/`, { json: { user } })).status).toBe(201);
  });

  it('adds addresses and users, lists them in order, removes one; each is on the list once', async () => {
    const ticket = await ticketId();
    const first = await call('POST', `/api/tickets/${ticket}/cc/`, {
      json: { email: 'Boss@Example.com', can_view: true },
    });
    expect(first.status, first.text).toBe(201);
    expect(first.body).toEqual({
      id: expect.any(Number),
      ticket,
      user: null,
      email: 'boss@example.com',
      can_view: true,
      can_update: false,
    });
    const again = await call('POST', `/api/tickets/${ticket}/cc/`, { json: { email: 'boss@example.com' } });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ email: ["This is on the ticket's CC list already."] });
    const second = await call('POST', `/api/tickets/${ticket}/cc/`, {
      body: 'email=two%40example.com',
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(second.status, second.text).toBe(201);
    const list = await call('GET', `/api/tickets/${ticket}/cc/`);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ count: 2, next: null, previous: null });
    expect(list.body.results).toEqual([first.body, second.body]);
    const removed = await call('DELETE', `/api/tickets/${ticket}/cc/${first.body.id}/`);
    expect(removed.status).toBe(204);
    expect((await call('GET', `/api/tickets/${ticket}/cc/`)).body.results).toEqual([second.body]);
    expect((await call('DELETE', `/api/tickets/${ticket}/cc/${first.body.id}/`)).status).toBe(404);
    // The address is free again.
    expect((await call('POST', `/api/tickets/${ticket}/cc/`, { json: { email: 'boss@example.com' } })).status).toBe(
      201,
    );
  });

  it('a user entry names an existing user, once', async () => {
    const ticket = await ticketId();
    const admin = await call('POST', `/api/tickets/${ticket}/cc/`, { json: { user: 1 } });
    expect(admin.status, admin.text).toBe(201);
    expect(admin.body).toMatchObject({ user: 1, email: null });
    expect((await call('POST', `/api/tickets/${ticket}/cc/`, { json: { user: 1 } })).body).toEqual({
      user: ["This is on the ticket's CC list already."],
    });
    const missing = await call('POST', `/api/tickets/${ticket}/cc/`, { json: { user: 99999999 } });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ user: ['Invalid pk "99999999" - object does not exist.'] });
  });

  it('bad bodies are 400s saying what is wrong, and add nothing', async () => {
    const ticket = await ticketId();
    const cases: [unknown, unknown][] = [
      [{}, { non_field_errors: ['Give either an e-mail address or a user, not both.'] }],
      [
        { email: 'a@example.com', user: 1 },
        { non_field_errors: ['Give either an e-mail address or a user, not both.'] },
      ],
      [{ email: 'a@example.com\r\nBcc: b@example.com' }, { email: ['Enter a valid email address.'] }],
      [{ email: 'not an address' }, { email: ['Enter a valid email address.'] }],
      [{ email: `${'x'.repeat(250)}@example.com` }, { email: ['Ensure this field has no more than 254 characters.'] }],
      [{ user: 'one' }, { user: ['Incorrect type. Expected pk value, received str.'] }],
      [{ email: 'a@example.com', can_view: 'maybe' }, { can_view: ['Must be a valid boolean.'] }],
    ];
    for (const [body, errors] of cases) {
      const reply = await call('POST', `/api/tickets/${ticket}/cc/`, { json: body });
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body, JSON.stringify(body)).toEqual(errors);
    }
    expect((await call('GET', `/api/tickets/${ticket}/cc/`)).body.count).toBe(0);
  });

  it('an unknown ticket or entry is 404', async () => {
    expect((await call('GET', '/api/tickets/99999999/cc/')).status).toBe(404);
    expect((await call('POST', '/api/tickets/99999999/cc/', { json: { email: 'a@example.com' } })).status).toBe(404);
    const ticket = await ticketId();
    expect((await call('DELETE', `/api/tickets/${ticket}/cc/99999999/`)).status).toBe(404);
    expect((await call('DELETE', `/api/tickets/${ticket}/cc/abc/`)).status).toBe(404);
  });

  it('staff only: a plain user gets 403, an anonymous caller 401', async () => {
    const ticket = await ticketId();
    const plain = await createUser({ username: unique('plain') });
    await call('POST', `/api/tickets/${ticket}/cc/`, { json: { email: 'kept@example.com' } });
    for (const [method, path] of [
      ['GET', `/api/tickets/${ticket}/cc/`],
      ['POST', `/api/tickets/${ticket}/cc/`],
      ['DELETE', `/api/tickets/${ticket}/cc/1/`],
    ] as const) {
      const body = method === 'POST' ? { json: { email: 'a@example.com' } } : {};
      expect((await call(method, path, { auth: plain.auth, ...body })).status, `${method} ${path}`).toBe(403);
      expect((await call(method, path, { auth: null, ...body })).status, `${method} ${path}`).toBe(401);
    }
    expect(
      (await call('GET', `/api/tickets/${ticket}/cc/`)).body.results.map((cc: { email: string }) => cc.email),
    ).toEqual(['kept@example.com']);
  });
});

describe('the suppression list', () => {
  it('superusers only; an address not on it is 404 to DELETE, in any spelling', async () => {
    const plain = await createUser({ username: unique('plain') });
    expect((await call('GET', '/api/mail/suppressions/', { auth: plain.auth })).status).toBe(403);
    const list = await call('GET', '/api/mail/suppressions/');
    expect(list.status).toBe(200);
    expect(Object.keys(list.body)).toEqual(['count', 'next', 'previous', 'results']);
    expect((await call('DELETE', `/api/mail/suppressions/${unique('nobody')}%40example.com/`)).status).toBe(404);
    expect((await call('DELETE', '/api/mail/suppressions/%E0%A4%A/')).status).toBe(404);
  });
});
