/**
 * Cross-site request forgery (issue 13, hole 1): a browser holding Basic credentials for the API
 * (the docs page asks for them) sends them with any request another site makes it send. Writes that
 * a browser says come from another site are refused with 403 and change nothing, before any password
 * work; same-origin pages (the docs page's "try it out") and clients that are not browsers are not
 * affected; reads stay readable.
 */
import { describe, expect, it } from 'vitest';
import { API, call, createTicket, unique, type Reply } from './client';

const EVIL = { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' };
const refused = (reply: Reply) => {
  expect(reply.status, reply.text).toBe(403);
  expect(reply.body.detail).toMatch(/^Cross-site request refused/);
};

describe('cross-site writes', () => {
  it('a cross-site form, multipart or text/plain POST is refused and creates nothing', async () => {
    const username = unique('csrf');
    const form = new URLSearchParams({
      first_name: 'E',
      last_name: 'Vil',
      username,
      email: `${username}@example.com`,
      password: 'a-long-password-1',
    });
    refused(
      await call('POST', '/api/users/', {
        body: form.toString(),
        contentType: 'application/x-www-form-urlencoded',
        headers: EVIL,
      }),
    );
    const multipart = new FormData();
    for (const [k, v] of Object.entries({
      queue: '1',
      title: unique('forged'),
      description: 'x',
      submitter_email: 'a@example.com',
    }))
      multipart.append(k, v);
    refused(await call('POST', '/api/tickets/', { form: multipart, headers: EVIL }));
    refused(await call('POST', '/api/tokens/', { body: '{}', contentType: 'text/plain', headers: EVIL }));
    // Nothing was made: the same user can still be created by a real client.
    const real = await call('POST', '/api/users/', { json: Object.fromEntries(form) });
    expect(real.status, real.text).toBe(201);
  });

  it(
    'a cross-site DELETE or PATCH is refused and the ticket is unchanged; Origin ' + 'alone from another host too',
    async () => {
      const ticket = (await createTicket()).body;
      refused(await call('DELETE', `/api/tickets/${ticket.id}/`, { headers: EVIL }));
      refused(
        await call('PATCH', `/api/tickets/${ticket.id}/`, {
          json: { status: 4 },
          headers: { origin: 'https://evil.example' },
        }),
      );
      refused(
        await call('PATCH', `/api/tickets/${ticket.id}/`, {
          json: { status: 4 },
          headers: { 'sec-fetch-site': 'same-site' },
        }),
      );
      expect((await call('GET', `/api/tickets/${ticket.id}/`)).body).toEqual(ticket);
    },
  );

  it('is refused before the credentials are checked: no password work for a forged request', async () => {
    const reply = await call('POST', '/api/tickets/', { json: {}, headers: EVIL, auth: 'Basic bm9ib2R5OndoYXRldmVy' });
    refused(reply);
  });

  it('same-origin pages, user-initiated requests and API clients keep working; reads are never refused', async () => {
    const ticket = (await createTicket()).body;
    const sameOrigin = { origin: API, 'sec-fetch-site': 'same-origin' };
    expect(
      (await call('PATCH', `/api/tickets/${ticket.id}/`, { json: { priority: 1 }, headers: sameOrigin })).status,
    ).toBe(200);
    expect(
      (
        await call('PATCH', `/api/tickets/${ticket.id}/`, {
          json: { priority: 2 },
          headers: { 'sec-fetch-site': 'none' },
        })
      ).status,
    ).toBe(200);
    expect(
      (await call('PATCH', `/api/tickets/${ticket.id}/`, { json: { priority: 3 }, headers: { origin: API } })).status,
    ).toBe(200);
    expect((await call('PATCH', `/api/tickets/${ticket.id}/`, { json: { priority: 4 } })).status).toBe(200);
    expect((await call('GET', `/api/tickets/${ticket.id}/`, { headers: EVIL })).status).toBe(200);
  });
});
