/**
 * GET /api/followups/ and /api/followups/{id}/: read, PUT, PATCH, DELETE (as upstream's; docs/upstream.md: pagination).
 */
import { describe, expect, it } from 'vitest';
import { ADMIN_AUTH, ADMIN_ID, API, FOLLOWUP_KEYS, call, createTicket, download, form, type Json } from './client';

const DETAIL_ALLOW = 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS';

async function followup(ticket: number, body: Record<string, unknown> = {}): Promise<Json> {
  const reply = await call('POST', '/api/followups/', {
    json: { ticket, title: 'A title', comment: 'A comment', ...body },
  });
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

/** A followup with two files; answers it with its attachments (by filename). */
async function followupWithFiles(ticket: number): Promise<Json> {
  const reply = await call('POST', '/api/followups/', {
    form: form({ ticket, title: 'files', comment: 'c' }, [
      { field: 'attachments', name: 'b.txt', type: 'text/plain', content: 'bee' },
      { field: 'attachments', name: 'a.bin', content: Buffer.from([0, 1, 2, 255]) },
    ]),
  });
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

async function ticketOf(id: number): Promise<Json> {
  const reply = await call('GET', `/api/tickets/${id}/`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

async function get(id: number): Promise<Json> {
  const reply = await call('GET', `/api/followups/${id}/`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

async function presigned(file: string): Promise<string> {
  const reply = await fetch(file, { headers: { authorization: ADMIN_AUTH }, redirect: 'manual' });
  expect(reply.status).toBe(302);
  return reply.headers.get('location')!;
}

/** The list entries of these followups, searched from the last page back (others add followups meanwhile). */
async function listedFollowups(ids: number[]): Promise<Json[]> {
  const wanted = new Set(ids);
  const found = new Map<number, Json>();
  const last = await call('GET', '/api/followups/?page_size=100&page=last');
  expect(last.status, last.text).toBe(200);
  const pages = Math.ceil(last.body.count / 100);
  for (let page = pages; page >= 1 && found.size < wanted.size; page--) {
    const reply = page === pages ? last : await call('GET', `/api/followups/?page_size=100&page=${page}`);
    for (const f of reply.body.results) if (wanted.has(f.id)) found.set(f.id, f);
  }
  return ids.map((id) => found.get(id));
}

describe('GET /api/followups/', () => {
  it("answers the paginated envelope of followups, each in the detail's shape", async () => {
    const ticket = (await createTicket()).body;
    await followup(ticket.id);
    await followup(ticket.id);
    const reply = await call('GET', '/api/followups/?page_size=2');
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body)).toEqual(['count', 'next', 'previous', 'results']);
    expect(reply.body.count).toBeGreaterThanOrEqual(3);
    expect(reply.body.results).toHaveLength(2);
    expect(reply.body.next).toBe(`${API}/api/followups/?page=2&page_size=2`);
    expect(reply.body.previous).toBeNull();
    for (const f of reply.body.results) expect(Object.keys(f)).toEqual(FOLLOWUP_KEYS);
  });

  it('lists followups by date ascending, with their attachments, equal to the detail', async () => {
    const ticket = (await createTicket()).body;
    const first = await followup(ticket.id, { title: 'first' });
    const second = await followupWithFiles(ticket.id);
    const third = await followup(ticket.id, { title: 'third' });
    const opening = ticket.followup_set[0];
    const listed = await listedFollowups([opening.id, first.id, second.id, third.id]);
    expect(listed).toEqual([opening, first, second, third]);
    expect(listed[2].followupattachment_set.map((a: Json) => a.filename)).toEqual(['a.bin', 'b.txt']);
    const dates = listed.map((f) => Date.parse(f.date));
    expect([...dates].sort((a, b) => a - b)).toEqual(dates);
    for (const f of listed) expect(await get(f.id)).toEqual(f);
  });

  it('a bad page gives 404 "Invalid page."; page_size is capped at 100', async () => {
    const bad = await call('GET', '/api/followups/?page=0');
    expect(bad.status).toBe(404);
    expect(bad.body).toEqual({ detail: 'Invalid page.' });
    const big = await call('GET', '/api/followups/?page_size=1000');
    expect(big.status).toBe(200);
    expect(big.body.results.length).toBeLessThanOrEqual(100);
  });
});

describe('GET /api/followups/{id}/', () => {
  it('answers the followup as the ticket shows it, with and without the trailing slash', async () => {
    const ticket = (await createTicket()).body;
    const created = await followupWithFiles(ticket.id);
    const reply = await call('GET', `/api/followups/${created.id}`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('allow')).toBe(DETAIL_ALLOW);
    expect(Object.keys(reply.body)).toEqual(FOLLOWUP_KEYS);
    expect(reply.body).toEqual(created);
    expect((await ticketOf(ticket.id)).followup_set[1]).toEqual(reply.body);
  });

  it('an unknown or non-integer id gives 404 "Not found." on every method', async () => {
    for (const path of ['/api/followups/99999999/', '/api/followups/abc/', '/api/followups/-1/']) {
      for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
        const reply = await call(method, path, method === 'PUT' || method === 'PATCH' ? { json: { ticket: 1 } } : {});
        expect(reply.status, `${method} ${path}`).toBe(404);
        expect(reply.body).toEqual({ detail: 'Not found.' });
        expect(reply.headers.get('allow')).toBe(DETAIL_ALLOW);
      }
    }
  });

  it('a followup of a deleted ticket is gone', async () => {
    const ticket = (await createTicket()).body;
    const created = await followup(ticket.id);
    expect((await call('DELETE', `/api/tickets/${ticket.id}/`)).status).toBe(204);
    expect((await call('GET', `/api/followups/${created.id}/`)).status).toBe(404);
    expect((await call('GET', `/api/followups/${ticket.followup_set[0].id}/`)).status).toBe(404);
  });
});

describe('PATCH /api/followups/{id}/', () => {
  it('changes only what was sent and answers the followup', async () => {
    const ticket = (await createTicket()).body;
    const created = await followup(ticket.id, { public: false });
    const reply = await call('PATCH', `/api/followups/${created.id}/`, {
      json: { title: 'Edited', public: true, time_spent: '01:30:00' },
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({ ...created, title: 'Edited', public: true, time_spent: '01:30:00' });
    expect(await get(created.id)).toEqual(reply.body);
    expect((await ticketOf(ticket.id)).followup_set[1]).toEqual(reply.body);
  });

  it('{} changes nothing; date, message_id and id are read-only', async () => {
    const ticket = (await createTicket()).body;
    const created = await followup(ticket.id);
    expect((await call('PATCH', `/api/followups/${created.id}/`, { json: {} })).body).toEqual(created);
    const readOnly = await call('PATCH', `/api/followups/${created.id}/`, {
      json: { id: 1, date: '2000-01-01T00:00:00Z', message_id: 'm' },
    });
    expect(readOnly.status).toBe(200);
    expect(readOnly.body).toEqual(created);
  });

  it('title and comment may become "" or null; user any existing user', async () => {
    const ticket = (await createTicket()).body;
    const created = await followup(ticket.id);
    const reply = await call('PATCH', `/api/followups/${created.id}/`, {
      json: { title: '', comment: null, user: null },
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ title: '', comment: null, user: null });
    const back = await call('PATCH', `/api/followups/${created.id}/`, { json: { user: ADMIN_ID } });
    expect(back.body.user).toBe(ADMIN_ID);
  });

  it('a changed new_status does not change the ticket, nor add a followup', async () => {
    const ticket = (await createTicket()).body;
    const created = await followup(ticket.id);
    const reply = await call('PATCH', `/api/followups/${created.id}/`, {
      json: { new_status: 3, comment: 'resolved?' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.new_status).toBe(3);
    expect(reply.body.title).toBe(created.title);
    const after = await ticketOf(ticket.id);
    expect(after.status).toBe(1);
    expect(after.resolution).toBeNull();
    expect(after.title).toBe(ticket.title);
    expect(after.followup_set).toHaveLength(2);
  });

  it('time_spent takes the duration formats', async () => {
    const ticket = (await createTicket()).body;
    const created = await followup(ticket.id);
    for (const [sent, shown] of [
      ['PT1H30M', '01:30:00'],
      ['1 02:00:00', '1 02:00:00'],
      [90, '00:01:30'],
      [null, null],
    ] as const) {
      const reply = await call('PATCH', `/api/followups/${created.id}/`, { json: { time_spent: sent } });
      expect(reply.status, String(sent)).toBe(200);
      expect(reply.body.time_spent).toBe(shown);
    }
  });

  it('validates every field and changes nothing on a 400', async () => {
    const ticket = (await createTicket()).body;
    const created = await followup(ticket.id);
    const reply = await call('PATCH', `/api/followups/${created.id}/`, {
      json: {
        ticket: 99999999,
        user: 99999999,
        title: 'x'.repeat(201),
        public: 'maybe',
        new_status: 9,
        time_spent: 'abc',
      },
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      title: ['Ensure this field has no more than 200 characters.'],
      public: ['Must be a valid boolean.'],
      new_status: ['"9" is not a valid choice.'],
      time_spent: ['Duration has wrong format. Use one of these formats instead: [DD] [HH:[MM:]]ss[.uuuuuu].'],
    });
    const refs = await call('PATCH', `/api/followups/${created.id}/`, {
      json: { ticket: 99999999, user: 99999999, title: 'changed?' },
    });
    expect(refs.status).toBe(400);
    expect(refs.body).toEqual({
      ticket: ['Invalid pk "99999999" - object does not exist.'],
      user: ['Invalid pk "99999999" - object does not exist.'],
    });
    const types = await call('PATCH', `/api/followups/${created.id}/`, { json: { ticket: 'abc' } });
    expect(types.body).toEqual({ ticket: ['Incorrect type. Expected pk value, received str.'] });
    expect(await get(created.id)).toEqual(created);
  });

  it('takes form bodies: a text field keeps "", an empty new_status becomes null', async () => {
    const ticket = (await createTicket()).body;
    const created = await followup(ticket.id, { new_status: 2 });
    expect(created.new_status).toBe(2);
    const reply = await call('PATCH', `/api/followups/${created.id}/`, { form: form({ comment: '', new_status: '' }) });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ comment: '', new_status: null, public: created.public });
  });
});

describe('PUT /api/followups/{id}/', () => {
  it('needs ticket: {} gives 400 {"ticket": required}', async () => {
    const ticket = (await createTicket()).body;
    const created = await followup(ticket.id);
    const reply = await call('PUT', `/api/followups/${created.id}/`, { json: { title: 'only title' } });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ ticket: ['This field is required.'] });
    expect(await get(created.id)).toEqual(created);
  });

  it('with the same ticket edits the fields sent; the others keep their values', async () => {
    const ticket = (await createTicket()).body;
    const created = await followup(ticket.id, { public: true, time_spent: '00:10:00' });
    const reply = await call('PUT', `/api/followups/${created.id}/`, {
      json: { ticket: ticket.id, comment: 'replaced' },
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({ ...created, comment: 'replaced' });
    expect(await get(created.id)).toEqual(reply.body);
  });

  it('a multipart PUT without public sets it to false', async () => {
    const ticket = (await createTicket()).body;
    const created = await followup(ticket.id, { public: true });
    const reply = await call('PUT', `/api/followups/${created.id}/`, { form: form({ ticket: ticket.id }) });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.public).toBe(false);
  });

  it('changing ticket moves the followup and its attachments to that ticket', async () => {
    const from = (await createTicket({ title: 'from' })).body;
    const to = (await createTicket({ title: 'to' })).body;
    const created = await followupWithFiles(from.id);
    const [a, b] = created.followupattachment_set;
    const reply = await call('PUT', `/api/followups/${created.id}/`, { json: { ticket: to.id, title: 'moved' } });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ id: created.id, ticket: to.id, title: 'moved', date: created.date });
    expect(reply.body.followupattachment_set).toEqual([
      { ...a, file: `${API}/api/tickets/${to.id}/attachments/${a.id}` },
      { ...b, file: `${API}/api/tickets/${to.id}/attachments/${b.id}` },
    ]);

    const before = await ticketOf(from.id);
    const after = await ticketOf(to.id);
    expect(before.followup_set.map((f: Json) => f.id)).toEqual([from.followup_set[0].id]);
    expect(after.followup_set.map((f: Json) => f.id)).toEqual([to.followup_set[0].id, created.id]);
    expect(after.followup_set[1]).toEqual(reply.body);
    expect(before.status).toBe(1);
    expect(after.status).toBe(1);

    // The files came along: the old URLs are gone, the new ones serve the same bytes.
    expect((await call('GET', new URL(a.file).pathname)).status).toBe(404);
    expect((await download(reply.body.followupattachment_set[0].file)).bytes).toEqual(Buffer.from([0, 1, 2, 255]));
    expect((await download(reply.body.followupattachment_set[1].file)).bytes.toString()).toBe('bee');
    expect((await call('GET', `/api/followups-attachments/${a.id}/`)).body.file).toBe(
      reply.body.followupattachment_set[0].file,
    );

    expect(await listedFollowups([created.id])).toEqual([reply.body]);

    // Deleting the old ticket leaves the moved followup and its files; deleting the new one takes them along.
    expect((await call('DELETE', `/api/tickets/${from.id}/`)).status).toBe(204);
    expect(await get(created.id)).toEqual(reply.body);
    expect((await download(reply.body.followupattachment_set[1].file)).bytes.toString()).toBe('bee');
    expect((await call('DELETE', `/api/tickets/${to.id}/`)).status).toBe(204);
    expect((await call('GET', `/api/followups/${created.id}/`)).status).toBe(404);
    expect((await call('GET', `/api/followups-attachments/${a.id}/`)).status).toBe(404);
  });

  it('a PATCH may move a followup too, and back', async () => {
    const from = (await createTicket()).body;
    const to = (await createTicket()).body;
    const created = await followup(from.id);
    expect((await call('PATCH', `/api/followups/${created.id}/`, { json: { ticket: to.id } })).body.ticket).toBe(to.id);
    expect((await ticketOf(to.id)).followup_set).toHaveLength(2);
    expect(
      (await call('PATCH', `/api/followups/${created.id}/`, { json: { ticket: String(from.id) } })).body.ticket,
    ).toBe(from.id);
    expect((await ticketOf(from.id)).followup_set.map((f: Json) => f.id)).toEqual([
      from.followup_set[0].id,
      created.id,
    ]);
    expect((await ticketOf(to.id)).followup_set).toHaveLength(1);
  });

  it('an unknown ticket gives 400 and moves nothing', async () => {
    const ticket = (await createTicket()).body;
    const created = await followup(ticket.id);
    const reply = await call('PUT', `/api/followups/${created.id}/`, { json: { ticket: 99999999 } });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ ticket: ['Invalid pk "99999999" - object does not exist.'] });
    expect(await get(created.id)).toEqual(created);
  });
});

describe('DELETE /api/followups/{id}/', () => {
  it('answers 204; the followup is gone from its ticket; a second DELETE gives 404', async () => {
    const ticket = (await createTicket()).body;
    const created = await followup(ticket.id);
    const reply = await call('DELETE', `/api/followups/${created.id}/`);
    expect(reply.status).toBe(204);
    expect(reply.text).toBe('');
    expect(reply.headers.get('content-type')).toBeNull();
    expect((await call('GET', `/api/followups/${created.id}/`)).status).toBe(404);
    expect((await call('DELETE', `/api/followups/${created.id}`)).status).toBe(404);
    const after = await ticketOf(ticket.id);
    expect(after.followup_set).toEqual(ticket.followup_set);
  });

  it('deletes its attachment records and their files', async () => {
    const ticket = (await createTicket()).body;
    const created = await followupWithFiles(ticket.id);
    const locations = await Promise.all(created.followupattachment_set.map((a: Json) => presigned(a.file)));
    for (const location of locations) expect((await fetch(location)).status).toBe(200);
    expect((await call('DELETE', `/api/followups/${created.id}/`)).status).toBe(204);
    for (const a of created.followupattachment_set) {
      expect((await call('GET', `/api/followups-attachments/${a.id}/`)).status).toBe(404);
      const file = await call('GET', new URL(a.file).pathname);
      expect(file.status).toBe(404);
      expect(file.body).toEqual({ detail: 'Not found.' });
    }
    for (const location of locations) expect((await fetch(location)).status).not.toBe(200);
    expect((await call('GET', `/api/tickets/${ticket.id}/`)).status).toBe(200);
  });

  it(
    "concurrent edits of a new ticket's opening followup (held by the ticket item until first edited) all land " +
      'on one followup',
    async () => {
      const ticket = (await createTicket()).body;
      const opening = ticket.followup_set[0];
      const titles = ['one', 'two', 'three', 'four'];
      const replies = await Promise.all(
        titles.map((title) => call('PATCH', `/api/followups/${opening.id}/`, { json: { title } })),
      );
      for (const reply of replies) expect(reply.status, reply.text).toBe(200);
      const after = await ticketOf(ticket.id);
      expect(after.followup_set.map((f: Json) => f.id)).toEqual([opening.id]);
      expect(titles).toContain(after.followup_set[0].title);
      expect(after.followup_set[0]).toEqual({ ...opening, title: after.followup_set[0].title });
      expect(await get(opening.id)).toEqual(after.followup_set[0]);
    },
  );

  it('the opening followup can be deleted; the ticket stays', async () => {
    const ticket = (await createTicket()).body;
    expect((await call('DELETE', `/api/followups/${ticket.followup_set[0].id}/`)).status).toBe(204);
    const after = await ticketOf(ticket.id);
    expect(after.followup_set).toEqual([]);
    expect(await followup(ticket.id)).toMatchObject({ ticket: ticket.id });
  });
});
