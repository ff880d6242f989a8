/**
 * ETag, If-Match and If-None-Match on /api/tickets/{id}/ (RFC 9110 §8.8.3, §13.1). The tag must
 * change whenever what GET shows changes, and a write with a stale If-Match must change nothing.
 */
import { describe, expect, it } from 'vitest';
import { call, createTicket, form, type Json } from './client';

const PRECONDITION_FAILED = { detail: 'Precondition failed: the ticket has changed since the given ETag.' };

async function read(id: number): Promise<{ etag: string; body: Json }> {
  const reply = await call('GET', `/api/tickets/${id}/`);
  expect(reply.status).toBe(200);
  return { etag: reply.headers.get('etag')!, body: reply.body };
}

describe('ETag', () => {
  it('GET, HEAD, the 201 of a create and the 200 of a PATCH carry a strong tag that GET then repeats', async () => {
    const created = await createTicket();
    const tag = created.headers.get('etag');
    expect(tag).toMatch(/^"[^"]+"$/);
    const id = created.body.id;
    expect((await read(id)).etag).toBe(tag);
    const head = await call('HEAD', `/api/tickets/${id}/`);
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe(tag);
    expect(head.text).toBe('');

    const patched = await call('PATCH', `/api/tickets/${id}/`, { json: { priority: 1 } });
    expect(patched.status).toBe(200);
    expect(patched.headers.get('etag')).not.toBe(tag);
    const after = await read(id);
    expect(after.etag).toBe(patched.headers.get('etag'));
    expect(after.body).toEqual(patched.body);
    const put = await call('PUT', `/api/tickets/${id}/`, {
      json: { ...created.body, followup_set: undefined, title: 'put' },
    });
    expect(put.status).toBe(200);
    expect(put.headers.get('etag')).not.toBe(after.etag);
    expect((await read(id)).etag).toBe(put.headers.get('etag'));
  });

  it('changes with every change of the body: followups and attachments added, edited, deleted', async () => {
    const id = (await createTicket()).body.id;
    const seen = new Set<string>();
    const step = async (what: string) => {
      const { etag } = await read(id);
      expect(seen.has(etag), `${what}: the tag did not change`).toBe(false);
      seen.add(etag);
    };
    await step('created');
    const followup = await call('POST', '/api/followups/', {
      form: form({ ticket: id, title: 'note', comment: 'hello' }),
    });
    expect(followup.status).toBe(201);
    await step('followup added');
    await call('POST', '/api/followups/', {
      form: form({ ticket: id, title: 'close', comment: 'done', new_status: 3 }),
    });
    await step('followup that resolves the ticket');
    expect((await call('PATCH', `/api/followups/${followup.body.id}/`, { json: { comment: 'edited' } })).status).toBe(
      200,
    );
    await step('followup edited');
    const attachment = await call('POST', '/api/followups-attachments/', {
      form: form({ followup: followup.body.id }, [{ field: 'file', name: 'a.txt', type: 'text/plain', content: 'A' }]),
    });
    expect(attachment.status).toBe(201);
    await step('attachment added');
    expect((await call('DELETE', `/api/followups-attachments/${attachment.body.id}/`)).status).toBe(204);
    await step('attachment deleted');
    expect((await call('DELETE', `/api/followups/${followup.body.id}/`)).status).toBe(204);
    await step('followup deleted');
  });

  it('changes when a followup moves in or out of the ticket', async () => {
    const a = (await createTicket()).body.id;
    const b = (await createTicket()).body.id;
    const before = [(await read(a)).etag, (await read(b)).etag];
    const followup = await call('POST', '/api/followups/', {
      form: form({ ticket: a, title: 'moving', comment: 'x' }),
    });
    const afterAdd = (await read(a)).etag;
    expect((await call('PATCH', `/api/followups/${followup.body.id}/`, { json: { ticket: b } })).status).toBe(200);
    expect((await read(a)).etag).not.toBe(afterAdd);
    expect((await read(b)).etag).not.toBe(before[1]);
  });
});

describe('If-Match on PUT, PATCH and DELETE', () => {
  it('the current tag, a list holding it, or * lets the write through', async () => {
    const id = (await createTicket()).body.id;
    let { etag } = await read(id);
    let reply = await call('PATCH', `/api/tickets/${id}/`, { json: { priority: 2 }, headers: { 'if-match': etag } });
    expect(reply.status).toBe(200);
    etag = reply.headers.get('etag')!;
    reply = await call('PATCH', `/api/tickets/${id}/`, {
      json: { priority: 3 },
      headers: { 'if-match': `"1-nothing", ${etag}` },
    });
    expect(reply.status).toBe(200);
    reply = await call('PATCH', `/api/tickets/${id}/`, { json: { priority: 4 }, headers: { 'if-match': '*' } });
    expect(reply.status).toBe(200);
    expect((await read(id)).body.priority).toBe(4);
  });

  it('a stale tag answers 412 and changes nothing (PATCH, PUT, DELETE)', async () => {
    const created = await createTicket();
    const id = created.body.id;
    const stale = created.headers.get('etag')!;
    await call('PATCH', `/api/tickets/${id}/`, { json: { title: 'moved on' } });
    const now = await read(id);
    for (const [method, json] of [
      ['PATCH', { priority: 1 }],
      ['PUT', { queue: 1, title: 'x', description: 'y', submitter_email: 'a@example.com' }],
      ['DELETE', undefined],
    ] as const) {
      const reply = await call(method, `/api/tickets/${id}/`, { json, headers: { 'if-match': stale } });
      expect(reply.status, method).toBe(412);
      expect(reply.body).toEqual(PRECONDITION_FAILED);
      expect(reply.headers.get('etag')).toBeNull();
      expect(await read(id)).toEqual(now);
    }
  });

  it('a weak tag never matches (strong comparison)', async () => {
    const id = (await createTicket()).body.id;
    const current = (await read(id)).etag;
    const reply = await call('PATCH', `/api/tickets/${id}/`, {
      json: { priority: 1 },
      headers: { 'if-match': `W/${current}` },
    });
    expect(reply.status).toBe(412);
  });

  it('DELETE with the current tag deletes; with * too', async () => {
    const a = (await createTicket()).body.id;
    expect((await call('DELETE', `/api/tickets/${a}/`, { headers: { 'if-match': (await read(a)).etag } })).status).toBe(
      204,
    );
    expect((await call('GET', `/api/tickets/${a}/`)).status).toBe(404);
    const b = (await createTicket()).body.id;
    expect((await call('DELETE', `/api/tickets/${b}/`, { headers: { 'if-match': '*' } })).status).toBe(204);
  });

  it('the precondition is checked before the body: a stale tag with an invalid body is 412', async () => {
    const created = await createTicket();
    await call('PATCH', `/api/tickets/${created.body.id}/`, { json: { priority: 2 } });
    const reply = await call('PATCH', `/api/tickets/${created.body.id}/`, {
      json: { priority: 99 },
      headers: { 'if-match': created.headers.get('etag')! },
    });
    expect(reply.status).toBe(412);
  });

  it('a missing ticket is 404 whatever If-Match says; a malformed If-Match is 400', async () => {
    for (const tag of ['*', '"1-x"']) {
      const reply = await call('PATCH', '/api/tickets/987654321/', {
        json: { priority: 1 },
        headers: { 'if-match': tag },
      });
      expect(reply.status).toBe(404);
    }
    const created = await createTicket();
    const reply = await call('PATCH', `/api/tickets/${created.body.id}/`, {
      json: { priority: 1 },
      headers: { 'if-match': 'no-quotes' },
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ detail: 'Malformed If-Match header: expected "*" or a list of quoted entity tags.' });
    expect((await read(created.body.id)).etag).toBe(created.headers.get('etag'));
  });
});

describe('If-None-Match on GET', () => {
  it('answers 304 with the tag and no body when it names the current tag; 200 otherwise', async () => {
    const created = await createTicket();
    const id = created.body.id;
    const tag = created.headers.get('etag')!;
    for (const value of [tag, `W/${tag}`, `"other", ${tag}`, '*']) {
      const reply = await call('GET', `/api/tickets/${id}/`, { headers: { 'if-none-match': value } });
      expect(reply.status, value).toBe(304);
      expect(reply.headers.get('etag')).toBe(tag);
      expect(reply.text).toBe('');
    }
    await call('PATCH', `/api/tickets/${id}/`, { json: { on_hold: true } });
    const reply = await call('GET', `/api/tickets/${id}/`, { headers: { 'if-none-match': tag } });
    expect(reply.status).toBe(200);
    expect(reply.body.on_hold).toBe(true);
    expect(reply.headers.get('etag')).not.toBe(tag);
  });
});
