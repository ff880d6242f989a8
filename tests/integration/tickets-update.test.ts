/** GET, PUT and PATCH /api/tickets/{id}/ (docs/upstream.md: decided points, PUT; request bodies, form rules). */
import { describe, expect, it } from 'vitest';
import { ADMIN_ID, TICKET_KEYS, VALID_TICKET, call, createTicket, form } from './client';

const REQUIRED = ['This field is required.'];

describe('GET /api/tickets/{id}/', () => {
  it('answers 200 with the full ticket', async () => {
    const created = (await createTicket()).body;
    const reply = await call('GET', `/api/tickets/${created.id}/`);
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body)).toEqual(TICKET_KEYS);
    expect(reply.body).toEqual(created);
  });

  it('an unknown id gives 404 {"detail":"Not found."}', async () => {
    const reply = await call('GET', '/api/tickets/987654321/');
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ detail: 'Not found.' });
  });
});

describe('PUT /api/tickets/{id}/', () => {
  it("writes exactly the values sent (upstream's observed example), followups unchanged", async () => {
    const ticket = (await createTicket()).body;
    const body = {
      queue: 1,
      title: 'Test Ticket API (put)',
      description: 'updated via PUT',
      resolution: '',
      submitter_email: 'test@mail.com',
      assigned_to: ADMIN_ID,
      status: 2,
      on_hold: false,
      priority: 3,
      due_date: null,
      merged_to: null,
    };
    const reply = await call('PUT', `/api/tickets/${ticket.id}/`, { json: body });
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body)).toEqual(TICKET_KEYS);
    expect(reply.body).toEqual({ id: ticket.id, ...body, followup_set: ticket.followup_set });
    expect((await call('GET', `/api/tickets/${ticket.id}/`)).body).toEqual(reply.body);
  });

  it('requires queue, title, description and submitter_email, in field order', async () => {
    const ticket = (await createTicket()).body;
    const reply = await call('PUT', `/api/tickets/${ticket.id}/`, { json: { title: 'only title' } });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ queue: REQUIRED, description: REQUIRED, submitter_email: REQUIRED });
    expect(Object.keys(reply.body)).toEqual(['queue', 'description', 'submitter_email']);
    expect((await call('GET', `/api/tickets/${ticket.id}/`)).body).toEqual(ticket);
  });

  it('{} lists the four required fields', async () => {
    const ticket = (await createTicket()).body;
    const reply = await call('PUT', `/api/tickets/${ticket.id}/`, { json: {} });
    expect(reply.status).toBe(400);
    expect(Object.keys(reply.body)).toEqual(['queue', 'title', 'description', 'submitter_email']);
  });

  it('in a JSON body, omitted optional fields stay unchanged', async () => {
    const ticket = (await createTicket({ priority: 1, due_date: '2030-01-02T03:04:05Z', assigned_to: ADMIN_ID })).body;
    await call('PATCH', `/api/tickets/${ticket.id}/`, { json: { on_hold: true, resolution: 'kept', status: 3 } });
    const reply = await call('PUT', `/api/tickets/${ticket.id}/`, {
      json: { queue: 1, title: 'new title', description: 'new description', submitter_email: 'new@example.com' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      title: 'new title',
      description: 'new description',
      submitter_email: 'new@example.com',
      priority: 1,
      due_date: '2030-01-02T03:04:05Z',
      assigned_to: ADMIN_ID,
      on_hold: true,
      resolution: 'kept',
      status: 3,
    });
  });

  it('a multipart PUT without on_hold sets it to false', async () => {
    const ticket = (await createTicket()).body;
    const patched = await call('PATCH', `/api/tickets/${ticket.id}/`, { json: { on_hold: true } });
    expect(patched.body.on_hold).toBe(true);
    const reply = await call('PUT', `/api/tickets/${ticket.id}/`, {
      form: form({ ...VALID_TICKET, title: 'multipart put' }),
    });
    expect(reply.status).toBe(200);
    expect(reply.body.on_hold).toBe(false);
    expect(reply.body.title).toBe('multipart put');
  });

  it('a multipart PUT with on_hold True keeps it true', async () => {
    const ticket = (await createTicket()).body;
    const reply = await call('PUT', `/api/tickets/${ticket.id}/`, { form: form({ ...VALID_TICKET, on_hold: 'True' }) });
    expect(reply.status).toBe(200);
    expect(reply.body.on_hold).toBe(true);
  });

  it('may set status, resolution, on_hold and merged_to, which creation ignores', async () => {
    const target = (await createTicket()).body;
    const ticket = (await createTicket()).body;
    const reply = await call('PUT', `/api/tickets/${ticket.id}/`, {
      json: { ...VALID_TICKET, status: 4, resolution: 'done', on_hold: true, merged_to: target.id },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ status: 4, resolution: 'done', on_hold: true, merged_to: target.id });
  });

  it('validates like creation', async () => {
    const ticket = (await createTicket()).body;
    const reply = await call('PUT', `/api/tickets/${ticket.id}/`, {
      json: { ...VALID_TICKET, queue: 999, submitter_email: 'nope', priority: 7, merged_to: 999999999 },
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      queue: ['Invalid pk "999" - object does not exist.'],
      submitter_email: ['Enter a valid email address.'],
      priority: ['"7" is not a valid choice.'],
      merged_to: ['Invalid pk "999999999" - object does not exist.'],
    });
    expect((await call('GET', `/api/tickets/${ticket.id}/`)).body).toEqual(ticket);
  });

  it('an unknown id gives 404', async () => {
    const reply = await call('PUT', '/api/tickets/987654321/', { json: VALID_TICKET });
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ detail: 'Not found.' });
  });
});

describe('PATCH /api/tickets/{id}/', () => {
  it("changes only what was sent (upstream's observed example)", async () => {
    const ticket = (await createTicket()).body;
    const reply = await call('PATCH', `/api/tickets/${ticket.id}/`, { json: { priority: 1, on_hold: true } });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ ...ticket, priority: 1, on_hold: true });
  });

  it('requires nothing: {} answers the unchanged ticket', async () => {
    const ticket = (await createTicket()).body;
    const reply = await call('PATCH', `/api/tickets/${ticket.id}/`, { json: {} });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(ticket);
  });

  it('changes the description', async () => {
    const ticket = (await createTicket()).body;
    const reply = await call('PATCH', `/api/tickets/${ticket.id}/`, { json: { description: 'New description' } });
    expect(reply.body.description).toBe('New description');
    // The opening followup keeps the original comment: no side effects.
    expect(reply.body.followup_set).toEqual(ticket.followup_set);
  });

  it('sets any status in any order, with no workflow check', async () => {
    const ticket = (await createTicket()).body;
    for (const status of [4, 2, 5, 3, 1, '4']) {
      const reply = await call('PATCH', `/api/tickets/${ticket.id}/`, { json: { status } });
      expect(reply.status).toBe(200);
      expect(reply.body.status).toBe(Number(status));
    }
  });

  it('may merge a ticket into itself', async () => {
    const ticket = (await createTicket()).body;
    const reply = await call('PATCH', `/api/tickets/${ticket.id}/`, { json: { merged_to: ticket.id } });
    expect(reply.status).toBe(200);
    expect(reply.body.merged_to).toBe(ticket.id);
  });

  it('sets and clears due_date, assigned_to and merged_to', async () => {
    const target = (await createTicket()).body;
    const ticket = (await createTicket()).body;
    const set = await call('PATCH', `/api/tickets/${ticket.id}/`, {
      json: { due_date: '2031-02-03', assigned_to: ADMIN_ID, merged_to: target.id },
    });
    expect(set.body).toMatchObject({ due_date: '2031-02-03T00:00:00Z', assigned_to: ADMIN_ID, merged_to: target.id });
    const cleared = await call('PATCH', `/api/tickets/${ticket.id}/`, {
      json: { due_date: null, assigned_to: null, merged_to: null },
    });
    expect(cleared.body).toMatchObject({ due_date: null, assigned_to: null, merged_to: null });
  });

  it('sets description and resolution to null or ""', async () => {
    const ticket = (await createTicket()).body;
    const nulls = await call('PATCH', `/api/tickets/${ticket.id}/`, { json: { description: null, resolution: null } });
    expect(nulls.status).toBe(200);
    expect(nulls.body).toMatchObject({ description: null, resolution: null });
    const blanks = await call('PATCH', `/api/tickets/${ticket.id}/`, { json: { description: '', resolution: '' } });
    expect(blanks.body).toMatchObject({ description: '', resolution: '' });
  });

  it('refuses a blank or null title', async () => {
    const ticket = (await createTicket()).body;
    const blank = await call('PATCH', `/api/tickets/${ticket.id}/`, { json: { title: '' } });
    expect(blank.status).toBe(400);
    expect(blank.body).toEqual({ title: ['This field may not be blank.'] });
    const nulled = await call('PATCH', `/api/tickets/${ticket.id}/`, { json: { title: null } });
    expect(nulled.status).toBe(400);
    expect(nulled.body).toEqual({ title: ['This field may not be null.'] });
  });

  it('refuses unknown references and invalid choices, changing nothing', async () => {
    const ticket = (await createTicket()).body;
    const reply = await call('PATCH', `/api/tickets/${ticket.id}/`, {
      json: { priority: 1, queue: 999, assigned_to: 999999, status: 6, merged_to: 999999999 },
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      queue: ['Invalid pk "999" - object does not exist.'],
      assigned_to: ['Invalid pk "999999" - object does not exist.'],
      status: ['"6" is not a valid choice.'],
      merged_to: ['Invalid pk "999999999" - object does not exist.'],
    });
    expect((await call('GET', `/api/tickets/${ticket.id}/`)).body).toEqual(ticket);
  });

  it('accepts and ignores an attachment', async () => {
    const ticket = (await createTicket()).body;
    const reply = await call('PATCH', `/api/tickets/${ticket.id}/`, {
      form: form({ priority: 2 }, [
        { field: 'attachment', name: 'ignored.txt', type: 'text/plain', content: 'ignored' },
      ]),
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ ...ticket, priority: 2 });
  });

  it('a multipart PATCH without on_hold leaves it unchanged', async () => {
    const ticket = (await createTicket()).body;
    await call('PATCH', `/api/tickets/${ticket.id}/`, { json: { on_hold: true } });
    const reply = await call('PATCH', `/api/tickets/${ticket.id}/`, { form: form({ title: 'multipart patch' }) });
    expect(reply.status).toBe(200);
    expect(reply.body.on_hold).toBe(true);
    expect(reply.body.title).toBe('multipart patch');
  });

  it('has no side effects: no followup is added', async () => {
    const ticket = (await createTicket()).body;
    await call('PATCH', `/api/tickets/${ticket.id}/`, { json: { status: 3, resolution: 'r', title: 'renamed' } });
    await call('PUT', `/api/tickets/${ticket.id}/`, { json: { ...VALID_TICKET, status: 4 } });
    const read = await call('GET', `/api/tickets/${ticket.id}/`);
    expect(read.body.followup_set).toEqual(ticket.followup_set);
  });

  it('accepts and ignores an attachment key in a JSON body', async () => {
    const ticket = (await createTicket()).body;
    const reply = await call('PATCH', `/api/tickets/${ticket.id}/`, {
      json: { attachment: 'not a file', priority: 5 },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ ...ticket, priority: 5 });
  });

  it('concurrent PATCHes of different fields all land', async () => {
    const ticket = (await createTicket()).body;
    const changes = [
      { priority: 1 },
      { title: 'concurrent' },
      { on_hold: true },
      { resolution: 'parallel' },
      { due_date: '2032-03-04' },
      { status: 2 },
    ];
    const replies = await Promise.all(changes.map((json) => call('PATCH', `/api/tickets/${ticket.id}/`, { json })));
    for (const reply of replies) expect(reply.status).toBe(200);
    expect((await call('GET', `/api/tickets/${ticket.id}/`)).body).toEqual({
      ...ticket,
      priority: 1,
      title: 'concurrent',
      on_hold: true,
      resolution: 'parallel',
      due_date: '2032-03-04T00:00:00Z',
      status: 2,
    });
  });

  it('an unknown id gives 404', async () => {
    const reply = await call('PATCH', '/api/tickets/987654321/', { json: { priority: 1 } });
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ detail: 'Not found.' });
  });
});
