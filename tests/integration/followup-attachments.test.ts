/** /api/followups-attachments/ and /{id}/: list, add, read and delete attachment records (as upstream's). */
import { describe, expect, it } from 'vitest';
import {
  ADMIN_AUTH,
  API,
  ATTACHMENT_KEYS,
  call,
  createTicket,
  download,
  form,
  multipart,
  unique,
  type Json,
} from './client';

const LIST_ALLOW = 'GET, POST, HEAD, OPTIONS';
const DETAIL_ALLOW = 'GET, DELETE, HEAD, OPTIONS';

/** A new ticket's opening followup id, and the ticket. */
async function newFollowup(): Promise<{ ticket: Json; followup: number }> {
  const ticket = (await createTicket()).body;
  return { ticket, followup: ticket.followup_set[0].id };
}

async function attach(
  followup: number,
  name: string,
  content: string | Buffer,
  fields: Record<string, string | number> = {},
  type?: string | null,
): Promise<Json> {
  const reply = await call(
    'POST',
    '/api/followups-attachments/',
    multipart({ followup, ...fields }, [{ field: 'file', name, content, type }]),
  );
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

async function followupOf(id: number): Promise<Json> {
  const reply = await call('GET', `/api/followups/${id}/`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

describe('POST /api/followups-attachments/', () => {
  it('adds a file to a followup: 201 with the record; the followup and ticket list it', async () => {
    const { ticket, followup } = await newFollowup();
    const reply = await call('POST', '/api/followups-attachments/', {
      form: form({ followup }, [{ field: 'file', name: 'doc.txt', type: 'text/plain', content: 'hello world\n' }]),
    });
    expect(reply.status).toBe(201);
    expect(reply.headers.get('location')).toBeNull();
    expect(reply.headers.get('allow')).toBe(LIST_ALLOW);
    expect(Object.keys(reply.body)).toEqual(ATTACHMENT_KEYS);
    expect(reply.body).toEqual({
      id: reply.body.id,
      followup,
      file: `${API}/api/tickets/${ticket.id}/attachments/${reply.body.id}`,
      filename: 'doc.txt',
      mime_type: 'text/plain',
      size: 12,
    });
    expect((await followupOf(followup)).followupattachment_set).toEqual([reply.body]);
    const after = (await call('GET', `/api/tickets/${ticket.id}/`)).body;
    expect(after.followup_set[0].followupattachment_set).toEqual([reply.body]);
    expect(after.followup_set).toHaveLength(1);
  });

  it('the file downloads through its URL: 302 to a presigned link with the same bytes', async () => {
    const { followup } = await newFollowup();
    const bytes = Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 31) % 256));
    const created = await attach(followup, 'blob.bin', bytes);
    const { redirect, target, bytes: got } = await download(created.file);
    expect(redirect.status).toBe(302);
    expect(target.status).toBe(200);
    expect(got.equals(bytes)).toBe(true);
    expect(created.size).toBe(300);
  });

  it("mime_type defaults to a type guessed from the name, not the part's Content-Type", async () => {
    const { followup } = await newFollowup();
    expect((await attach(followup, 'notes.txt', 'text', {}, 'application/x-whatever')).mime_type).toBe('text/plain');
    expect((await attach(followup, 'pixel.png', 'png', {}, null)).mime_type).toBe('image/png');
    expect((await attach(followup, 'no-extension', 'data', {}, 'text/plain')).mime_type).toBe(
      'application/octet-stream',
    );
    expect((await attach(followup, 'tool.exe', 'MZ')).mime_type).toBe('application/octet-stream');
  });

  it('filename, mime_type and size may be given; a given name is kept without its path', async () => {
    const { followup } = await newFollowup();
    const given = await attach(followup, 'upload.txt', 'twelve bytes', {
      filename: 'report.pdf',
      mime_type: 'application/x-report',
      size: 5,
    });
    expect(given).toMatchObject({ filename: 'report.pdf', mime_type: 'application/x-report', size: 5 });
    const guessed = await attach(followup, 'upload.txt', 'x', { filename: 'page.html' });
    expect(guessed).toMatchObject({ filename: 'page.html', mime_type: 'text/html', size: 1 });
    const pathless = await attach(followup, '../../etc/passwd.txt', 'x');
    expect(pathless.filename).toBe('passwd.txt');
  });

  it('the followup lists its attachments by filename', async () => {
    const { followup } = await newFollowup();
    for (const name of ['c.txt', 'a.txt', 'b.txt']) await attach(followup, name, name);
    expect((await followupOf(followup)).followupattachment_set.map((a: Json) => a.filename)).toEqual([
      'a.txt',
      'b.txt',
      'c.txt',
    ]);
  });

  it('works on any followup, not only the opening one', async () => {
    const { ticket } = await newFollowup();
    const fu = await call('POST', '/api/followups/', { json: { ticket: ticket.id, title: 't', comment: 'c' } });
    const created = await attach(fu.body.id, 'later.txt', 'later');
    expect(created.followup).toBe(fu.body.id);
    expect((await followupOf(fu.body.id)).followupattachment_set).toEqual([created]);
  });

  it('without a file gives {"file":["No file was submitted."]}, multipart or JSON', async () => {
    const { followup } = await newFollowup();
    const missing = { file: ['No file was submitted.'] };
    const formReply = await call('POST', '/api/followups-attachments/', multipart({ followup }));
    expect(formReply.status).toBe(400);
    expect(formReply.body).toEqual(missing);
    const jsonReply = await call('POST', '/api/followups-attachments/', { json: { followup } });
    expect(jsonReply.status).toBe(400);
    expect(jsonReply.body).toEqual(missing);
    const wrongField = await call(
      'POST',
      '/api/followups-attachments/',
      multipart({ followup }, [{ field: 'attachment', name: 'a.txt', content: 'x' }]),
    );
    expect(wrongField.body).toEqual(missing);
    expect((await followupOf(followup)).followupattachment_set).toEqual([]);
  });

  it('an empty file gives {"file":["The submitted file is empty."]}', async () => {
    const { followup } = await newFollowup();
    const reply = await call(
      'POST',
      '/api/followups-attachments/',
      multipart({ followup }, [{ field: 'file', name: 'empty.txt', content: '' }]),
    );
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ file: ['The submitted file is empty.'] });
    expect((await followupOf(followup)).followupattachment_set).toEqual([]);
  });

  it('two files in one request give 400 and store neither', async () => {
    const { followup } = await newFollowup();
    const reply = await call(
      'POST',
      '/api/followups-attachments/',
      multipart({ followup }, [
        { field: 'file', name: 'one.txt', content: 'one' },
        { field: 'file', name: 'two.txt', content: 'two' },
      ]),
    );
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      file: ['Only one file may be added at a time; send each file in a request of its own.'],
    });
    expect((await followupOf(followup)).followupattachment_set).toEqual([]);
  });

  it('a plain value for file is not a file', async () => {
    const { followup } = await newFollowup();
    const reply = await call('POST', '/api/followups-attachments/', { json: { followup, file: 'x' } });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ file: ['The submitted data was not a file. Check the encoding type on the form.'] });
  });

  it('followup is required and must exist', async () => {
    const file = [{ field: 'file', name: 'a.txt', content: 'x' }];
    const cases: [Record<string, string | number>, Json][] = [
      [{}, { followup: ['This field is required.'] }],
      [{ followup: 99999999 }, { followup: ['Invalid pk "99999999" - object does not exist.'] }],
      [{ followup: 'abc' }, { followup: ['Incorrect type. Expected pk value, received str.'] }],
    ];
    for (const [fields, errors] of cases) {
      const reply = await call('POST', '/api/followups-attachments/', multipart(fields, file));
      expect(reply.status, JSON.stringify(fields)).toBe(400);
      expect(reply.body).toEqual(errors);
    }
    const both = await call('POST', '/api/followups-attachments/', multipart({}));
    expect(both.body).toEqual({ followup: ['This field is required.'], file: ['No file was submitted.'] });
  });

  it('a followup that was deleted takes no more files', async () => {
    const { ticket } = await newFollowup();
    const fu = await call('POST', '/api/followups/', { json: { ticket: ticket.id, title: 't', comment: 'c' } });
    expect((await call('DELETE', `/api/followups/${fu.body.id}/`)).status).toBe(204);
    const reply = await call(
      'POST',
      '/api/followups-attachments/',
      multipart({ followup: fu.body.id }, [{ field: 'file', name: 'a.txt', content: 'x' }]),
    );
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ followup: [`Invalid pk "${fu.body.id}" - object does not exist.`] });
  });
});

describe('GET /api/followups-attachments/', () => {
  it('answers the paginated envelope of every attachment, by filename', async () => {
    const { followup } = await newFollowup();
    const prefix = unique('list-');
    const names = ['b', 'c', 'a'].map((s) => `${prefix}-${s}.txt`);
    const created = [];
    for (const name of names) created.push(await attach(followup, name, name));

    const mine: Json[] = [];
    for (let page = 1; ; page++) {
      const reply = await call('GET', `/api/followups-attachments/?page_size=100&page=${page}`);
      expect(reply.status, reply.text).toBe(200);
      expect(Object.keys(reply.body)).toEqual(['count', 'next', 'previous', 'results']);
      const filenames = reply.body.results.map((a: Json) => a.filename);
      expect(filenames).toEqual([...filenames].sort());
      for (const a of reply.body.results) expect(Object.keys(a)).toEqual(ATTACHMENT_KEYS);
      mine.push(...reply.body.results.filter((a: Json) => a.filename.startsWith(prefix)));
      if (!reply.body.next) break;
    }
    expect(mine).toEqual([created[2], created[0], created[1]]);
  });

  it('pages with links like every list', async () => {
    const { followup } = await newFollowup();
    await attach(followup, 'one.txt', '1');
    await attach(followup, 'two.txt', '2');
    const first = await call('GET', '/api/followups-attachments/?page_size=1');
    expect(first.status).toBe(200);
    expect(first.body.results).toHaveLength(1);
    expect(first.body.next).toBe(`${API}/api/followups-attachments/?page=2&page_size=1`);
    const second = await call('GET', '/api/followups-attachments/?page_size=1&page=2');
    expect(second.body.previous).toBe(`${API}/api/followups-attachments/?page_size=1`);
    expect((await call('GET', '/api/followups-attachments/?page=99999')).status).toBe(404);
  });
});

describe('/api/followups-attachments/{id}/', () => {
  it('GET answers the record, as the create did', async () => {
    const { followup } = await newFollowup();
    const created = await attach(followup, 'get.txt', 'get me');
    const reply = await call('GET', `/api/followups-attachments/${created.id}`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('allow')).toBe(DETAIL_ALLOW);
    expect(reply.body).toEqual(created);
  });

  it('an unknown or non-integer id gives 404', async () => {
    for (const path of ['/api/followups-attachments/99999999/', '/api/followups-attachments/x/']) {
      for (const method of ['GET', 'DELETE']) {
        const reply = await call(method, path);
        expect(reply.status, `${method} ${path}`).toBe(404);
        expect(reply.body).toEqual({ detail: 'Not found.' });
      }
    }
  });

  it('DELETE answers 204 and removes the record and its file; a second DELETE gives 404', async () => {
    const { ticket, followup } = await newFollowup();
    const keep = await attach(followup, 'keep.txt', 'keep');
    const gone = await attach(followup, 'gone.txt', 'gone');
    const location = (
      await fetch(gone.file, { headers: { authorization: ADMIN_AUTH }, redirect: 'manual' })
    ).headers.get('location')!;
    expect((await fetch(location)).status).toBe(200);

    const reply = await call('DELETE', `/api/followups-attachments/${gone.id}/`);
    expect(reply.status).toBe(204);
    expect(reply.text).toBe('');
    expect((await call('GET', `/api/followups-attachments/${gone.id}/`)).status).toBe(404);
    expect((await call('DELETE', `/api/followups-attachments/${gone.id}/`)).status).toBe(404);
    expect((await call('GET', new URL(gone.file).pathname)).status).toBe(404);
    expect((await fetch(location)).status).not.toBe(200);

    expect((await followupOf(followup)).followupattachment_set).toEqual([keep]);
    expect((await download(keep.file)).bytes.toString()).toBe('keep');
    expect((await call('GET', `/api/tickets/${ticket.id}/`)).body.followup_set[0].followupattachment_set).toEqual([
      keep,
    ]);
  });

  it('PUT and PATCH are not allowed', async () => {
    const { followup } = await newFollowup();
    const created = await attach(followup, 'fixed.txt', 'x');
    for (const method of ['PUT', 'PATCH']) {
      const reply = await call(method, `/api/followups-attachments/${created.id}/`, { json: { filename: 'y.txt' } });
      expect(reply.status).toBe(405);
      expect(reply.body).toEqual({ detail: `Method "${method}" not allowed.` });
      expect(reply.headers.get('allow')).toBe(DETAIL_ALLOW);
    }
    expect((await call('GET', `/api/followups-attachments/${created.id}/`)).body).toEqual(created);
  });

  it('deleting the ticket deletes the attachments added here', async () => {
    const { ticket, followup } = await newFollowup();
    const created = await attach(followup, 'with-ticket.txt', 'x');
    expect((await call('DELETE', `/api/tickets/${ticket.id}/`)).status).toBe(204);
    expect((await call('GET', `/api/followups-attachments/${created.id}/`)).status).toBe(404);
    expect((await call('GET', new URL(created.file).pathname)).status).toBe(404);
  });
});
