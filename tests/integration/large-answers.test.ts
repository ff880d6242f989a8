/**
 * Answers past Lambda's response limit (shared/middleware/large-answers.ts): the local runtime fails them as Lambda
 * does, so a route that answered one would answer 500 here too. A ticket whose followups hold long text, and a page
 * holding it, are answered 303 to a parked copy, which any HTTP client follows to the very answer. On a runtime of
 * its own: the shared one's lists stay small for the files that page through them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_AUTH, unique, type Json } from './client';
import { useOwnRuntime } from './own-runtime';
import { LAMBDA_RESPONSE_LIMIT_BYTES } from '../../shared/api/function-limits';

const own = useOwnRuntime();

const FOLLOWUPS = 20;
// Quotes, as long mail threads hold: each is escaped in the answer's JSON, and again in Lambda's payload around it.
const COMMENT = '"'.repeat(80_000);

let ticket: number;
let submitter: string;

beforeAll(async () => {
  submitter = `${unique('large')}@example.com`;
  ticket = (await own.api.createTicket({ title: 'Long thread', submitter_email: submitter })).body.id;
  for (let n = 0; n < FOLLOWUPS; n++) {
    const reply = await own.api.call('POST', '/api/followups/', {
      json: { ticket, title: `Reply ${n}`, comment: COMMENT },
    });
    expect(reply.status, reply.text).toBe(201);
  }
}, 120_000);

/** The parked answer the 303 points to: read with nothing but its link, as a client following the redirect. */
async function parked(reply: { status: number; headers: Headers; body: Json }): Promise<{ type: string; body: Json }> {
  expect(reply.status, JSON.stringify(reply.body)).toBe(303);
  const location = reply.headers.get('location')!;
  expect(new URL(location).origin).not.toBe(new URL(own.api.url).origin);
  expect(reply.headers.get('cache-control')).toBe('no-store');
  const bytes = Number(/The answer is (\d+) bytes, more than a function may return/.exec(reply.body.detail)?.[1]);
  expect(bytes).toBeGreaterThan(LAMBDA_RESPONSE_LIMIT_BYTES);
  const target = await fetch(location);
  expect(target.status).toBe(200);
  return { type: target.headers.get('content-type') ?? '', body: (await target.json()) as Json };
}

const expectWhole = (found: Json) => {
  expect(found.id).toBe(ticket);
  expect(found.followup_set).toHaveLength(FOLLOWUPS + 1);
  expect(found.followup_set.slice(1).every((f: Json) => f.comment === COMMENT)).toBe(true);
};

describe('an answer too large for a function to return', () => {
  it('a ticket is answered 303 to its parked copy, whole and JSON', async () => {
    const reply = await own.api.call('GET', `/api/tickets/${ticket}/`);
    expect(reply.headers.get('etag')).toMatch(/^"/);
    const { type, body } = await parked(reply);
    expect(type).toBe('application/json');
    expectWhole(body);
  });

  it('a client following redirects, with credentials, gets the ticket itself (they stay with the API)', async () => {
    const followed = await fetch(`${own.api.url}/api/tickets/${ticket}/`, { headers: { authorization: ADMIN_AUTH } });
    expect(followed.status).toBe(200);
    expectWhole((await followed.json()) as Json);
  });

  it('a HEAD is answered as it is: it has no body', async () => {
    const head = await own.api.call('HEAD', `/api/tickets/${ticket}/`);
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
  });

  it('a write answered by the ticket is made and its answer parked: the 303 points to the new state', async () => {
    const reply = await own.api.call('PATCH', `/api/tickets/${ticket}/`, { json: { title: 'Long thread, renamed' } });
    const { body } = await parked(reply);
    expect(body.title).toBe('Long thread, renamed');
    expectWhole(body);
  });

  it('a page holding the ticket is parked whole: the envelope and its links', async () => {
    const path = `/api/tickets/?submitter_email=${encodeURIComponent(submitter)}`;
    // The filtered list follows the table's stream.
    await expect
      .poll(async () => (await own.api.call('GET', path)).status, { timeout: 30_000, interval: 100 })
      .toBe(303);
    const { body } = await parked(await own.api.call('GET', path));
    expect(body).toMatchObject({ next: null, previous: null });
    expect(body.results).toHaveLength(1);
    expectWhole(body.results[0]);
  });

  it('a short answer of the same route is answered as ever', async () => {
    const small = await own.api.createTicket({ title: 'Short thread' });
    const reply = await own.api.call('GET', `/api/tickets/${small.body.id}/`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('location')).toBeNull();
  });
});
