/**
 * Per-queue permissions (HELPDESK_ENABLE_PER_QUEUE_STAFF_PERMISSION, upstream's helpdesk/user.py):
 * every route × {superuser, staff in the ticket's queue, staff not in it, requester}, with the
 * setting off and on, over HTTP. The routes come from the route table (a new one fails the first
 * test until it is written here); what each caller must get is a literal table, never read from the
 * code that enforces it. Then a limited staff member's lists: exact counts, the union of their queues
 * and their own tickets.
 *
 * One runtime in this process (the setting is read at each request, so the test turns it on and off),
 * with fixtures made once: queue A (the ticket's), queue B, a public queue P; `inA` works in A,
 * `notInA` in B.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { routes } from '../../shared/api/routes';
import { ADMIN_AUTH, ADMIN_ID, clientFor, multipart, type Json, type Reply } from './client';
import { startInProcessRuntime, type InProcessRuntime } from './in-process-runtime';
import { startReceiver, type Receiver } from './webhook-receiver';

const SETTING = 'HELPDESK_ENABLE_PER_QUEUE_STAFF_PERMISSION';
const CALLERS = ['superuser', 'inA', 'notInA', 'requester'] as const;
type Caller = (typeof CALLERS)[number];

let runtime: InProcessRuntime;
let receiver: Receiver;
let api: ReturnType<typeof clientFor>;
const auth = {} as Record<Caller, string>;
const ids = {} as Record<
  'A' | 'B' | 'P' | 'inA' | 'notInA' | 'ticket' | 'followup' | 'attachment' | 'delivery',
  number
>;
let delivery = '';

const ok = (reply: Reply, status = 200): Json => {
  expect(reply.status, reply.text).toBe(status);
  return reply.body;
};
const admin = (method: string, path: string, json?: unknown) => api.call(method, path, { auth: ADMIN_AUTH, json });

async function staffMember(queues: number[]): Promise<{ id: number; auth: string }> {
  const user = await api.createUser();
  const id = (ok(await admin('GET', `/api/users/?email=${encodeURIComponent(user.email)}`)).results as Json[])[0].id;
  ok(await admin('PATCH', `/api/users/${id}/`, { is_staff: true, queues }));
  return { id, auth: user.auth };
}

const queue = async (slug: string, extra: Json = {}) =>
  ok(await admin('POST', '/api/queues/', { title: slug, slug, ...extra }), 201).id as number;

const ticketInQueue = async (queueId: number, extra: Json = {}) =>
  ok(
    await admin('POST', '/api/tickets/', {
      queue: queueId,
      title: 't',
      description: 'd',
      submitter_email: 'someone@example.com',
      ...extra,
    }),
    201,
  ).id as number;

const fileOn = (followup: number) => multipart({ followup }, [{ field: 'file', name: 'a.txt', content: 'abc' }]);

beforeAll(async () => {
  receiver = await startReceiver();
  runtime = await startInProcessRuntime({
    HELPDESK_EVENTS_SETTLE_MS: '0',
    HELPDESK_SEARCH: 'pglite',
    HELPDESK_NEW_TICKET_WEBHOOK_URLS: `${receiver.url}/new`,
    HELPDESK_WEBHOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  });
  api = clientFor(runtime.url);
  ids.A = await queue('queue-a');
  ids.B = await queue('queue-b');
  ids.P = await queue('queue-p', { allow_public_submission: true });
  const inA = await staffMember([ids.A]);
  const notInA = await staffMember([ids.B]);
  Object.assign(ids, { inA: inA.id, notInA: notInA.id });
  Object.assign(auth, {
    superuser: ADMIN_AUTH,
    inA: inA.auth,
    notInA: notInA.auth,
    requester: (await api.createUser()).auth,
  });
  ids.ticket = await ticketInQueue(ids.A);
  ids.followup = (ok(await admin('GET', `/api/tickets/${ids.ticket}/`)).followup_set as Json[])[0].id;
  const file = fileOn(ids.followup);
  ids.attachment = ok(
    await api.call('POST', '/api/followups-attachments/', { body: file.body, contentType: file.contentType }),
    201,
  ).id;
  ok(await admin('POST', `/api/tickets/${ids.ticket}/cc/`, { email: 'cc@example.com' }), 201);
  ok(await admin('PATCH', `/api/followups/${ids.followup}/`, { time_spent: '00:30:00' }));
  // The stream's work: the ticket's listing records, its events and its webhook delivery.
  delivery = await vi.waitFor(
    async () => {
      const found = (ok(await admin('GET', '/api/webhook-deliveries/')).results as Json[]).find(
        (d) => d.ticket === ids.ticket,
      );
      if (!found) throw new Error('no delivery yet');
      return found.id as string;
    },
    { timeout: 20_000, interval: 100 },
  );
  await vi.waitFor(
    async () => {
      const events = ok(await admin('GET', '/api/events/?limit=1000')).results as Json[];
      if (!events.some((e) => e.ticket === ids.ticket)) throw new Error('no event yet');
    },
    { timeout: 20_000, interval: 100 },
  );
  await vi.waitFor(
    async () => {
      const totals = ok(await admin('GET', '/api/reports/time-spent/?by=ticket')).results as Json[];
      if (!totals.some((t) => t.ticket === ids.ticket)) throw new Error('no time counted yet');
    },
    { timeout: 20_000, interval: 100 },
  );
}, 120_000);

afterAll(async () => {
  delete process.env[SETTING];
  await runtime?.stop();
  await receiver?.stop();
});

/** A request; `prepare` makes, as superuser, what the request takes away (so each caller has one). */
interface Request {
  method?: string;
  path: string;
  json?: unknown;
  file?: boolean;
  headers?: Record<string, string>;
  prepare?: () => Promise<string>;
}

const STALE = { 'if-match': '"stale"' };
const T = () => `/api/tickets/${ids.ticket}`;
const NONE = '99999999';

/** What each route is sent: the ticket in queue A, or what is of it. */
const REQUESTS: Record<string, () => Request> = {
  'GET /api': () => ({ path: '/api/' }),
  'GET /api/openapi.json': () => ({ path: '/api/openapi.json' }),
  'GET /api/docs': () => ({ path: '/api/docs/' }),
  'GET /api/docs/{asset}': () => ({ path: '/api/docs/no-such-asset' }),
  'GET /api/tickets': () => ({ path: '/api/tickets/?page_size=100' }),
  'POST /api/tickets': () => ({
    path: '/api/tickets/',
    json: { queue: ids.A, title: 't', description: 'd', submitter_email: 'x@example.com' },
  }),
  'GET /api/tickets/{id}': () => ({ path: `${T()}/` }),
  // A stale If-Match answers 412 once the ticket is found (and seen): nothing changes.
  'PUT /api/tickets/{id}': () => ({ path: `${T()}/`, json: {}, headers: STALE }),
  'PATCH /api/tickets/{id}': () => ({ path: `${T()}/`, json: {}, headers: STALE }),
  'DELETE /api/tickets/{id}': () => ({ path: `${T()}/`, headers: STALE }),
  'GET /api/tickets/{id}/attachments/{attachmentId}': () => ({ path: `${T()}/attachments/${ids.attachment}/` }),
  'GET /api/tickets/{id}/cc': () => ({ path: `${T()}/cc/` }),
  'POST /api/tickets/{id}/cc': () => ({ path: `${T()}/cc/`, json: {} }),
  'DELETE /api/tickets/{id}/cc/{ccId}': () => ({
    path: '',
    prepare: async () =>
      `${T()}/cc/${ok(await admin('POST', `${T()}/cc/`, { email: `${Math.random()}@example.com` }), 201).id}/`,
  }),
  'GET /api/tickets/{id}/emails': () => ({ path: `${T()}/emails/` }),
  'GET /api/followups': () => ({ path: '/api/followups/?page_size=1000' }),
  'POST /api/followups': () => ({ path: '/api/followups/', json: { ticket: ids.ticket, title: 't', comment: 'c' } }),
  'GET /api/followups/{id}': () => ({ path: `/api/followups/${ids.followup}/` }),
  'PUT /api/followups/{id}': () => ({ path: `/api/followups/${ids.followup}/`, json: { ticket: 'x' } }),
  'PATCH /api/followups/{id}': () => ({ path: `/api/followups/${ids.followup}/`, json: { public: true } }),
  'DELETE /api/followups/{id}': () => ({
    path: '',
    prepare: async () => {
      const followup = { ticket: ids.ticket, title: 't', comment: 'c' };
      return `/api/followups/${ok(await admin('POST', '/api/followups/', followup), 201).id}/`;
    },
  }),
  'GET /api/followups-attachments': () => ({ path: '/api/followups-attachments/?page_size=1000' }),
  'POST /api/followups-attachments': () => ({ path: '/api/followups-attachments/', file: true }),
  'GET /api/followups-attachments/{id}': () => ({ path: `/api/followups-attachments/${ids.attachment}/` }),
  'DELETE /api/followups-attachments/{id}': () => ({
    path: '',
    prepare: async () => {
      const file = fileOn(ids.followup);
      const made = await api.call('POST', '/api/followups-attachments/', {
        body: file.body,
        contentType: file.contentType,
      });
      return `/api/followups-attachments/${ok(made, 201).id}/`;
    },
  }),
  'POST /api/users': () => ({ path: '/api/users/', json: {} }),
  'GET /api/users': () => ({ path: '/api/users/' }),
  'GET /api/users/me': () => ({ path: '/api/users/me/' }),
  'GET /api/users/{id}': () => ({ path: `/api/users/${ids.inA}/` }),
  'PATCH /api/users/{id}': () => ({ path: `/api/users/${ids.inA}/`, json: {} }),
  'GET /api/user_tickets': () => ({ path: '/api/user_tickets/' }),
  'GET /api/user_tickets/{id}': () => ({ path: `/api/user_tickets/${ids.ticket}/` }),
  'GET /api/tokens': () => ({ path: '/api/tokens/' }),
  'POST /api/tokens': () => ({ path: '/api/tokens/', json: {} }),
  'DELETE /api/tokens/{id}': () => ({ path: `/api/tokens/${NONE}/` }),
  'GET /api/queues': () => ({ path: '/api/queues/' }),
  'POST /api/queues': () => ({ path: '/api/queues/', json: {} }),
  'GET /api/queues/{id}': () => ({ path: `/api/queues/${ids.A}/` }),
  'PATCH /api/queues/{id}': () => ({ path: `/api/queues/${ids.A}/`, json: {} }),
  'DELETE /api/queues/{id}': () => ({ path: `/api/queues/${NONE}/` }),
  'GET /api/escalation-exclusions': () => ({ path: '/api/escalation-exclusions/' }),
  'POST /api/escalation-exclusions': () => ({ path: '/api/escalation-exclusions/', json: {} }),
  'GET /api/escalation-exclusions/{id}': () => ({ path: `/api/escalation-exclusions/${NONE}/` }),
  'DELETE /api/escalation-exclusions/{id}': () => ({ path: `/api/escalation-exclusions/${NONE}/` }),
  'GET /api/ignored-senders': () => ({ path: '/api/ignored-senders/' }),
  'POST /api/ignored-senders': () => ({ path: '/api/ignored-senders/', json: {} }),
  'GET /api/ignored-senders/{id}': () => ({ path: `/api/ignored-senders/${NONE}/` }),
  'DELETE /api/ignored-senders/{id}': () => ({ path: `/api/ignored-senders/${NONE}/` }),
  'GET /api/mail/suppressions': () => ({ path: '/api/mail/suppressions/' }),
  'DELETE /api/mail/suppressions/{address}': () => ({ path: '/api/mail/suppressions/nobody%40example.com/' }),
  'GET /api/mail/templates': () => ({ path: '/api/mail/templates/' }),
  'GET /api/mail/templates/{kind}': () => ({ path: '/api/mail/templates/no_such_kind/' }),
  'PUT /api/mail/templates/{kind}': () => ({ path: '/api/mail/templates/no_such_kind/', json: {} }),
  'DELETE /api/mail/templates/{kind}': () => ({ path: '/api/mail/templates/no_such_kind/' }),
  'GET /api/custom-fields': () => ({ path: '/api/custom-fields/' }),
  'POST /api/custom-fields': () => ({ path: '/api/custom-fields/', json: {} }),
  'GET /api/custom-fields/{name}': () => ({ path: '/api/custom-fields/no-such-field/' }),
  'PATCH /api/custom-fields/{name}': () => ({ path: '/api/custom-fields/no-such-field/', json: {} }),
  'DELETE /api/custom-fields/{name}': () => ({ path: '/api/custom-fields/no-such-field/' }),
  'GET /api/webhook-deliveries': () => ({ path: '/api/webhook-deliveries/?page_size=100' }),
  'GET /api/webhook-deliveries/{id}': () => ({ path: `/api/webhook-deliveries/${delivery}/` }),
  'POST /api/webhook-deliveries/{id}/redeliver': () => ({
    path: `/api/webhook-deliveries/${delivery}/redeliver/`,
  }),
  'GET /api/events': () => ({ path: '/api/events/?limit=1000' }),
  'GET /api/reports/time-spent': () => ({ path: '/api/reports/time-spent/?by=ticket' }),
  'GET /api/mail/problems': () => ({ path: '/api/mail/problems/' }),
  'POST /api/mail/problems/{id}/release': () => ({ path: `/api/mail/problems/${NONE}/release/` }),
  'GET /api/webhooks': () => ({ path: '/api/webhooks/' }),
  'POST /api/webhooks': () => ({ path: '/api/webhooks/', json: {} }),
  'GET /api/webhooks/{id}': () => ({ path: `/api/webhooks/${NONE}/` }),
  'PATCH /api/webhooks/{id}': () => ({ path: `/api/webhooks/${NONE}/`, json: {} }),
  'DELETE /api/webhooks/{id}': () => ({ path: `/api/webhooks/${NONE}/` }),
  'POST /api/webhooks/{id}/rotate-secret': () => ({ path: `/api/webhooks/${NONE}/rotate-secret/`, json: {} }),
  'POST /api/webhooks/{id}/ping': () => ({ path: `/api/webhooks/${NONE}/ping/`, json: {} }),
};

/**
 * An answer: its status, `listed` / `unlisted` (200, and the fixture's ticket, followup, file,
 * event or delivery is in the results or not), or `sent` (a redelivery taken: 202, or 409 while the
 * one before it is under way).
 */
type Outcome = number | 'listed' | 'unlisted' | 'sent';
/** Per caller (superuser, inA, notInA, requester), the setting off; `on` where the setting changes it. */
type Expected = { off: [Outcome, Outcome, Outcome, Outcome]; on?: [Outcome, Outcome, Outcome, Outcome] };

const ADMIN_ONLY = (allowed: Outcome): Expected => ({ off: [allowed, 403, 403, 403] });
const STAFF = (allowed: Outcome): Expected => ({ off: [allowed, allowed, allowed, 403] });
/** Of the ticket in queue A: staff not in A are refused (as the ticket were absent) once the setting is on. */
const OF_TICKET = (allowed: Outcome, refused: Outcome): Expected => ({
  off: [allowed, allowed, allowed, 403],
  on: [allowed, allowed, refused, 403],
});

const EXPECTED: Record<string, Expected> = {
  'GET /api': { off: [200, 200, 200, 200] },
  'GET /api/openapi.json': { off: [200, 200, 200, 200] },
  'GET /api/docs': { off: [200, 200, 200, 200] },
  'GET /api/docs/{asset}': { off: [404, 404, 404, 404] },
  'GET /api/tickets': OF_TICKET('listed', 'unlisted'),
  'POST /api/tickets': OF_TICKET(201, 400),
  'GET /api/tickets/{id}': OF_TICKET(200, 404),
  'PUT /api/tickets/{id}': OF_TICKET(412, 404),
  'PATCH /api/tickets/{id}': OF_TICKET(412, 404),
  'DELETE /api/tickets/{id}': OF_TICKET(412, 404),
  'GET /api/tickets/{id}/attachments/{attachmentId}': OF_TICKET(302, 404),
  'GET /api/tickets/{id}/cc': OF_TICKET(200, 404),
  'POST /api/tickets/{id}/cc': OF_TICKET(400, 404),
  'DELETE /api/tickets/{id}/cc/{ccId}': OF_TICKET(204, 404),
  'GET /api/tickets/{id}/emails': OF_TICKET(200, 404),
  'GET /api/followups': OF_TICKET('listed', 'unlisted'),
  'POST /api/followups': OF_TICKET(201, 400),
  'GET /api/followups/{id}': OF_TICKET(200, 404),
  'PUT /api/followups/{id}': OF_TICKET(400, 404),
  'PATCH /api/followups/{id}': OF_TICKET(200, 404),
  'DELETE /api/followups/{id}': OF_TICKET(204, 404),
  'GET /api/followups-attachments': OF_TICKET('listed', 'unlisted'),
  'POST /api/followups-attachments': OF_TICKET(201, 400),
  'GET /api/followups-attachments/{id}': OF_TICKET(200, 404),
  'DELETE /api/followups-attachments/{id}': OF_TICKET(204, 404),
  'POST /api/users': STAFF(400),
  'GET /api/users': STAFF(200),
  'GET /api/users/me': { off: [200, 200, 200, 200] },
  'GET /api/users/{id}': STAFF(200),
  'PATCH /api/users/{id}': ADMIN_ONLY(200),
  'GET /api/user_tickets': { off: [200, 200, 200, 200] },
  'GET /api/user_tickets/{id}': { off: [404, 404, 404, 404] },
  'GET /api/tokens': STAFF(200),
  'POST /api/tokens': STAFF(201),
  'DELETE /api/tokens/{id}': STAFF(404),
  'GET /api/queues': ADMIN_ONLY(200),
  'POST /api/queues': ADMIN_ONLY(400),
  'GET /api/queues/{id}': ADMIN_ONLY(200),
  'PATCH /api/queues/{id}': ADMIN_ONLY(200),
  'DELETE /api/queues/{id}': ADMIN_ONLY(404),
  'GET /api/escalation-exclusions': ADMIN_ONLY(200),
  'POST /api/escalation-exclusions': ADMIN_ONLY(400),
  'GET /api/escalation-exclusions/{id}': ADMIN_ONLY(404),
  'DELETE /api/escalation-exclusions/{id}': ADMIN_ONLY(404),
  'GET /api/ignored-senders': ADMIN_ONLY(200),
  'POST /api/ignored-senders': ADMIN_ONLY(400),
  'GET /api/ignored-senders/{id}': ADMIN_ONLY(404),
  'DELETE /api/ignored-senders/{id}': ADMIN_ONLY(404),
  'GET /api/mail/suppressions': ADMIN_ONLY(200),
  'DELETE /api/mail/suppressions/{address}': ADMIN_ONLY(404),
  'GET /api/mail/templates': ADMIN_ONLY(200),
  'GET /api/mail/templates/{kind}': ADMIN_ONLY(404),
  'PUT /api/mail/templates/{kind}': ADMIN_ONLY(404),
  'DELETE /api/mail/templates/{kind}': ADMIN_ONLY(404),
  'GET /api/custom-fields': ADMIN_ONLY(200),
  'POST /api/custom-fields': ADMIN_ONLY(400),
  'GET /api/custom-fields/{name}': ADMIN_ONLY(404),
  'PATCH /api/custom-fields/{name}': ADMIN_ONLY(404),
  'DELETE /api/custom-fields/{name}': ADMIN_ONLY(404),
  'GET /api/webhook-deliveries': OF_TICKET('listed', 'unlisted'),
  'GET /api/webhook-deliveries/{id}': OF_TICKET(200, 404),
  'POST /api/webhook-deliveries/{id}/redeliver': OF_TICKET('sent', 404),
  'GET /api/events': OF_TICKET('listed', 'unlisted'),
  'GET /api/reports/time-spent': OF_TICKET('listed', 'unlisted'),
  'GET /api/mail/problems': ADMIN_ONLY(200),
  'POST /api/mail/problems/{id}/release': ADMIN_ONLY(404),
  'GET /api/webhooks': ADMIN_ONLY(200),
  'POST /api/webhooks': ADMIN_ONLY(400),
  'GET /api/webhooks/{id}': ADMIN_ONLY(404),
  'PATCH /api/webhooks/{id}': ADMIN_ONLY(404),
  'DELETE /api/webhooks/{id}': ADMIN_ONLY(404),
  'POST /api/webhooks/{id}/rotate-secret': ADMIN_ONLY(404),
  'POST /api/webhooks/{id}/ping': ADMIN_ONLY(404),
};

/** Whether a list's results hold the fixture of its route. */
function lists(route: string, body: Json): boolean {
  const results = body.results as Json[];
  if (route === 'GET /api/followups') return results.some((r) => r.id === ids.followup);
  if (route === 'GET /api/followups-attachments') return results.some((r) => r.id === ids.attachment);
  if (route === 'GET /api/tickets') return results.some((r) => r.id === ids.ticket);
  return results.some((r) => r.ticket === ids.ticket);
}

async function outcomeOf(route: string, who: Caller): Promise<string> {
  const request = REQUESTS[route]!();
  const [method] = route.split(' ');
  const path = request.prepare ? await request.prepare() : request.path;
  const file = request.file ? fileOn(ids.followup) : undefined;
  const reply = await api.call(request.method ?? method!, path, {
    auth: auth[who],
    ...(request.json !== undefined ? { json: request.json } : {}),
    ...(file ? { body: file.body, contentType: file.contentType } : {}),
    ...(request.headers ? { headers: request.headers } : {}),
  });
  const listed = reply.status === 200 && typeof reply.body?.results === 'object';
  return listed ? `${reply.status} ${lists(route, reply.body) ? 'listed' : 'unlisted'}` : `${reply.status}`;
}

const shown = (outcome: Outcome): string[] =>
  outcome === 'listed' || outcome === 'unlisted' ? [`200 ${outcome}`] : outcome === 'sent' ? ['202', '409'] : [];

it('the table has every route of the route table, and only those', () => {
  const table = routes.map((r) => `${r.method} ${r.path}`).sort();
  expect(Object.keys(EXPECTED).sort()).toEqual(table);
  expect(Object.keys(REQUESTS).sort()).toEqual(table);
});

describe.each([
  ['off', 'false'],
  ['on', 'true'],
] as const)('with the setting %s', (setting, value) => {
  beforeAll(() => {
    process.env[SETTING] = value;
  });

  it.each(Object.keys(EXPECTED))('%s', async (route) => {
    const expected = (setting === 'on' && EXPECTED[route]!.on) || EXPECTED[route]!.off;
    for (const [i, who] of CALLERS.entries()) {
      const outcome = await outcomeOf(route, who);
      const want = expected[i]!;
      const accepted = typeof want === 'number' ? [String(want)] : shown(want);
      // A list answers with its status and whether the fixture is in it; other answers by their status alone.
      expect(accepted, `${who}: ${route} answered ${outcome}`).toContain(
        typeof want === 'number' ? outcome.split(' ')[0] : outcome,
      );
    }
  });
});

describe("a limited staff member's ticket list", () => {
  const made = {} as Record<'C' | 'D' | 'c1' | 'c2' | 'c3' | 'd1' | 'd3' | 'p1', number>;
  let limited: { id: number; auth: string };
  const list = async (query: string) => {
    const body = ok(await api.call('GET', `/api/tickets/${query}`, { auth: limited.auth }));
    return { count: body.count as number | null, ids: (body.results as Json[]).map((t) => t.id as number).sort() };
  };

  beforeAll(async () => {
    process.env[SETTING] = 'true';
    const [C, D] = [await queue('queue-c'), await queue('queue-d')];
    const ticketIn = (queueId: number, extra: Json = {}) => ticketInQueue(queueId, { title: 'wombat', ...extra });
    limited = await staffMember([C]);
    Object.assign(made, {
      C,
      D,
      c1: await ticketIn(C),
      c2: await ticketIn(C),
      c3: await ticketIn(C, { assigned_to: limited.id }),
      d1: await ticketIn(D),
      d3: await ticketIn(D, { assigned_to: limited.id }),
      p1: await ticketIn(ids.P),
    });
    ok(await admin('PATCH', `/api/tickets/${made.c2}/`, { status: 4 }));
  });

  it('holds their queues, the public ones and their own tickets elsewhere, with an exact count', async () => {
    const visible = [made.c1, made.c2, made.c3, made.d3, made.p1].sort();
    const open = { count: 4, ids: [made.c1, made.c3, made.d3, made.p1].sort() };
    // The listings and counts follow the table's stream: waited for until they hold every ticket and the last
    // change (c2 closed), which the whole list alone does not show.
    await expect
      .poll(async () => [await list('?page_size=100'), await list('?status=1&page_size=100')], { timeout: 20_000 })
      .toEqual([{ count: 5, ids: visible }, open]);
    expect(await list('?ordering=-created&page_size=100')).toEqual({ count: 5, ids: visible });
    expect(await list(`?assigned_to=${limited.id}`)).toEqual({ count: 2, ids: [made.c3, made.d3].sort() });
    // A queue not theirs: only their own tickets in it; one of theirs: all of it.
    expect(await list(`?queue=${made.D}`)).toEqual({ count: 1, ids: [made.d3] });
    expect(await list(`?queue=${made.C}&ordering=modified`)).toEqual({
      count: 3,
      ids: [made.c1, made.c2, made.c3].sort(),
    });
    expect(await list(`?assigned_to=none&status=1`)).toEqual({ count: 2, ids: [made.c1, made.p1].sort() });
  });

  it('searches what it holds: their queues, the public ones, their own tickets', async () => {
    const found = async (query: string) => {
      const body = ok(await api.call('GET', `/api/tickets/?search=wombat${query}`, { auth: limited.auth }));
      return { count: body.count, ids: (body.results as Json[]).map((t) => t.id as number).sort() };
    };
    const visible = [made.c1, made.c2, made.c3, made.d3, made.p1].sort();
    await expect.poll(() => found(''), { timeout: 20_000 }).toEqual({ count: 5, ids: visible });
    expect(await found(`&queue=${made.D}`)).toEqual({ count: 1, ids: [made.d3] });
    expect((await api.call('GET', '/api/tickets/?search=wombat')).body.count).toBe(6);
  });

  it('writes only into queues and tickets it may see: 400 on the field, as a missing pk', async () => {
    const created = await api.call('POST', '/api/tickets/', {
      auth: limited.auth,
      json: { queue: made.D, title: 't', description: 'd', submitter_email: 'x@example.com' },
    });
    expect([created.status, created.body]).toEqual([
      400,
      { queue: [`Invalid pk "${made.D}" - object does not exist.`] },
    ]);
    const moved = await api.call('PATCH', `/api/tickets/${made.c1}/`, { auth: limited.auth, json: { queue: made.D } });
    expect([moved.status, moved.body]).toEqual([400, { queue: [`Invalid pk "${made.D}" - object does not exist.`] }]);
    const merged = await api.call('PATCH', `/api/tickets/${made.c1}/`, {
      auth: limited.auth,
      json: { merged_to: made.d1 },
    });
    expect([merged.status, merged.body]).toEqual([
      400,
      { merged_to: [`Invalid pk "${made.d1}" - object does not exist.`] },
    ]);
    // Their own ticket in a queue not theirs keeps its queue; a public queue is theirs to use.
    ok(
      await api.call('PUT', `/api/tickets/${made.d3}/`, {
        auth: limited.auth,
        json: { queue: made.D, title: 'wombat', description: 'd', submitter_email: 'someone@example.com' },
      }),
    );
    ok(await api.call('PATCH', `/api/tickets/${made.c1}/`, { auth: limited.auth, json: { queue: ids.P } }));
    expect((await admin('GET', `/api/tickets/${made.c1}/`)).body.queue).toBe(ids.P);
  });

  it('pages by cursor through every ticket it holds, each once', async () => {
    const seen: number[] = [];
    let path: string | null = `${runtime.url}/api/tickets/?page_size=2`;
    while (path) {
      const body = ok(await api.call('GET', path.slice(runtime.url.length), { auth: limited.auth }));
      seen.push(...(body.results as Json[]).map((t) => t.id as number));
      path = body.next as string | null;
    }
    expect(seen.sort()).toEqual([made.c1, made.c2, made.c3, made.d3, made.p1].sort());
  });

  it('is every ticket with the setting off', async () => {
    process.env[SETTING] = 'false';
    const all = ok(await api.call('GET', '/api/tickets/?page_size=100', { auth: limited.auth }));
    expect(all.count).toBe(ok(await admin('GET', '/api/tickets/?page_size=100')).count);
    expect((all.results as Json[]).map((t) => t.id)).toContain(made.d1);
    process.env[SETTING] = 'true';
  });

  it("another's tickets and the unassigned, by status, in their queues: exact in every ordering", async () => {
    // Status × queue × assignee per queue of theirs: another's (one status × assignee partition read whole, kept by
    // the queues its records carry) and the unassigned (each queue's status × queue partition, kept by `none`).
    const [c4, p4] = [
      await ticketInQueue(made.C, { assigned_to: ADMIN_ID, priority: 1 }),
      await ticketInQueue(ids.P, { assigned_to: ADMIN_ID, priority: 4 }),
    ];
    await ticketInQueue(made.D, { assigned_to: ADMIN_ID });
    await expect
      .poll(() => list(`?assigned_to=${ADMIN_ID}&status=1`), { timeout: 20_000 })
      .toEqual({ count: 2, ids: [c4, p4].sort() });
    // A page of one at a time: each full (the entries are kept by the value their records carry, not checked on the
    // tickets read, which would leave a page empty where another queue's ticket was read).
    const pages = async (query: string) => {
      const shown: number[][] = [];
      let path: string | null = `${runtime.url}/api/tickets/?page_size=1&${query}`;
      while (path) {
        const body = ok(await api.call('GET', path.slice(runtime.url.length), { auth: limited.auth }));
        shown.push((body.results as Json[]).map((t) => t.id as number));
        path = body.next as string | null;
      }
      return shown;
    };
    for (const ordering of ['id', '-id', 'priority', '-modified', 'due_date']) {
      expect(await list(`?assigned_to=${ADMIN_ID}&status=1,4&ordering=${ordering}`), ordering).toEqual({
        count: 2,
        ids: [c4, p4].sort(),
      });
      expect((await pages(`assigned_to=${ADMIN_ID}&status=1&ordering=${ordering}`)).sort(), ordering).toEqual(
        [[c4], [p4]].sort(),
      );
      // c1 moved to the public queue above.
      expect(await list(`?assigned_to=none&status=1&ordering=${ordering}`), ordering).toEqual({
        count: 2,
        ids: [made.c1, made.p1].sort(),
      });
    }
  });
});
