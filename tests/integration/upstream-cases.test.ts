/**
 * Upstream's own API tests as black-box cases (docs/upstream.md: upstream's own tests; cases 1-12), with the
 * "Here" column applied. Like upstream's tests, bodies are multipart and the caller is staff.
 * Case 10 needs operator-defined custom fields (out of scope); its custom-free part is checked.
 */
import { describe, expect, it } from 'vitest';
import {
  ADMIN_AUTH,
  ADMIN_ID,
  API,
  DATE_TIME,
  call,
  createTicket,
  createUser,
  expectedCase5Ticket,
  expectNoNewTicket,
  listAll,
  multipart,
  unique,
} from './client';

const REQUIRED = ['This field is required.'];
const DATE_TIME_MESSAGE =
  'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].';

/** Case 5's body, as multipart string values. */
const CASE5 = {
  queue: '1',
  title: 'Test title',
  description: 'Test description\nMulti lines',
  submitter_email: 'test@mail.com',
  priority: '4',
};

/** `now - days` as Python's str(datetime) (what Django's test client sends) and as the API answers it. */
function pastDate(days: number): { sent: string; returned: string } {
  const date = new Date(Date.now() - days * 86_400_000);
  date.setUTCMilliseconds(123);
  const iso = date.toISOString(); // 2025-01-02T03:04:05.123Z
  return { sent: `${iso.slice(0, 10)} ${iso.slice(11, 23)}456`, returned: `${iso.slice(0, 23)}456Z` };
}

async function case6Body() {
  const mergeTicket = (await createTicket({ title: 'merge ticket' })).body;
  const due = pastDate(20);
  const fields = {
    queue: '1',
    title: 'Title',
    description: 'Description',
    resolution: 'Resolution',
    assigned_to: String(ADMIN_ID),
    submitter_email: 'test@mail.com',
    status: '3',
    priority: '1',
    on_hold: 'True',
    due_date: due.sent,
    merged_to: String(mergeTicket.id),
  };
  return { fields, mergeTicket, due };
}

describe('upstream API test cases', () => {
  it('case 1: POST /api/tickets/ without credentials gives 401 with WWW-Authenticate', async () => {
    const reply = await call('POST', '/api/tickets/', { auth: null });
    expect(reply.status).toBe(401);
    expect(reply.text).toBe('{"detail":"Authentication credentials were not provided."}');
    expect(reply.headers.get('www-authenticate')).toBe('Basic realm="api"');
  });

  it('case 2: POST /api/tickets/ as a non-staff user gives 403', async () => {
    const user = await createUser();
    const reply = await call('POST', '/api/tickets/', { auth: user.auth });
    expect(reply.status).toBe(403);
    expect(reply.text).toBe('{"detail":"You do not have permission to perform this action."}');
  });

  it(
    'case 3: an empty body gives 400 with queue, title, description and submitter_email ' + 'required; no ticket',
    async () => {
      const reply = await expectNoNewTicket(() => call('POST', '/api/tickets/', multipart({})));
      expect(reply.status).toBe(400);
      expect(reply.text).toBe(
        '{"queue":["This field is required."],"title":["This field is required."],"description":["This field is ' +
          'required."],"submitter_email":["This field is required."]}',
      );
    },
  );

  it(
    'case 4: an unparseable due_date gives 400 after the required description ' + 'and submitter_email; no ticket',
    async () => {
      const reply = await expectNoNewTicket(() =>
        call(
          'POST',
          '/api/tickets/',
          multipart({ queue: '1', title: 'Test title', due_date: 'monday, 1st of may 2022' }),
        ),
      );
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({ description: REQUIRED, submitter_email: REQUIRED, due_date: [DATE_TIME_MESSAGE] });
      expect(Object.keys(reply.body)).toEqual(['description', 'submitter_email', 'due_date']);
    },
  );

  it('case 5: a valid body gives 201 with those values (newline kept) and exactly one followup', async () => {
    const reply = await call('POST', '/api/tickets/', multipart(CASE5));
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      queue: 1,
      title: 'Test title',
      description: 'Test description\nMulti lines',
      submitter_email: 'test@mail.com',
      priority: 4,
    });
    expect(reply.body.followup_set).toHaveLength(1);
    const stored = (await call('GET', `/api/tickets/${reply.body.id}/`)).body;
    expect(stored.description).toBe('Test description\nMulti lines');
    expect(stored.followup_set).toHaveLength(1);
  });

  it(
    'case 6: creation keeps the given fields but forces resolution null, on_hold ' + 'false, status 1, merged_to null',
    async () => {
      const { fields, due } = await case6Body();
      const reply = await call('POST', '/api/tickets/', { auth: ADMIN_AUTH, ...multipart(fields) });
      expect(reply.status).toBe(201);
      expect(reply.body).toMatchObject({
        title: 'Title',
        description: 'Description',
        assigned_to: ADMIN_ID,
        submitter_email: 'test@mail.com',
        priority: 1,
        due_date: due.returned,
        resolution: null,
        on_hold: false,
        status: 1,
        merged_to: null,
      });
    },
  );

  it("case 7: PUT with case 6's body sets resolution, on_hold, status and merged_to too", async () => {
    const { fields, mergeTicket, due } = await case6Body();
    const ticket = (await call('POST', '/api/tickets/', multipart(fields))).body;
    const reply = await call('PUT', `/api/tickets/${ticket.id}/`, multipart(fields));
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      queue: 1,
      title: 'Title',
      description: 'Description',
      resolution: 'Resolution',
      assigned_to: ADMIN_ID,
      submitter_email: 'test@mail.com',
      status: 3,
      on_hold: true,
      priority: 1,
      due_date: due.returned,
      merged_to: mergeTicket.id,
    });
    expect((await call('GET', `/api/tickets/${ticket.id}/`)).body).toEqual(reply.body);
  });

  it('case 8: PATCH with a new description changes it', async () => {
    const ticket = (await call('POST', '/api/tickets/', multipart(CASE5))).body;
    const reply = await call('PATCH', `/api/tickets/${ticket.id}/`, multipart({ description: 'New description' }));
    expect(reply.status).toBe(200);
    expect(reply.body.description).toBe('New description');
    expect((await call('GET', `/api/tickets/${ticket.id}/`)).body.description).toBe('New description');
  });

  it('case 9: DELETE gives 204 and the ticket is gone', async () => {
    const ticket = (await call('POST', '/api/tickets/', multipart(CASE5))).body;
    const reply = await call('DELETE', `/api/tickets/${ticket.id}/`);
    expect(reply.status).toBe(204);
    expect((await call('GET', `/api/tickets/${ticket.id}/`)).status).toBe(404);
  });

  it('case 10b (without custom fields): the 201 body is exactly the ticket with its opening followup', async () => {
    const before = Date.now();
    const reply = await call('POST', '/api/tickets/', multipart(CASE5));
    expect(reply.status).toBe(201);
    const opening = reply.body.followup_set[0];
    expect(reply.body).toEqual(expectedCase5Ticket(reply.body));
    expect(reply.body).not.toHaveProperty('attachment');
    expect(opening.date).toMatch(DATE_TIME);
    const created = Date.parse(opening.date);
    expect(created).toBeGreaterThanOrEqual(before - 1000);
    expect(created).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('case 11: a ticket with attachment file.jpg has one followup with that one attachment', async () => {
    const reply = await call('POST', '/api/tickets/', {
      ...multipart(CASE5, [{ field: 'attachment', name: 'file.jpg', type: 'image/jpg', content: 'file_content' }]),
    });
    expect(reply.status).toBe(201);
    expect(reply.body.followup_set).toHaveLength(1);
    const attachments = reply.body.followup_set[0].followupattachment_set;
    expect(attachments).toHaveLength(1);
    expect(attachments[0]).toMatchObject({ filename: 'file.jpg', mime_type: 'image/jpg', size: 12 });
    expect(attachments[0].file).toBe(`${API}/api/tickets/${reply.body.id}/attachments/${attachments[0].id}`);
  });

  it('case 12: a followup with two attachments lists them by filename: doc.pdf, then file.jpg', async () => {
    const ticket = (await createTicket({ title: 'Test' })).body;
    const reply = await call('POST', '/api/followups/', {
      ...multipart({ ticket: String(ticket.id), title: 'Test', comment: 'Test answer\nMulti lines' }, [
        { field: 'attachments', name: 'file.jpg', type: 'image/jpg', content: 'file_content' },
        { field: 'attachments', name: 'doc.pdf', type: 'application/pdf', content: 'Doc content' },
      ]),
    });
    expect(reply.status).toBe(201);
    const last = (await call('GET', `/api/tickets/${ticket.id}/`)).body.followup_set.at(-1);
    expect(last.title).toBe('Test');
    expect(last.comment).toBe('Test answer\nMulti lines');
    expect(last.followupattachment_set).toHaveLength(2);
    expect(last.followupattachment_set[0]).toMatchObject({ filename: 'doc.pdf', mime_type: 'application/pdf' });
    expect(last.followupattachment_set[1]).toMatchObject({ filename: 'file.jpg', mime_type: 'image/jpg' });
  });

  it('case 3 and 4 leave no ticket behind (checked by a unique title as well)', async () => {
    const title = unique('case4');
    const reply = await call(
      'POST',
      '/api/tickets/',
      multipart({ queue: '1', title, due_date: 'monday, 1st of may 2022' }),
    );
    expect(reply.status).toBe(400);
    expect((await listAll()).some((t) => t.title === title)).toBe(false);
  });
});
