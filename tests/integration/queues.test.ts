/**
 * The queues admin API (superusers): /api/queues/ and /api/queues/{id}/.
 *
 * On a runtime of its own: whether a queue is in use is read from the ticket counts, which follow
 * the table's stream, so the tests wait for the counts to hold their tickets (the list's `count`,
 * exact here since no other file writes tickets) before asserting on a delete.
 */
import { describe, expect, it } from 'vitest';
import { unique, type CallOptions, type Json } from './client';
import { useOwnRuntime } from './own-runtime';

const own = useOwnRuntime();
const call = (method: string, path: string, options?: CallOptions) => own.api.call(method, path, options);
const createTicket = (overrides?: Record<string, unknown>) => own.api.createTicket(overrides);
const createUser = (overrides?: Record<string, string>) => own.api.createUser(overrides);
const countsSettled = () => own.api.countsSettled();

const REQUIRED = ['This field is required.'];
const SLUG_MESSAGE = 'Enter a valid "slug" consisting of letters, numbers, underscores or hyphens.';
const DUPLICATE = { slug: ['queue with this slug already exists.'] };
const QUEUE_KEYS = [
  'id',
  'title',
  'slug',
  'email_address',
  'new_ticket_cc',
  'updated_ticket_cc',
  'disabled_mail',
  'escalate_days',
  'allow_public_submission',
  'locale',
];
const NO_MAIL_SETTINGS = {
  email_address: null,
  new_ticket_cc: null,
  updated_ticket_cc: null,
  disabled_mail: [],
  escalate_days: null,
  allow_public_submission: false,
  locale: null,
};

async function createQueue(overrides: Record<string, unknown> = {}): Promise<Json> {
  const slug = unique('q');
  const reply = await call('POST', '/api/queues/', { json: { title: `Queue ${slug}`, slug, ...overrides } });
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

/** Every queue (all pages). */
async function allQueues(): Promise<Json[]> {
  const queues: Json[] = [];
  for (let page = 1; ; page++) {
    const reply = await call('GET', `/api/queues/?page_size=100&page=${page}`);
    expect(reply.status, reply.text).toBe(200);
    queues.push(...reply.body.results);
    if (!reply.body.next) return queues;
  }
}

describe('creating and reading queues', () => {
  it('POST answers 201 with id, title, slug and the mail settings; GET answers the same', async () => {
    const slug = unique('q');
    const reply = await call('POST', '/api/queues/', { json: { title: 'Billing', slug } });
    expect(reply.status).toBe(201);
    expect(reply.headers.get('location')).toBeNull();
    expect(Object.keys(reply.body)).toEqual(QUEUE_KEYS);
    expect(reply.body).toEqual({ id: reply.body.id, title: 'Billing', slug, ...NO_MAIL_SETTINGS });
    expect(reply.body.id).toBeGreaterThan(1);
    const got = await call('GET', `/api/queues/${reply.body.id}/`);
    expect(got.status).toBe(200);
    expect(got.text).toBe(reply.text);
  });

  it('the list is paginated and holds queue 1 and the new queues', async () => {
    const a = await createQueue();
    const b = await createQueue();
    const page = await call('GET', '/api/queues/?page_size=1');
    expect(page.status).toBe(200);
    expect(Object.keys(page.body)).toEqual(['count', 'next', 'previous', 'results']);
    expect(page.body.results).toHaveLength(1);
    expect(page.body.next).toBe(`${own.runtime.url}/api/queues/?page=2&page_size=1`);
    const queues = await allQueues();
    expect(queues).toEqual(
      expect.arrayContaining([
        { id: 1, title: expect.any(String), slug: expect.any(String), ...NO_MAIL_SETTINGS },
        a,
        b,
      ]),
    );
    for (const q of queues) expect(Object.keys(q)).toEqual(QUEUE_KEYS);
  });

  it('a new queue takes tickets, and its slug shows in user_tickets', async () => {
    const queue = await createQueue({ title: 'Sales' });
    const user = await createUser();
    const ticket = (await createTicket({ queue: queue.id, submitter_email: user.email })).body;
    expect(ticket.queue).toBe(queue.id);
    const mine = await call('GET', `/api/user_tickets/${ticket.id}/`, { auth: user.auth });
    expect(mine.body.ticket).toBe(`${ticket.id} [${queue.slug}-${ticket.id}]`);
    expect(mine.body.queue).toEqual({ title: 'Sales', id: queue.id });
  });

  it('{} requires title and slug; a bad slug and a long title are refused', async () => {
    const empty = await call('POST', '/api/queues/', { json: {} });
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual({ title: REQUIRED, slug: REQUIRED });
    const bad = await call('POST', '/api/queues/', { json: { title: 'x'.repeat(101), slug: 'not a slug' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ title: ['Ensure this field has no more than 100 characters.'], slug: [SLUG_MESSAGE] });
  });

  it('a slug in use gives 400 {"slug":["queue with this slug already exists."]}', async () => {
    const queue = await createQueue();
    const again = await call('POST', '/api/queues/', { json: { title: 'Other', slug: queue.slug } });
    expect(again.status).toBe(400);
    expect(again.text).toBe(JSON.stringify(DUPLICATE));
    const one = await call('POST', '/api/queues/', { json: { title: 'Other', slug: 'support' } });
    expect(one.status).toBe(400);
    expect(one.body).toEqual(DUPLICATE);
    expect((await allQueues()).filter((q) => q.slug === queue.slug)).toHaveLength(1);
  });

  it('form bodies work too', async () => {
    const slug = unique('q');
    const reply = await call('POST', '/api/queues/', {
      body: `title=Form+queue&slug=${slug}`,
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ title: 'Form queue', slug });
  });

  it('an unknown or non-integer id gives 404', async () => {
    for (const path of ['/api/queues/999999/', '/api/queues/abc/']) {
      for (const method of ['GET', 'PATCH', 'DELETE']) {
        const reply = await call(method, path, method === 'PATCH' ? { json: { title: 'x' } } : {});
        expect(reply.status, `${method} ${path}`).toBe(404);
        expect(reply.body).toEqual({ detail: 'Not found.' });
      }
    }
  });
});

describe('changing queues', () => {
  it('PATCH changes the title and the slug; the old slug is free again', async () => {
    const queue = await createQueue();
    const slug = unique('q');
    const patched = await call('PATCH', `/api/queues/${queue.id}/`, { json: { title: 'Renamed', slug } });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ id: queue.id, title: 'Renamed', slug, ...NO_MAIL_SETTINGS });
    expect((await call('GET', `/api/queues/${queue.id}`)).body).toEqual(patched.body);
    const reuse = await createQueue({ slug: queue.slug });
    expect(reuse.slug).toBe(queue.slug);
  });

  it('PATCH with only a title keeps the slug; the same slug again is not a duplicate', async () => {
    const queue = await createQueue();
    const titled = await call('PATCH', `/api/queues/${queue.id}/`, { json: { title: 'Only title' } });
    expect(titled.body).toEqual({ ...queue, title: 'Only title' });
    const same = await call('PATCH', `/api/queues/${queue.id}/`, { json: { slug: queue.slug } });
    expect(same.status).toBe(200);
    expect(same.body).toEqual({ ...queue, title: 'Only title' });
  });

  it('PATCH to a slug in use gives 400 and changes nothing', async () => {
    const a = await createQueue();
    const b = await createQueue();
    const reply = await call('PATCH', `/api/queues/${b.id}/`, { json: { title: 'Changed?', slug: a.slug } });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(DUPLICATE);
    expect((await call('GET', `/api/queues/${b.id}/`)).body).toEqual(b);
  });

  it('PATCH validates like POST: blank or bad values are refused', async () => {
    const queue = await createQueue();
    const reply = await call('PATCH', `/api/queues/${queue.id}/`, { json: { title: '', slug: 'no way' } });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ title: ['This field may not be blank.'], slug: [SLUG_MESSAGE] });
  });

  it('PUT is not allowed', async () => {
    const queue = await createQueue();
    const reply = await call('PUT', `/api/queues/${queue.id}/`, { json: { title: 't', slug: unique('q') } });
    expect(reply.status).toBe(405);
    expect(reply.body).toEqual({ detail: 'Method "PUT" not allowed.' });
    expect(reply.headers.get('allow')).toBe('GET, PATCH, DELETE, HEAD, OPTIONS');
  });
});

describe("a queue's mail settings", () => {
  it(
    'POST and PATCH set the sender address, the CC lists (normalised) and the ' + 'kinds switched off; blank clears',
    async () => {
      const queue = await createQueue({
        email_address: 'support@example.com',
        new_ticket_cc: ' a@example.com,b@example.com ,',
        disabled_mail: ['updated_cc', 'newticket_cc', 'updated_cc'],
      });
      expect(queue).toMatchObject({
        email_address: 'support@example.com',
        new_ticket_cc: 'a@example.com, b@example.com',
        updated_ticket_cc: null,
        disabled_mail: ['newticket_cc', 'updated_cc'],
      });
      const patched = await call('PATCH', `/api/queues/${queue.id}/`, {
        json: { updated_ticket_cc: 'c@example.com', new_ticket_cc: '', email_address: null, disabled_mail: [] },
      });
      expect(patched.status, patched.text).toBe(200);
      expect(patched.body).toEqual({ ...queue, ...NO_MAIL_SETTINGS, updated_ticket_cc: 'c@example.com' });
      expect((await call('GET', `/api/queues/${queue.id}/`)).body).toEqual(patched.body);
      const titled = await call('PATCH', `/api/queues/${queue.id}/`, { json: { title: 'Kept settings' } });
      expect(titled.body).toEqual({ ...patched.body, title: 'Kept settings' });
    },
  );

  it('escalate_days: a whole number of days from 0, or null; PATCH sets and clears it', async () => {
    const queue = await createQueue({ escalate_days: '3' });
    expect(queue.escalate_days).toBe(3);
    expect((await call('PATCH', `/api/queues/${queue.id}/`, { json: { escalate_days: -1 } })).body).toEqual({
      escalate_days: ['Ensure this value is greater than or equal to 0.'],
    });
    expect((await call('PATCH', `/api/queues/${queue.id}/`, { json: { escalate_days: 'soon' } })).body).toEqual({
      escalate_days: ['A valid integer is required.'],
    });
    expect((await call('GET', `/api/queues/${queue.id}/`)).body.escalate_days).toBe(3);
    expect(
      (await call('PATCH', `/api/queues/${queue.id}/`, { json: { escalate_days: null } })).body.escalate_days,
    ).toBeNull();
  });

  it("locale: upstream's language code (up to 10 characters), kept as sent; blank or null clears it", async () => {
    const queue = await createQueue({ locale: 'pt-br' });
    expect(queue.locale).toBe('pt-br');
    expect((await call('GET', `/api/queues/${queue.id}/`)).body.locale).toBe('pt-br');
    const patch = (locale: unknown) => call('PATCH', `/api/queues/${queue.id}/`, { json: { locale } });
    expect((await patch('fr_FR')).body.locale).toBe('fr_FR');
    expect((await patch('')).body.locale).toBeNull();
    expect((await patch('de')).body.locale).toBe('de');
    expect((await patch(null)).body.locale).toBeNull();
    const shape = ['Enter a language code such as "en", "fr", "de" or "pt-br".'];
    for (const [bad, message] of [
      ['french!', shape],
      ['en us', shape],
      ['x', shape],
      ['en-verylongtag', ['Ensure this field has no more than 10 characters.']],
      [12, shape],
    ] as const) {
      const reply = await patch(bad);
      expect(reply.status, String(bad)).toBe(400);
      expect(reply.body).toEqual({ locale: message });
    }
    const created = await call('POST', '/api/queues/', { json: { title: 'Bad', slug: unique('q'), locale: 'fr fr' } });
    expect(created.status).toBe(400);
    expect(created.body).toEqual({ locale: shape });
    expect((await call('GET', `/api/queues/${queue.id}/`)).body.locale).toBeNull();
  });

  it('a form body sends disabled_mail as one comma-separated value', async () => {
    const slug = unique('q');
    const reply = await call('POST', '/api/queues/', {
      body: `title=Form&slug=${slug}&disabled_mail=closed_cc,resolved_cc&updated_ticket_cc=x%40example.com`,
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body).toMatchObject({
      disabled_mail: ['resolved_cc', 'closed_cc'],
      updated_ticket_cc: 'x@example.com',
    });
  });

  it(
    'bad addresses, line breaks (header injection), long lists and unknown kinds are 400s naming the field, and ' +
      'change nothing',
    async () => {
      const queue = await createQueue();
      const bad = await call('PATCH', `/api/queues/${queue.id}/`, {
        json: {
          title: 'Evil\r\nBcc: victim@example.com',
          email_address: 'support@example.com\nBcc: x@example.com',
          new_ticket_cc: 'ok@example.com, not-an-address',
          updated_ticket_cc: 'a@example.com\r\nBcc: b@example.com',
          disabled_mail: ['newticket_cc', 'no_such_kind'],
        },
      });
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual({
        title: ['Line breaks are not allowed.'],
        email_address: ['Enter a valid email address.'],
        new_ticket_cc: ['Enter valid e-mail addresses separated by commas. "not-an-address" is not one.'],
        updated_ticket_cc: ['Line breaks are not allowed.'],
        disabled_mail: ['"no_such_kind" is not a valid choice.'],
      });
      const long = await call('PATCH', `/api/queues/${queue.id}/`, {
        json: { new_ticket_cc: Array.from({ length: 20 }, (_, i) => `person${i}@example.com`).join(',') },
      });
      expect(long.status).toBe(400);
      expect(long.body).toEqual({ new_ticket_cc: ['Ensure this field has no more than 200 characters.'] });
      const notList = await call('PATCH', `/api/queues/${queue.id}/`, { json: { disabled_mail: 5 } });
      expect(notList.body).toEqual({ disabled_mail: ['Expected a list of items but got type "int".'] });
      expect((await call('GET', `/api/queues/${queue.id}/`)).body).toEqual(queue);
    },
  );
});

describe('deleting queues', () => {
  it('an unused queue is deleted: 204, then 404; its slug is free again', async () => {
    const queue = await createQueue();
    const reply = await call('DELETE', `/api/queues/${queue.id}/`);
    expect(reply.status).toBe(204);
    expect(reply.text).toBe('');
    expect((await call('GET', `/api/queues/${queue.id}/`)).status).toBe(404);
    expect((await call('DELETE', `/api/queues/${queue.id}/`)).status).toBe(404);
    expect((await allQueues()).map((q) => q.id)).not.toContain(queue.id);
    await createQueue({ slug: queue.slug });
  });

  it('a queue that tickets use gives 409 with a detail; after deleting its tickets the DELETE works', async () => {
    const queue = await createQueue();
    const first = (await createTicket({ queue: queue.id })).body;
    const second = (await createTicket({ queue: queue.id })).body;
    await countsSettled();
    const refused = await call('DELETE', `/api/queues/${queue.id}/`);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ detail: expect.any(String) });
    expect((await call('GET', `/api/queues/${queue.id}/`)).status).toBe(200);
    expect((await call('GET', `/api/tickets/${first.id}/`)).status).toBe(200);

    expect((await call('DELETE', `/api/tickets/${first.id}/`)).status).toBe(204);
    await countsSettled();
    expect((await call('DELETE', `/api/queues/${queue.id}/`)).status).toBe(409);
    expect((await call('DELETE', `/api/tickets/${second.id}/`)).status).toBe(204);
    await countsSettled();
    expect((await call('DELETE', `/api/queues/${queue.id}/`)).status).toBe(204);
    expect((await call('GET', `/api/queues/${queue.id}/`)).status).toBe(404);
  });

  it('a ticket moved to another queue frees the first one', async () => {
    const from = await createQueue();
    const ticket = (await createTicket({ queue: from.id })).body;
    await countsSettled();
    expect((await call('DELETE', `/api/queues/${from.id}/`)).status).toBe(409);
    expect((await call('PATCH', `/api/tickets/${ticket.id}/`, { json: { queue: 1 } })).status).toBe(200);
    // Queue use is counted from the stream: the move shows within a moment (docs/data-model.md).
    await expect
      .poll(async () => (await call('DELETE', `/api/queues/${from.id}/`)).status, { timeout: 5000, interval: 50 })
      .toBe(204);
  });

  it('tickets cannot be created in or moved to a deleted queue', async () => {
    const queue = await createQueue();
    expect((await call('DELETE', `/api/queues/${queue.id}/`)).status).toBe(204);
    const missing = { queue: [`Invalid pk "${queue.id}" - object does not exist.`] };
    const created = await call('POST', '/api/tickets/', {
      json: { queue: queue.id, title: 't', description: 'd', submitter_email: 'a@example.com' },
    });
    expect(created.status).toBe(400);
    expect(created.body).toEqual(missing);
    const ticket = (await createTicket()).body;
    const moved = await call('PATCH', `/api/tickets/${ticket.id}/`, { json: { queue: queue.id } });
    expect(moved.status).toBe(400);
    expect(moved.body).toEqual(missing);
  });
});

describe('deleting a queue while tickets go into it (issue 24: no ticket is ever left in a deleted queue)', () => {
  const TICKET = { title: 't', description: 'd', submitter_email: 'race@example.com' };

  /**
   * Sends `writes` at once, and the DELETE of `queue` once `after` of them have answered (0: with
   * them), so that it meets the others in flight; then checks what each answered against what is
   * stored: a DELETE that answered 204 had no write succeed into the queue, and every ticket that
   * went into it is there, in a queue that exists.
   */
  async function race(queue: Json, writes: (() => Promise<{ status: number; body: Json }>)[], after: number) {
    let answered = 0;
    let sendDelete!: () => void;
    const deleteSent = new Promise<void>((resolve) => (sendDelete = resolve));
    const deleted = deleteSent.then(() => call('DELETE', `/api/queues/${queue.id}/`));
    if (after === 0) sendDelete();
    const answers = await Promise.all(
      writes.map((write) =>
        write().then((answer) => {
          if (++answered === after) sendDelete();
          return answer;
        }),
      ),
    );
    const { status, body } = await deleted;
    expect([204, 409], body?.detail).toContain(status);
    for (const a of answers) expect([200, 201, 400], JSON.stringify(a.body)).toContain(a.status);
    const into = answers.filter((a) => a.status !== 400);
    if (status === 204) {
      expect(into).toEqual([]);
      expect((await call('GET', `/api/queues/${queue.id}/`)).status).toBe(404);
    } else {
      expect((await call('GET', `/api/queues/${queue.id}/`)).status).toBe(200);
    }
    for (const a of answers.filter((a) => a.status === 400))
      expect(a.body).toEqual({ queue: [`Invalid pk "${queue.id}" - object does not exist.`] });
    for (const a of into) expect((await call('GET', `/api/tickets/${a.body.id}/`)).body.queue).toBe(queue.id);
    return { deleted: status, into: into.length };
  }

  it('a DELETE right after a create in the queue answers 409, without waiting for the counts', async () => {
    const queue = await createQueue();
    await createTicket({ queue: queue.id });
    const refused = await call('DELETE', `/api/queues/${queue.id}/`);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      detail: 'This queue still has tickets: move or delete them before deleting the queue.',
    });
    expect((await call('GET', `/api/queues/${queue.id}/`)).status).toBe(200);
  });

  it(
    'creates and a DELETE at once, repeated: either the DELETE answers 409 or ' + 'no create got into the queue',
    async () => {
      for (const after of [0, 1, 2, 4, 0, 1, 6, 11]) {
        const queue = await createQueue();
        const creates = Array.from(
          { length: 12 },
          () => () => call('POST', '/api/tickets/', { json: { queue: queue.id, ...TICKET } }),
        );
        const outcome = await race(queue, creates, after);
        // Sent once a create had answered, the DELETE met its ticket, which the counts may not hold yet.
        if (after > 0) expect(outcome.deleted).toBe(409);
      }
    },
  );

  it('PATCHes moving tickets into the queue and a DELETE at once: the same', async () => {
    const tickets: number[] = [];
    for (let i = 0; i < 8; i++) tickets.push((await createTicket()).body.id);
    for (let round = 0; round < 5; round++) {
      const queue = await createQueue();
      const moves = tickets.map((id) => () => call('PATCH', `/api/tickets/${id}/`, { json: { queue: queue.id } }));
      const after = [0, 1, 2, 4, 7][round]!;
      const outcome = await race(queue, moves, after);
      if (after > 0) expect(outcome.deleted).toBe(409);
      if (outcome.deleted === 409) {
        // Move them back out, so that the next round's queue starts with none of them in it.
        for (const id of tickets)
          expect((await call('PATCH', `/api/tickets/${id}/`, { json: { queue: 1 } })).status).toBe(200);
      }
    }
  });
});

describe('who may manage queues', () => {
  it('a plain user gets 403 and an anonymous caller 401 on every queue operation', async () => {
    const queue = await createQueue();
    const user = await createUser();
    for (const [method, path] of [
      ['GET', '/api/queues/'],
      ['POST', '/api/queues/'],
      ['GET', `/api/queues/${queue.id}/`],
      ['PATCH', `/api/queues/${queue.id}/`],
      ['DELETE', `/api/queues/${queue.id}/`],
    ] as const) {
      const body = method === 'POST' || method === 'PATCH' ? { json: { title: 'x', slug: unique('q') } } : {};
      const plain = await call(method, path, { ...body, auth: user.auth });
      expect(plain.status, `${method} ${path}`).toBe(403);
      expect(plain.body).toEqual({ detail: 'You do not have permission to perform this action.' });
      const anonymous = await call(method, path, { ...body, auth: null });
      expect(anonymous.status, `${method} ${path}`).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toBe('Basic realm="api"');
    }
    expect((await call('GET', `/api/queues/${queue.id}/`)).body).toEqual(queue);
  });
});
