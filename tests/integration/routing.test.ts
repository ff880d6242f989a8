/** Paths, methods and the `Allow` header (docs/upstream.md: routes and permissions; where we differ, d and k). */
import { describe, expect, it } from 'vitest';
import { ADMIN_AUTH, API, VALID_TICKET, call, createTicket, createUser, unique } from './client';

const LIST_ALLOW = 'GET, POST, HEAD, OPTIONS';
const DETAIL_ALLOW = 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS';
const USERS_ALLOW = 'GET, POST, HEAD, OPTIONS';
const NOT_FOUND = { detail: 'Not found.' };

describe('trailing slash optional', () => {
  it('the ticket list answers with and without the trailing slash, without redirect', async () => {
    for (const path of ['/api/tickets', '/api/tickets/']) {
      const reply = await call('GET', `${path}?page_size=1`);
      expect(reply.status, path).toBe(200);
      expect(reply.headers.get('location')).toBeNull();
      expect(Object.keys(reply.body)).toEqual(['count', 'next', 'previous', 'results']);
    }
  });

  it('a ticket answers GET, PUT, PATCH and DELETE without the trailing slash', async () => {
    const ticket = (await createTicket()).body;
    const path = `/api/tickets/${ticket.id}`;
    expect((await call('GET', path)).body).toEqual(ticket);
    const put = await call('PUT', path, { json: { ...VALID_TICKET, title: 'put without slash' } });
    expect(put.status).toBe(200);
    expect(put.body.title).toBe('put without slash');
    const patch = await call('PATCH', path, { json: { priority: 1 } });
    expect(patch.status).toBe(200);
    expect(patch.body.priority).toBe(1);
    expect((await call('DELETE', path)).status).toBe(204);
    expect((await call('GET', `${path}/`)).status).toBe(404);
  });

  it('creation answers without the trailing slash', async () => {
    const ticket = await call('POST', '/api/tickets', { json: VALID_TICKET });
    expect(ticket.status).toBe(201);
    const followup = await call('POST', '/api/followups', {
      json: { ticket: ticket.body.id, title: 't', comment: 'c' },
    });
    expect(followup.status).toBe(201);
    const username = unique('slashless');
    const user = await call('POST', '/api/users', {
      json: { first_name: 'A', last_name: 'B', username, email: `${username}@example.com`, password: 'pw-123456' },
    });
    expect(user.status).toBe(201);
  });
});

describe('unknown paths', () => {
  it('unknown /api paths answer 404 {"detail":"Not found."} with and without credentials', async () => {
    for (const path of [
      '/api/nope',
      '/api/nope/',
      '/api/tickets/1/nope/',
      '/api/tickets/1/attachments/',
      '/api/ticket/',
    ]) {
      for (const auth of [null, undefined]) {
        const reply = await call('GET', path, { auth });
        expect(reply.status, path).toBe(404);
        expect(reply.body).toEqual(NOT_FOUND);
        expect(reply.headers.get('content-type')).toBe('application/json');
      }
    }
  });

  it('a non-integer or unknown ticket id answers 404 "Not found." with the route Allow header', async () => {
    for (const id of ['abc', '1.5', '-1', '999999999', '0']) {
      const reply = await call('GET', `/api/tickets/${id}/`);
      expect(reply.status, id).toBe(404);
      expect(reply.body).toEqual(NOT_FOUND);
      expect(reply.headers.get('allow')).toBe(DETAIL_ALLOW);
    }
  });

  it('PUT, PATCH and DELETE of an unknown ticket answer 404', async () => {
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      const reply = await call(method, '/api/tickets/999999999/', { json: VALID_TICKET });
      expect(reply.status, method).toBe(404);
      expect(reply.body).toEqual(NOT_FOUND);
    }
  });
});

describe('405 with Allow after authentication and permission', () => {
  it('POST /api/tickets/{id}/ gives 405 with the detail Allow header', async () => {
    const ticket = (await createTicket()).body;
    const reply = await call('POST', `/api/tickets/${ticket.id}/`, { json: VALID_TICKET });
    expect(reply.status).toBe(405);
    expect(reply.body).toEqual({ detail: 'Method "POST" not allowed.' });
    expect(reply.headers.get('allow')).toBe(DETAIL_ALLOW);
  });

  it('the method check comes before the object lookup: POST to a missing ticket gives 405', async () => {
    const reply = await call('POST', '/api/tickets/999999999/', { json: VALID_TICKET });
    expect(reply.status).toBe(405);
    expect(reply.body).toEqual({ detail: 'Method "POST" not allowed.' });
  });

  it('DELETE and PUT /api/tickets/ give 405 with the list Allow header', async () => {
    for (const method of ['DELETE', 'PUT', 'PATCH']) {
      const reply = await call(method, '/api/tickets/');
      expect(reply.status, method).toBe(405);
      expect(reply.body).toEqual({ detail: `Method "${method}" not allowed.` });
      expect(reply.headers.get('allow')).toBe(LIST_ALLOW);
    }
  });

  it(
    'PUT, PATCH and DELETE /api/users/ give 405 with its Allow (GET lists users ' + 'here: upstream answers 405)',
    async () => {
      for (const method of ['PUT', 'PATCH', 'DELETE']) {
        const reply = await call(method, '/api/users/');
        expect(reply.status, method).toBe(405);
        expect(reply.body).toEqual({ detail: `Method "${method}" not allowed.` });
        expect(reply.headers.get('allow')).toBe(USERS_ALLOW);
      }
    },
  );

  it('/api/users/{id}/ answers a user (not in upstream), and 404 for an id no user has', async () => {
    expect((await call('GET', '/api/users/1/')).status).toBe(200);
    const reply = await call('GET', '/api/users/999999999/');
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual(NOT_FOUND);
  });

  it('a 405 needs staff first: a non-staff user gets 403 on DELETE /api/tickets/', async () => {
    const user = await createUser();
    const reply = await call('DELETE', '/api/tickets/', { auth: user.auth });
    expect(reply.status).toBe(403);
  });
});

describe('Allow and HEAD', () => {
  it('successful responses carry their path Allow header', async () => {
    const ticket = (await createTicket()).body;
    expect((await call('GET', '/api/tickets/?page_size=1')).headers.get('allow')).toBe(LIST_ALLOW);
    expect((await call('GET', `/api/tickets/${ticket.id}/`)).headers.get('allow')).toBe(DETAIL_ALLOW);
    expect((await call('PATCH', `/api/tickets/${ticket.id}/`, { json: {} })).headers.get('allow')).toBe(DETAIL_ALLOW);
    const user = await call('POST', '/api/users/', { json: {} });
    expect(user.status).toBe(400);
    expect(user.headers.get('allow')).toBe(USERS_ALLOW);
  });

  it('HEAD is GET without a body', async () => {
    const ticket = (await createTicket()).body;
    const res = await fetch(`${API}/api/tickets/${ticket.id}/`, {
      method: 'HEAD',
      headers: { authorization: ADMIN_AUTH },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('allow')).toBe(DETAIL_ALLOW);
    expect(await res.text()).toBe('');
  });
});
