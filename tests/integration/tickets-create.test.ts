/** POST /api/tickets/ (docs/upstream.md: where we differ, b and c; responses). */
import { describe, expect, it } from 'vitest';
import {
  ADMIN_ID,
  API,
  ATTACHMENT_KEYS,
  DATE_TIME,
  FOLLOWUP_KEYS,
  TICKET_KEYS,
  VALID_TICKET,
  call,
  createTicket,
  expectNoNewTicket,
  form,
  listAll,
  multipart,
  unique,
} from './client';

const REQUIRED = ['This field is required.'];
const DATE_TIME_MESSAGE =
  'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].';

async function post400(body: Record<string, unknown>) {
  const reply = await call('POST', '/api/tickets/', { json: { ...VALID_TICKET, ...body } });
  expect(reply.status, reply.text).toBe(400);
  return reply.body;
}

describe('creating a ticket', () => {
  it('answers 201 with the full ticket, keys in upstream order, equal to what GET answers', async () => {
    const reply = await call('POST', '/api/tickets/', { json: VALID_TICKET });
    expect(reply.status).toBe(201);
    expect(Object.keys(reply.body)).toEqual(TICKET_KEYS);
    expect(Object.keys(reply.body.followup_set[0])).toEqual(FOLLOWUP_KEYS);
    expect(reply.body).toMatchObject({
      queue: 1,
      title: 'Test title',
      description: 'Test description\nMulti lines',
      resolution: null,
      submitter_email: 'test@mail.com',
      assigned_to: null,
      status: 1,
      on_hold: false,
      priority: 4,
      due_date: null,
      merged_to: null,
    });
    expect(Number.isInteger(reply.body.id)).toBe(true);
    expect((await call('GET', `/api/tickets/${reply.body.id}/`)).body).toEqual(reply.body);
  });

  it('gives each new ticket the next integer id', async () => {
    const first = (await createTicket()).body.id;
    const second = (await createTicket()).body.id;
    expect(second).toBeGreaterThan(first);
  });

  it('forces status OPEN, on_hold false, resolution null and merged_to null', async () => {
    const target = (await createTicket()).body;
    const reply = await createTicket({ status: 3, on_hold: true, resolution: 'already done', merged_to: target.id });
    expect(reply.body).toMatchObject({ status: 1, on_hold: false, resolution: null, merged_to: null });
  });

  it('defaults priority to 3 when omitted', async () => {
    const { priority, ...rest } = VALID_TICKET;
    void priority;
    const reply = await call('POST', '/api/tickets/', { json: rest });
    expect(reply.status).toBe(201);
    expect(reply.body.priority).toBe(3);
  });

  it('creates an opening followup "Ticket Opened" by the caller with the description as comment', async () => {
    const reply = await createTicket({ description: 'the description' });
    expect(reply.body.followup_set).toHaveLength(1);
    const [opening] = reply.body.followup_set;
    expect(opening).toEqual({
      id: opening.id,
      ticket: reply.body.id,
      user: ADMIN_ID,
      title: 'Ticket Opened',
      comment: 'the description',
      public: true,
      new_status: null,
      time_spent: null,
      followupattachment_set: [],
      date: opening.date,
      message_id: null,
    });
    expect(opening.date).toMatch(DATE_TIME);
  });

  it('names the assignee in the opening followup: "Ticket Opened & Assigned to admin"', async () => {
    const reply = await createTicket({ assigned_to: ADMIN_ID });
    expect(reply.body.assigned_to).toBe(ADMIN_ID);
    expect(reply.body.followup_set[0].title).toBe('Ticket Opened & Assigned to admin');
  });

  it("matches upstream's observed example", async () => {
    const reply = await call('POST', '/api/tickets/', {
      json: {
        queue: 1,
        title: 'Second',
        description: 'desc 2',
        submitter_email: 'plain@example.com',
        priority: 2,
        status: 3,
        on_hold: true,
        resolution: 'r',
        assigned_to: 1,
        due_date: '2030-01-02T03:04:05Z',
      },
    });
    expect(reply.status).toBe(201);
    const f = reply.body.followup_set[0];
    expect(reply.body).toEqual({
      id: reply.body.id,
      queue: 1,
      title: 'Second',
      description: 'desc 2',
      resolution: null,
      submitter_email: 'plain@example.com',
      assigned_to: 1,
      status: 1,
      on_hold: false,
      priority: 2,
      due_date: '2030-01-02T03:04:05Z',
      merged_to: null,
      followup_set: [
        {
          id: f.id,
          ticket: reply.body.id,
          user: 1,
          title: 'Ticket Opened & Assigned to admin',
          comment: 'desc 2',
          public: true,
          new_status: null,
          time_spent: null,
          followupattachment_set: [],
          date: f.date,
          message_id: null,
        },
      ],
    });
  });

  it('accepts a title of exactly 200 characters', async () => {
    const title = 't'.repeat(200);
    expect((await createTicket({ title })).body.title).toBe(title);
  });
});

describe('due_date', () => {
  it.each([
    ['2030-01-02T03:04:05Z', '2030-01-02T03:04:05Z'],
    ['2030-05-01', '2030-05-01T00:00:00Z'],
    ['2030-05-01T10:00:00+02:00', '2030-05-01T08:00:00Z'],
    ['2030-05-01T10:00:00', '2030-05-01T10:00:00Z'],
    ['2030-05-01T10:00', '2030-05-01T10:00:00Z'],
    ['2026-11-21T23:17:07.990707Z', '2026-11-21T23:17:07.990707Z'],
    ['2030-01-02T03:04:05.5Z', '2030-01-02T03:04:05.500000Z'],
    ['2030-01-02T03:04:05.000Z', '2030-01-02T03:04:05Z'],
  ])('%s is returned as %s', async (input, output) => {
    const reply = await createTicket({ due_date: input });
    expect(reply.body.due_date).toBe(output);
    expect((await call('GET', `/api/tickets/${reply.body.id}/`)).body.due_date).toBe(output);
  });

  it('null is accepted', async () => {
    expect((await createTicket({ due_date: null })).body.due_date).toBeNull();
  });

  it.each([['tomorrow'], ['monday, 1st of may 2022'], ['2030-13-01'], ['2030-02-30T00:00:00Z'], [12345]])(
    '%j gets the date-time format message',
    async (value) => {
      expect(await post400({ due_date: value })).toEqual({ due_date: [DATE_TIME_MESSAGE] });
    },
  );
});

describe('validation errors (first stage)', () => {
  it('{} gives the four required fields in order queue, title, description, submitter_email', async () => {
    const reply = await call('POST', '/api/tickets/', { json: {} });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ queue: REQUIRED, title: REQUIRED, description: REQUIRED, submitter_email: REQUIRED });
    expect(Object.keys(reply.body)).toEqual(['queue', 'title', 'description', 'submitter_email']);
  });

  it('queue 999 does not exist', async () => {
    expect(await post400({ queue: 999 })).toEqual({ queue: ['Invalid pk "999" - object does not exist.'] });
  });

  it('queue "abc" is the wrong type', async () => {
    expect(await post400({ queue: 'abc' })).toEqual({ queue: ['Incorrect type. Expected pk value, received str.'] });
  });

  it('queue null may not be null', async () => {
    expect(await post400({ queue: null })).toEqual({ queue: ['This field may not be null.'] });
  });

  it('a missing queue is required', async () => {
    const { queue, ...rest } = VALID_TICKET;
    void queue;
    const reply = await call('POST', '/api/tickets/', { json: rest });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ queue: REQUIRED });
  });

  it('a blank title may not be blank', async () => {
    expect(await post400({ title: '' })).toEqual({ title: ['This field may not be blank.'] });
  });

  it('a title of 201 characters is too long', async () => {
    expect(await post400({ title: 't'.repeat(201) })).toEqual({
      title: ['Ensure this field has no more than 200 characters.'],
    });
  });

  it('a null title may not be null', async () => {
    expect(await post400({ title: null })).toEqual({ title: ['This field may not be null.'] });
  });

  it('a missing description is required (no 500)', async () => {
    const { description, ...rest } = VALID_TICKET;
    void description;
    const reply = await call('POST', '/api/tickets/', { json: rest });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ description: REQUIRED });
  });

  it('a missing submitter_email is required', async () => {
    const { submitter_email, ...rest } = VALID_TICKET;
    void submitter_email;
    const reply = await call('POST', '/api/tickets/', { json: rest });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ submitter_email: REQUIRED });
  });

  it('a blank submitter_email may not be blank', async () => {
    expect(await post400({ submitter_email: '' })).toEqual({ submitter_email: ['This field may not be blank.'] });
  });

  it('a null submitter_email may not be null', async () => {
    expect(await post400({ submitter_email: null })).toEqual({ submitter_email: ['This field may not be null.'] });
  });

  it('an invalid submitter_email is refused', async () => {
    expect(await post400({ submitter_email: 'not-an-email' })).toEqual({
      submitter_email: ['Enter a valid email address.'],
    });
  });

  it('priority 9 and 0 are not valid choices', async () => {
    expect(await post400({ priority: 9 })).toEqual({ priority: ['"9" is not a valid choice.'] });
    expect(await post400({ priority: 0 })).toEqual({ priority: ['"0" is not a valid choice.'] });
  });

  it('priority null may not be null', async () => {
    expect(await post400({ priority: null })).toEqual({ priority: ['This field may not be null.'] });
  });

  it('status 42 is validated although it is then ignored', async () => {
    expect(await post400({ status: 42 })).toEqual({ status: ['"42" is not a valid choice.'] });
  });

  it('assigned_to 999 does not exist', async () => {
    expect(await post400({ assigned_to: 999999 })).toEqual({
      assigned_to: ['Invalid pk "999999" - object does not exist.'],
    });
  });

  it('merged_to 999 does not exist, although merged_to is then ignored', async () => {
    expect(await post400({ merged_to: 999999999 })).toEqual({
      merged_to: ['Invalid pk "999999999" - object does not exist.'],
    });
  });

  it("gives several errors at once in field order (upstream's observed example)", async () => {
    const reply = await call('POST', '/api/tickets/', {
      json: { queue: 999, title: '', description: 'x', submitter_email: 'not-an-email', priority: 9, status: 42 },
    });
    expect(reply.status).toBe(400);
    expect(reply.text).toBe(
      '{"queue":["Invalid pk \\"999\\" - object does not exist."],"title":["This field may not be ' +
        'blank."],"submitter_email":["Enter a valid email address."],"status":["\\"42\\" is not a valid ' +
        'choice."],"priority":["\\"9\\" is not a valid choice."]}',
    );
  });

  it('stores nothing on a 400', async () => {
    const title = unique('never-stored');
    const reply = await expectNoNewTicket(() =>
      call('POST', '/api/tickets/', { json: { ...VALID_TICKET, title, priority: 9 } }),
    );
    expect(reply.status).toBe(400);
    expect((await listAll()).some((t) => t.title === title)).toBe(false);
  });
});

describe('validation errors (second stage)', () => {
  it('a blank description gives {"body": ["This field is required."]}', async () => {
    expect(await post400({ description: '' })).toEqual({ body: REQUIRED });
  });

  it('a null description gives {"body": ["This field is required."]}', async () => {
    expect(await post400({ description: null })).toEqual({ body: REQUIRED });
  });

  it('runs only when the first stage passed', async () => {
    expect(await post400({ description: '', submitter_email: 'bad' })).toEqual({
      submitter_email: ['Enter a valid email address.'],
    });
  });

  it('stores nothing on a second-stage 400', async () => {
    const title = unique('never-stored-2');
    const reply = await expectNoNewTicket(() =>
      call('POST', '/api/tickets/', { json: { ...VALID_TICKET, title, description: '' } }),
    );
    expect(reply.status).toBe(400);
    expect((await listAll()).some((t) => t.title === title)).toBe(false);
  });
});

describe('attachment', () => {
  it('a multipart ticket with one attachment stores it on the opening followup', async () => {
    const content = 'Hello attachment\n';
    const reply = await call('POST', '/api/tickets/', {
      form: form(VALID_TICKET, [{ field: 'attachment', name: 'hello.txt', type: 'text/plain', content }]),
    });
    expect(reply.status).toBe(201);
    expect(reply.body.followup_set).toHaveLength(1);
    const opening = reply.body.followup_set[0];
    expect(opening.followupattachment_set).toHaveLength(1);
    const attachment = opening.followupattachment_set[0];
    expect(Object.keys(attachment)).toEqual(ATTACHMENT_KEYS);
    expect(attachment).toEqual({
      id: attachment.id,
      followup: opening.id,
      file: `${API}/api/tickets/${reply.body.id}/attachments/${attachment.id}`,
      filename: 'hello.txt',
      mime_type: 'text/plain',
      size: Buffer.byteLength(content),
    });
    expect((await call('GET', `/api/tickets/${reply.body.id}/`)).body).toEqual(reply.body);
  });

  it(
    "the mime type is the part's Content-Type, else guessed from the name, else " + 'application/octet-stream',
    async () => {
      const cases = [
        { name: 'photo.jpg', type: 'image/jpg', expected: 'image/jpg' },
        { name: 'notes.txt', type: 'application/octet-stream', expected: 'application/octet-stream' },
        { name: 'data.pdf', type: 'text/plain', expected: 'text/plain' },
        { name: 'notes.txt', type: null, expected: 'text/plain' },
        { name: 'doc.pdf', type: null, expected: 'application/pdf' },
        { name: 'blob.unknownext', type: null, expected: 'application/octet-stream' },
      ];
      for (const c of cases) {
        const reply = await call(
          'POST',
          '/api/tickets/',
          multipart(VALID_TICKET, [{ field: 'attachment', name: c.name, type: c.type, content: 'data' }]),
        );
        expect(reply.status, c.name).toBe(201);
        expect(reply.body.followup_set[0].followupattachment_set[0].mime_type, `${c.name} ${c.type}`).toBe(c.expected);
      }
    },
  );

  it('accepts any extension', async () => {
    for (const name of ['tool.exe', 'page.html', 'script.sh', 'noextension', 'trailing.', '.bashrc']) {
      const reply = await call('POST', '/api/tickets/', {
        form: form(VALID_TICKET, [{ field: 'attachment', name, type: 'application/octet-stream', content: 'bytes' }]),
      });
      expect(reply.status, name).toBe(201);
      expect(reply.body.followup_set[0].followupattachment_set[0].filename).toBe(name);
    }
  });

  it('an empty file gives {"attachment": ["The submitted file is empty."]}', async () => {
    const reply = await call('POST', '/api/tickets/', {
      form: form(VALID_TICKET, [{ field: 'attachment', name: 'empty.txt', type: 'text/plain', content: '' }]),
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ attachment: ['The submitted file is empty.'] });
  });

  it('an attachment key in a JSON body is not a file', async () => {
    expect(await post400({ attachment: 'aGVsbG8=' })).toEqual({
      attachment: ['The submitted data was not a file. Check the encoding type on the form.'],
    });
  });

  it('a plain form value for attachment is not a file', async () => {
    const reply = await call('POST', '/api/tickets/', { form: form({ ...VALID_TICKET, attachment: 'just text' }) });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      attachment: ['The submitted data was not a file. Check the encoding type on the form.'],
    });
  });

  it('two files in attachment give a 400 keyed attachment and store nothing', async () => {
    const title = unique('two-files');
    const reply = await expectNoNewTicket(() =>
      call('POST', '/api/tickets/', {
        form: form({ ...VALID_TICKET, title }, [
          { field: 'attachment', name: 'a.txt', type: 'text/plain', content: 'a' },
          { field: 'attachment', name: 'b.txt', type: 'text/plain', content: 'b' },
        ]),
      }),
    );
    expect(reply.status).toBe(400);
    expect(Object.keys(reply.body)).toEqual(['attachment']);
    expect(reply.body.attachment).toHaveLength(1);
    expect(typeof reply.body.attachment[0]).toBe('string');
    expect((await listAll()).some((t) => t.title === title)).toBe(false);
  });

  it('attachment errors come after the field errors', async () => {
    const reply = await call('POST', '/api/tickets/', {
      form: form({ ...VALID_TICKET, title: '', priority: 9 }, [
        { field: 'attachment', name: 'e.txt', type: 'text/plain', content: '' },
      ]),
    });
    expect(reply.status).toBe(400);
    expect(Object.keys(reply.body)).toEqual(['title', 'priority', 'attachment']);
  });

  it('files under other field names are ignored', async () => {
    const reply = await call('POST', '/api/tickets/', {
      form: form(VALID_TICKET, [{ field: 'other', name: 'x.txt', type: 'text/plain', content: 'x' }]),
    });
    expect(reply.status).toBe(201);
    expect(reply.body.followup_set[0].followupattachment_set).toEqual([]);
  });
});
