/**
 * Attachment files: the `file` URL, its presigned download, and cleanup on delete (docs/upstream.md: where we differ,
 * i; responses).
 */
import { describe, expect, it } from 'vitest';
import { ADMIN_AUTH, API, VALID_TICKET, call, createUser, download, form, type Json } from './client';

async function ticketWithAttachment(
  name: string,
  content: Buffer | string,
  type = 'application/octet-stream',
): Promise<{ ticket: Json; attachment: Json }> {
  const reply = await call('POST', '/api/tickets/', {
    form: form(VALID_TICKET, [{ field: 'attachment', name, type, content }]),
  });
  expect(reply.status, reply.text).toBe(201);
  return { ticket: reply.body, attachment: reply.body.followup_set[0].followupattachment_set[0] };
}

/** Every byte value, so any text re-encoding would show. */
const BINARY = Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 7 + 3) % 256));

describe('attachment downloads', () => {
  it('the file URL answers 302 to a presigned link that serves the exact bytes as an attachment', async () => {
    const { ticket, attachment } = await ticketWithAttachment('data.bin', BINARY);
    expect(attachment.file).toBe(`${API}/api/tickets/${ticket.id}/attachments/${attachment.id}`);
    const { redirect, target, bytes } = await download(attachment.file);
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).not.toContain(API);
    expect(target.status).toBe(200);
    expect(bytes.equals(BINARY)).toBe(true);
    expect(target.headers.get('content-disposition')).toMatch(/^attachment;.*filename="data\.bin"/);
  });

  it('the presigned link is fetched without credentials and serves the recorded mime type', async () => {
    const { attachment } = await ticketWithAttachment('page.html', '<script>alert(1)</script>', 'text/html');
    const redirect = await fetch(attachment.file, { headers: { authorization: ADMIN_AUTH }, redirect: 'manual' });
    expect(redirect.status).toBe(302);
    const target = await fetch(redirect.headers.get('location')!);
    expect(target.status).toBe(200);
    expect(target.headers.get('content-type')).toBe('text/html');
    expect(target.headers.get('content-disposition')).toMatch(/^attachment;/);
    expect(await target.text()).toBe('<script>alert(1)</script>');
  });

  it('a non-ASCII file name is kept and offered as UTF-8 in the download', async () => {
    const { attachment } = await ticketWithAttachment('résumé ✓.txt', 'bonjour', 'text/plain');
    expect(attachment.filename).toBe('résumé ✓.txt');
    const { target, bytes } = await download(attachment.file);
    expect(bytes.toString()).toBe('bonjour');
    expect(target.headers.get('content-disposition')).toContain(
      `filename*=UTF-8''${encodeURIComponent('résumé ✓.txt')}`,
    );
  });

  it('a path in the uploaded file name is dropped', async () => {
    const { attachment } = await ticketWithAttachment('../../etc/passwd', 'not really');
    expect(attachment.filename).toBe('passwd');
    expect((await download(attachment.file)).bytes.toString()).toBe('not really');
  });

  it('every followup attachment downloads its own bytes', async () => {
    const ticket = (await call('POST', '/api/tickets/', { json: VALID_TICKET })).body;
    const files = [
      { name: 'b.bin', content: BINARY.subarray(0, 100) },
      { name: 'a.txt', content: Buffer.from('first file\n') },
      { name: 'c.jpg', content: Buffer.alloc(3000, 0xff) },
    ];
    const reply = await call('POST', '/api/followups/', {
      form: form(
        { ticket: ticket.id, title: 'files', comment: 'several' },
        files.map((f) => ({
          field: 'attachments',
          name: f.name,
          type: 'application/octet-stream',
          content: f.content,
        })),
      ),
    });
    expect(reply.status).toBe(201);
    for (const a of reply.body.followupattachment_set) {
      const sent = files.find((f) => f.name === a.filename)!;
      expect(a.size).toBe(sent.content.length);
      expect((await download(a.file)).bytes.equals(sent.content), a.filename).toBe(true);
    }
  });

  it('the file URL also answers with a trailing slash', async () => {
    const { attachment } = await ticketWithAttachment('slash.txt', 'slash', 'text/plain');
    expect((await download(`${attachment.file}/`)).bytes.toString()).toBe('slash');
  });

  it('the file URL needs credentials: 401 without, 403 for non-staff', async () => {
    const { attachment } = await ticketWithAttachment('secret.txt', 'secret', 'text/plain');
    const anonymous = await fetch(attachment.file, { redirect: 'manual' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Basic realm="api"');
    expect(anonymous.headers.get('location')).toBeNull();
    const user = await createUser();
    const plain = await fetch(attachment.file, { headers: { authorization: user.auth }, redirect: 'manual' });
    expect(plain.status).toBe(403);
    expect(plain.headers.get('location')).toBeNull();
  });

  it('an unknown attachment, or one of another ticket, gives 404', async () => {
    const first = await ticketWithAttachment('one.txt', 'one', 'text/plain');
    const second = await ticketWithAttachment('two.txt', 'two', 'text/plain');
    for (const path of [
      `/api/tickets/${first.ticket.id}/attachments/999999999`,
      `/api/tickets/${second.ticket.id}/attachments/${first.attachment.id}`,
      `/api/tickets/${first.ticket.id}/attachments/abc`,
      `/api/tickets/999999999/attachments/${first.attachment.id}`,
    ]) {
      const reply = await call('GET', path);
      expect(reply.status, path).toBe(404);
      expect(reply.body).toEqual({ detail: 'Not found.' });
    }
  });

  it('the file URL answers only GET: other methods give 405', async () => {
    const { attachment } = await ticketWithAttachment('m.txt', 'm', 'text/plain');
    const reply = await call('DELETE', new URL(attachment.file).pathname);
    expect(reply.status).toBe(405);
    expect(reply.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });
});

describe('deleting a ticket deletes its files', () => {
  it('after the delete the old file URL gives 404 and the stored object is gone', async () => {
    const { ticket, attachment } = await ticketWithAttachment('gone.txt', 'soon gone', 'text/plain');
    const location = (
      await fetch(attachment.file, { headers: { authorization: ADMIN_AUTH }, redirect: 'manual' })
    ).headers.get('location')!;
    expect((await fetch(location)).status).toBe(200);
    expect((await call('DELETE', `/api/tickets/${ticket.id}/`)).status).toBe(204);
    const reply = await call('GET', new URL(attachment.file).pathname);
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ detail: 'Not found.' });
    expect((await fetch(location)).status).not.toBe(200);
  });

  it('also deletes the files of followups and of merged tickets', async () => {
    const { ticket: target } = await ticketWithAttachment('target.txt', 'target', 'text/plain');
    const { ticket: merged, attachment: mergedFile } = await ticketWithAttachment('merged.txt', 'merged', 'text/plain');
    const fu = await call('POST', '/api/followups/', {
      form: form({ ticket: target.id, title: 'f', comment: 'c' }, [
        { field: 'attachments', name: 'fu.txt', type: 'text/plain', content: 'fu' },
      ]),
    });
    const followupFile = fu.body.followupattachment_set[0];
    await call('PATCH', `/api/tickets/${merged.id}/`, { json: { merged_to: target.id } });
    const locations = await Promise.all(
      [mergedFile, followupFile].map(async (a) =>
        (await fetch(a.file, { headers: { authorization: ADMIN_AUTH }, redirect: 'manual' })).headers.get('location')!,
      ),
    );
    expect((await call('DELETE', `/api/tickets/${target.id}/`)).status).toBe(204);
    for (const a of [mergedFile, followupFile]) expect((await call('GET', new URL(a.file).pathname)).status).toBe(404);
    for (const location of locations) expect((await fetch(location)).status).not.toBe(200);
  });
});
