/** POST /api/followups/ (docs/upstream.md: decided points; where we differ, h). */
import { describe, expect, it } from 'vitest';
import {
  ADMIN_ID,
  API,
  ATTACHMENT_KEYS,
  DATE_TIME,
  FOLLOWUP_KEYS,
  call,
  createTicket,
  createUser,
  form,
  type Json,
} from './client';

const REQUIRED = ['This field is required.'];
const DURATION_MESSAGE = 'Duration has wrong format. Use one of these formats instead: [DD] [HH:[MM:]]ss[.uuuuuu].';

async function followup(body: Record<string, unknown>): Promise<Json> {
  const reply = await call('POST', '/api/followups/', { json: body });
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

async function followup400(body: Record<string, unknown>): Promise<Json> {
  const reply = await call('POST', '/api/followups/', { json: body });
  expect(reply.status, reply.text).toBe(400);
  return reply.body;
}

async function ticketOf(id: number): Promise<Json> {
  return (await call('GET', `/api/tickets/${id}/`)).body;
}

describe('creating a followup', () => {
  it('answers 201 with the followup, keys in upstream order, appended to the ticket', async () => {
    const ticket = (await createTicket()).body;
    const reply = await call('POST', '/api/followups/', {
      json: { ticket: ticket.id, title: 'A reply', comment: 'Some text\nwith lines' },
    });
    expect(reply.status).toBe(201);
    expect(reply.headers.get('location')).toBeNull();
    expect(Object.keys(reply.body)).toEqual(FOLLOWUP_KEYS);
    expect(reply.body).toEqual({
      id: reply.body.id,
      ticket: ticket.id,
      user: ADMIN_ID,
      title: 'A reply',
      comment: 'Some text\nwith lines',
      public: false,
      new_status: null,
      time_spent: null,
      followupattachment_set: [],
      date: reply.body.date,
      message_id: null,
    });
    expect(reply.body.date).toMatch(DATE_TIME);
    const after = await ticketOf(ticket.id);
    expect(after.followup_set).toHaveLength(2);
    expect(after.followup_set[1]).toEqual(reply.body);
    expect(after.status).toBe(1);
  });

  it('takes public, and the caller as user whatever user is sent', async () => {
    const ticket = (await createTicket()).body;
    const created = await followup({ ticket: ticket.id, title: 't', comment: 'c', public: true, user: ADMIN_ID });
    expect(created.public).toBe(true);
    expect(created.user).toBe(ADMIN_ID);
  });

  it('multipart with several attachments stores them all, listed by filename', async () => {
    const ticket = (await createTicket()).body;
    const png = Buffer.alloc(70, 0x89);
    const reply = await call('POST', '/api/followups/', {
      form: form(
        {
          ticket: ticket.id,
          title: 'Test ticket answer',
          comment: 'This answer contains multiple files as attachment.',
        },
        [
          { field: 'attachments', name: 'pixel.png', type: 'image/png', content: png },
          { field: 'attachments', name: 'notes.txt', type: 'text/plain', content: 'eighteen bytes!!\r\n' },
          { field: 'attachments', name: 'zz.bin', type: 'application/octet-stream', content: Buffer.from([0, 1, 2]) },
        ],
      ),
    });
    expect(reply.status).toBe(201);
    const f = reply.body;
    expect(f).toMatchObject({
      title: 'Test ticket answer',
      comment: 'This answer contains multiple files as attachment.',
      public: false,
    });
    const files = f.followupattachment_set;
    expect(files.map((a: Json) => a.filename)).toEqual(['notes.txt', 'pixel.png', 'zz.bin']);
    for (const a of files) {
      expect(Object.keys(a)).toEqual(ATTACHMENT_KEYS);
      expect(a.followup).toBe(f.id);
      expect(a.file).toBe(`${API}/api/tickets/${ticket.id}/attachments/${a.id}`);
    }
    expect(files[0]).toMatchObject({ mime_type: 'text/plain', size: 18 });
    expect(files[1]).toMatchObject({ mime_type: 'image/png', size: 70 });
    expect(files[2]).toMatchObject({ mime_type: 'application/octet-stream', size: 3 });
    expect((await ticketOf(ticket.id)).followup_set[1]).toEqual(f);
  });

  it('accepts attachments with any extension (no 500 as upstream)', async () => {
    const ticket = (await createTicket()).body;
    const reply = await call('POST', '/api/followups/', {
      form: form({ ticket: ticket.id, title: 't', comment: 'c' }, [
        { field: 'attachments', name: 'run.exe', type: 'application/x-msdownload', content: 'MZ' },
        { field: 'attachments', name: 'page.html', type: 'text/html', content: '<p>' },
      ]),
    });
    expect(reply.status).toBe(201);
    expect(reply.body.followupattachment_set.map((a: Json) => a.filename)).toEqual(['page.html', 'run.exe']);
  });

  it('multipart without public makes a non-public followup; a text field keeps ""', async () => {
    const ticket = (await createTicket()).body;
    const reply = await call('POST', '/api/followups/', {
      form: form({ ticket: ticket.id, title: '', comment: 'from a form' }),
    });
    expect(reply.status).toBe(201);
    expect(reply.body.public).toBe(false);
    expect(reply.body.title).toBe('Comment');
    expect(reply.body.new_status).toBeNull();
  });

  it('a multipart empty new_status counts as null', async () => {
    const ticket = (await createTicket()).body;
    const reply = await call('POST', '/api/followups/', {
      form: form({ ticket: ticket.id, title: 'x', comment: 'y', new_status: '' }),
    });
    expect(reply.status).toBe(201);
    expect(reply.body.new_status).toBeNull();
    expect((await ticketOf(ticket.id)).status).toBe(1);
  });

  it.each([
    ['01:30:00', '01:30:00'],
    ['1 02:00:00', '1 02:00:00'],
    ['PT1H30M', '01:30:00'],
    ['90', '00:01:30'],
    [90, '00:01:30'],
    ['00:00:01.5', '00:00:01.500000'],
  ])('time_spent %j is returned as %s', async (input, output) => {
    const ticket = (await createTicket()).body;
    expect((await followup({ ticket: ticket.id, title: 't', comment: 'c', time_spent: input })).time_spent).toBe(
      output,
    );
  });
});

describe('concurrency', () => {
  it('concurrent followups that change no status are all stored', async () => {
    const ticket = (await createTicket()).body;
    const replies = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        call('POST', '/api/followups/', { json: { ticket: ticket.id, title: `parallel ${i}`, comment: `c${i}` } }),
      ),
    );
    for (const reply of replies) expect(reply.status, reply.text).toBe(201);
    const after = await ticketOf(ticket.id);
    expect(after.followup_set).toHaveLength(7);
    expect(
      after.followup_set
        .slice(1)
        .map((f: Json) => f.id)
        .sort(),
    ).toEqual(replies.map((r) => r.body.id).sort());
  });

  it('concurrent status changes store every accepted followup and leave a consistent ticket', async () => {
    const ticket = (await createTicket()).body;
    const bodies = [null, 3, null, 4, 2, null].map((new_status, i) => ({
      ticket: ticket.id,
      title: `parallel ${i}`,
      comment: `c${i}`,
      new_status,
    }));
    const replies = await Promise.all(bodies.map((json) => call('POST', '/api/followups/', { json })));
    // Under contention a write may give up with a retryable 503; it then stored nothing.
    for (const reply of replies) {
      expect([201, 503], reply.text).toContain(reply.status);
      if (reply.status === 503) expect(reply.headers.get('retry-after')).toBeTruthy();
    }
    const accepted = replies.filter((r) => r.status === 201).map((r) => r.body.id);
    expect(accepted.length).toBeGreaterThan(0);
    const after = await ticketOf(ticket.id);
    expect(
      after.followup_set
        .slice(1)
        .map((f: Json) => f.id)
        .sort(),
    ).toEqual(accepted.sort());
    const changes = after.followup_set.filter((f: Json) => f.new_status !== null);
    expect(changes.length).toBeGreaterThan(0);
    expect(after.status).toBe(changes.at(-1).new_status);
  });
});

describe('title and comment', () => {
  it("a null title becomes the ticket's current title", async () => {
    const ticket = (await createTicket({ title: 'original' })).body;
    await call('PATCH', `/api/tickets/${ticket.id}/`, { json: { title: 'current title' } });
    expect((await followup({ ticket: ticket.id, title: null, comment: 'c' })).title).toBe('current title');
  });

  it('an empty title becomes "Comment" with a comment', async () => {
    const ticket = (await createTicket()).body;
    expect((await followup({ ticket: ticket.id, title: '', comment: 'something' })).title).toBe('Comment');
  });

  it('an empty title becomes "Updated" without a comment', async () => {
    const ticket = (await createTicket()).body;
    const created = await followup({ ticket: ticket.id, title: '', comment: '' });
    expect(created.title).toBe('Updated');
    expect(created.comment).toBe('');
    const nullComment = await followup({ ticket: ticket.id, title: '', comment: null });
    expect(nullComment.title).toBe('Updated');
    expect(nullComment.comment).toBeNull();
  });

  it('the comment is stored exactly as sent, never rendered as a template', async () => {
    const ticket = (await createTicket({ title: 'FU ticket' })).body;
    const comment = "Public reply for {{ ticket.title }} {% now 'Y' %} {{ }} <b>&</b>";
    expect((await followup({ ticket: ticket.id, title: 't', comment })).comment).toBe(comment);
  });

  it('a followup title never renames the ticket', async () => {
    const ticket = (await createTicket({ title: 'keep this title' })).body;
    await followup({ ticket: ticket.id, title: 'Some other title', comment: 'c' });
    await followup({ ticket: ticket.id, title: 'Resolving', comment: 'done', new_status: 3 });
    expect((await ticketOf(ticket.id)).title).toBe('keep this title');
  });

  it('a missing title is required', async () => {
    const ticket = (await createTicket()).body;
    expect(await followup400({ ticket: ticket.id, comment: 'c' })).toEqual({ title: REQUIRED });
  });

  it('a missing comment is required', async () => {
    const ticket = (await createTicket()).body;
    expect(await followup400({ ticket: ticket.id, title: 't' })).toEqual({ comment: REQUIRED });
  });

  it('a title over 200 characters is too long', async () => {
    const ticket = (await createTicket()).body;
    expect(await followup400({ ticket: ticket.id, title: 'x'.repeat(201), comment: 'c' })).toEqual({
      title: ['Ensure this field has no more than 200 characters.'],
    });
  });
});

describe('status changes and resolution', () => {
  it("new_status changes the ticket, records it and suffixes the title (upstream's observed example)", async () => {
    const ticket = (await createTicket({ title: 'stays' })).body;
    const created = await followup({
      ticket: ticket.id,
      title: 'Resolving',
      comment: 'resolved now',
      public: true,
      new_status: 3,
    });
    expect(created).toEqual({
      id: created.id,
      ticket: ticket.id,
      user: ADMIN_ID,
      title: 'Resolving and Resolved',
      comment: 'resolved now',
      public: true,
      new_status: 3,
      time_spent: null,
      followupattachment_set: [],
      date: created.date,
      message_id: null,
    });
    const after = await ticketOf(ticket.id);
    expect(after).toMatchObject({ status: 3, resolution: 'resolved now', title: 'stays' });
  });

  it('an empty title with a status change becomes the state label', async () => {
    const ticket = (await createTicket()).body;
    expect((await followup({ ticket: ticket.id, title: '', comment: 'x', new_status: 4 })).title).toBe('Closed');
    expect((await followup({ ticket: ticket.id, title: '', comment: '', new_status: 2 })).title).toBe('Reopened');
  });

  it('new_status equal to the current status changes nothing and stays null', async () => {
    const ticket = (await createTicket()).body;
    const created = await followup({ ticket: ticket.id, title: 'Still open', comment: 'c', new_status: 1 });
    expect(created.new_status).toBeNull();
    expect(created.title).toBe('Still open');
  });

  it('any status may follow any other', async () => {
    const ticket = (await createTicket()).body;
    for (const status of [5, 2, 4, 1, 3]) {
      const created = await followup({ ticket: ticket.id, title: 'step', comment: 'c', new_status: status });
      expect(created.new_status).toBe(status);
      expect((await ticketOf(ticket.id)).status).toBe(status);
    }
  });

  it('closing after resolving keeps the resolution when the comment is empty', async () => {
    const ticket = (await createTicket()).body;
    await followup({ ticket: ticket.id, title: '', comment: 'Fixed it', new_status: 3 });
    await followup({ ticket: ticket.id, title: '', comment: '', new_status: 4 });
    expect(await ticketOf(ticket.id)).toMatchObject({ status: 4, resolution: 'Fixed it' });
  });

  it('closing a ticket without resolution copies the comment', async () => {
    const ticket = (await createTicket()).body;
    await followup({ ticket: ticket.id, title: '', comment: 'closing note', new_status: 4 });
    expect(await ticketOf(ticket.id)).toMatchObject({ status: 4, resolution: 'closing note' });
  });

  it('any followup on a Resolved ticket overwrites the resolution', async () => {
    const ticket = (await createTicket()).body;
    await followup({ ticket: ticket.id, title: '', comment: 'first', new_status: 3 });
    await followup({ ticket: ticket.id, title: 'later', comment: 'second' });
    expect(await ticketOf(ticket.id)).toMatchObject({ status: 3, resolution: 'second' });
  });

  it('a followup on an open ticket leaves the resolution alone', async () => {
    const ticket = (await createTicket()).body;
    await call('PATCH', `/api/tickets/${ticket.id}/`, { json: { resolution: 'manual' } });
    await followup({ ticket: ticket.id, title: 't', comment: 'c' });
    expect((await ticketOf(ticket.id)).resolution).toBe('manual');
  });
});

describe('errors', () => {
  it('a missing ticket is required', async () => {
    expect(await followup400({ title: 't', comment: 'c' })).toEqual({ ticket: REQUIRED });
  });

  it('{} lists ticket, title and comment in field order', async () => {
    const body = await followup400({});
    expect(body).toEqual({ ticket: REQUIRED, title: REQUIRED, comment: REQUIRED });
    expect(Object.keys(body)).toEqual(['ticket', 'title', 'comment']);
  });

  it('ticket 999 does not exist', async () => {
    expect(await followup400({ ticket: 999999999, title: 't', comment: 'c' })).toEqual({
      ticket: ['Invalid pk "999999999" - object does not exist.'],
    });
  });

  it('ticket "abc" is the wrong type', async () => {
    expect(await followup400({ ticket: 'abc', title: 't', comment: 'c' })).toEqual({
      ticket: ['Incorrect type. Expected pk value, received str.'],
    });
  });

  it('new_status 9 is not a valid choice', async () => {
    const ticket = (await createTicket()).body;
    expect(await followup400({ ticket: ticket.id, title: 't', comment: 'c', new_status: 9 })).toEqual({
      new_status: ['"9" is not a valid choice.'],
    });
  });

  it('time_spent "abc" has the wrong format', async () => {
    const ticket = (await createTicket()).body;
    expect(await followup400({ ticket: ticket.id, title: 't', comment: 'c', time_spent: 'abc' })).toEqual({
      time_spent: [DURATION_MESSAGE],
    });
  });

  it('public must be a boolean', async () => {
    const ticket = (await createTicket()).body;
    expect(await followup400({ ticket: ticket.id, title: 't', comment: 'c', public: 'maybe' })).toEqual({
      public: ['Must be a valid boolean.'],
    });
  });

  it('user must exist although it is replaced by the caller', async () => {
    const ticket = (await createTicket()).body;
    expect(await followup400({ ticket: ticket.id, title: 't', comment: 'c', user: 999999 })).toEqual({
      user: ['Invalid pk "999999" - object does not exist.'],
    });
  });

  it('gives all errors at once, in field order', async () => {
    const body = await followup400({
      ticket: 999999999,
      title: 'x'.repeat(201),
      comment: 'c',
      public: 'maybe',
      new_status: 9,
      time_spent: 'abc',
    });
    expect(Object.keys(body)).toEqual(['ticket', 'title', 'public', 'new_status', 'time_spent']);
  });

  it('an empty file gives an error keyed by its position, and nothing is saved', async () => {
    const ticket = (await createTicket()).body;
    const reply = await call('POST', '/api/followups/', {
      form: form({ ticket: ticket.id, title: 'x', comment: 'y', new_status: 3 }, [
        { field: 'attachments', name: 'ok.txt', type: 'text/plain', content: 'fine' },
        { field: 'attachments', name: 'empty.txt', type: 'text/plain', content: '' },
      ]),
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ attachments: { 1: ['The submitted file is empty.'] } });
    expect(await ticketOf(ticket.id)).toEqual(ticket);
  });

  it('a single empty file is keyed "0"', async () => {
    const ticket = (await createTicket()).body;
    const reply = await call('POST', '/api/followups/', {
      form: form({ ticket: ticket.id, title: 'x', comment: 'y' }, [
        { field: 'attachments', name: 'empty.txt', type: 'text/plain', content: '' },
      ]),
    });
    expect(reply.status).toBe(400);
    expect(reply.text).toBe('{"attachments":{"0":["The submitted file is empty."]}}');
  });

  it('a 400 changes nothing on the ticket', async () => {
    const ticket = (await createTicket()).body;
    await followup400({ ticket: ticket.id, title: 'x', comment: 'y', new_status: 3, time_spent: 'abc' });
    expect(await ticketOf(ticket.id)).toEqual(ticket);
  });

  it('a non-staff user gets 403', async () => {
    const user = await createUser();
    const ticket = (await createTicket()).body;
    const reply = await call('POST', '/api/followups/', {
      auth: user.auth,
      json: { ticket: ticket.id, title: 't', comment: 'c' },
    });
    expect(reply.status).toBe(403);
    expect(await ticketOf(ticket.id)).toEqual(ticket);
  });
});
