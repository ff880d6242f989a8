/** Idempotency-Key on POST: one effect per key, the first answer replayed, misuse refused. */
import { describe, expect, it } from 'vitest';
import { SECURITY_HEADERS, VALID_TICKET, call, listAll, multipart, unique, type Json } from './client';

const post = (path: string, json: unknown, key: string) =>
  call('POST', path, { json, headers: { 'idempotency-key': key } });
/**
 * Expects `count` tickets titled `title`. The list follows what the stream's consumer keeps, which may
 * lag a write on a loaded machine, and it is listed page by page while other files on the shared
 * runtime delete tickets: a deletion between two pages shifts the rest back, so a listing can skip one
 * (never show one twice). A listing only ever undercounts: it is listed again until `count` show (a
 * check that none exists lists three times), and then counted.
 */
async function expectTitled(title: string, count: number): Promise<void> {
  let found: Json[] = [];
  const titled = async () => (found = (await listAll()).filter((t) => t.title === title)).length;
  if (count === 0) for (let listing = 0; listing < 3 && found.length === 0; listing++) await titled();
  else await expect.poll(titled, { timeout: 20_000 }).toBeGreaterThanOrEqual(count);
  expect(found).toHaveLength(count);
}

describe('Idempotency-Key', () => {
  it('the same key and request answer the first response again, and create one ticket', async () => {
    const key = unique('key');
    const body = { ...VALID_TICKET, title: unique('idem') };
    const first = await post('/api/tickets/', body, key);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await post('/api/tickets/', body, key);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(again.headers.get('content-type')).toBe('application/json');
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(again.headers.get(name)).toBe(value);
    await expectTitled(body.title, 1);
  });

  it('a retry is the same request whatever its multipart boundary, JSON key order or spacing', async () => {
    const key = unique('key');
    const title = unique('idem-file');
    const upload = () => {
      // A new boundary per request, as every HTTP client makes one.
      const { body, contentType } = multipart({ ...VALID_TICKET, title }, [
        { field: 'attachment', name: 'log.txt', type: 'text/plain', content: 'the log' },
      ]);
      return call('POST', '/api/tickets/', { body, contentType, headers: { 'idempotency-key': key } });
    };
    const first = await upload();
    expect(first.status, first.text).toBe(201);
    const again = await upload();
    expect(again.status, again.text).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    await expectTitled(title, 1);
    // Other content under the same file name is another request.
    const { body, contentType } = multipart({ ...VALID_TICKET, title }, [
      { field: 'attachment', name: 'log.txt', type: 'text/plain', content: 'another log' },
    ]);
    expect(
      (await call('POST', '/api/tickets/', { body, contentType, headers: { 'idempotency-key': key } })).status,
    ).toBe(422);

    const jsonKey = unique('key');
    const jsonTitle = unique('idem-json');
    const headers = { 'idempotency-key': jsonKey };
    const ordered = { ...VALID_TICKET, title: jsonTitle };
    expect((await call('POST', '/api/tickets/', { json: ordered, headers })).status).toBe(201);
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(ordered).reverse()), null, 2);
    const replay = await call('POST', '/api/tickets/', { body: reordered, contentType: 'application/json', headers });
    expect(replay.status, replay.text).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    await expectTitled(jsonTitle, 1);
  });

  it('the same key with another request is a 422 and changes nothing', async () => {
    const key = unique('key');
    const title = unique('idem');
    expect((await post('/api/tickets/', { ...VALID_TICKET, title }, key)).status).toBe(201);
    const other = await post('/api/tickets/', { ...VALID_TICKET, title: `${title}-other` }, key);
    expect(other.status).toBe(422);
    expect(other.body).toEqual({ detail: 'This Idempotency-Key was already used with a different request.' });
    await expectTitled(`${title}-other`, 0);
  });

  it('concurrent duplicates create one ticket: the others are replays or 409 with Retry-After', async () => {
    const key = unique('key');
    const body = { ...VALID_TICKET, title: unique('race') };
    const replies = await Promise.all(Array.from({ length: 8 }, () => post('/api/tickets/', body, key)));
    const statuses = replies.map((r) => r.status);
    expect(
      statuses.every((s) => s === 201 || s === 409),
      statuses.join(),
    ).toBe(true);
    expect(new Set(replies.filter((r) => r.status === 201).map((r) => r.body.id)).size).toBe(1);
    for (const r of replies.filter((r) => r.status === 409)) expect(r.headers.get('retry-after')).toBe('1');
    await expectTitled(body.title, 1);
    // Once the first has finished, every retry is its replay.
    const later = await post('/api/tickets/', body, key);
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBe('true');
  });

  it("keeps a client error as the key's answer; keys are per operation", async () => {
    const key = unique('key');
    const bad = await post('/api/tickets/', { queue: 1 }, key);
    expect(bad.status).toBe(400);
    const again = await post('/api/tickets/', { queue: 1 }, key);
    expect(again.status).toBe(400);
    expect(again.text).toBe(bad.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    // The same key on another operation is another key.
    const ticket = await post('/api/tickets/', { ...VALID_TICKET, title: unique('idem') }, unique('key'));
    const followup = await post('/api/followups/', { ticket: ticket.body.id, title: 't', comment: 'c' }, key);
    expect(followup.status).toBe(201);
  });

  it('refuses a malformed key; requests without one are unaffected', async () => {
    expect((await post('/api/tickets/', VALID_TICKET, 'x'.repeat(256))).status).toBe(400);
    expect((await post('/api/tickets/', VALID_TICKET, 'with space')).body).toEqual({
      detail: 'Idempotency-Key must be 1 to 255 visible ASCII characters.',
    });
    const title = unique('plain');
    for (let i = 0; i < 2; i++)
      expect((await call('POST', '/api/tickets/', { json: { ...VALID_TICKET, title } })).status).toBe(201);
    await expectTitled(title, 2);
  });
});

describe('Idempotency-Key on a path without POST', () => {
  it('answers 405 as without the key (the key is claimed and given back, never a 500)', async () => {
    const ticket = (await post('/api/tickets/', { ...VALID_TICKET, title: unique('idem-405') }, unique('key'))).body;
    const reply = await post(`/api/tickets/${ticket.id}/`, { title: 'x' }, unique('key'));
    expect(reply.status, reply.text).toBe(405);
    expect(reply.body).toEqual({ detail: 'Method "POST" not allowed.' });
  });
});
