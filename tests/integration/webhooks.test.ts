/**
 * Webhooks end to end: a local runtime with receivers configured, and a real HTTP receiver on
 * loopback. Signatures are checked with the `standardwebhooks` package, as a receiver would.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, ADMIN_ID, basic, clientFor, form, unique, type Json } from './client';
import { spawnApiRuntime, type SpawnedRuntime } from './spawn-runtime';
import { onSharedEngines } from './shared-engines';
import { startReceiver, type Receiver, type Received } from './webhook-receiver';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const verifier = new Webhook(SECRET);
/** The admin made every change these tests post (the API's credentials of client.ts). */
const ADMIN_ACTOR = { actor: { id: ADMIN_ID, username: ADMIN.username }, source: 'api' };

let receiver: Receiver;
let runtime: SpawnedRuntime;
let api: ReturnType<typeof clientFor>;

function runtimeEnv(url: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    // Two receivers for new tickets, with the spacing upstream would not split.
    HELPDESK_NEW_TICKET_WEBHOOK_URLS: `${url}/new-a,  ${url}/new-b`,
    HELPDESK_FOLLOWUP_WEBHOOK_URLS: `${url}/followup`,
    HELPDESK_WEBHOOK_SECRET: SECRET,
    // The longest allowed: a delivery the receiver holds stays open for the whole of a test that holds it.
    HELPDESK_WEBHOOK_TIMEOUT: '60',
    HELPDESK_WEBHOOK_RETRY_DELAYS: '0.3,0.3,0.3',
    ...extra,
  };
}

beforeAll(async () => {
  receiver = await startReceiver();
  runtime = await spawnApiRuntime({ ...onSharedEngines(), ...runtimeEnv(receiver.url) });
  api = clientFor(runtime.url);
});

afterAll(async () => {
  await runtime?.stop();
  await receiver?.stop();
});

const payloadOf = (r: Received) =>
  JSON.parse(r.body) as {
    ticket: { id: number; title: string; followup_set: { id: number }[] };
    queue_slug: string;
    followup_id?: number;
  };
const forTicket = (id: number, path?: string) => (r: Received) =>
  (path === undefined || r.path === path) && payloadOf(r).ticket.id === id;

function verify(r: Received): unknown {
  return verifier.verify(r.body, {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  });
}

/**
 * A ticket created now, once both new-ticket URLs have its webhook: the runtime sends in the order
 * things were written, so whatever earlier writes sent has arrived by then. Its id.
 */
async function markerTicket(): Promise<number> {
  const marker = (await api.createTicket({ title: unique('marker') })).body;
  await receiver.waitFor(2, forTicket(marker.id));
  return marker.id;
}

describe('payloads and signatures', () => {
  it('a new ticket is posted to every new-ticket URL as upstream shapes it, signed', async () => {
    const created = (await api.createTicket({ title: unique('wh') })).body;
    const [a] = await receiver.waitFor(1, forTicket(created.id, '/new-a'));
    const [b] = await receiver.waitFor(1, forTicket(created.id, '/new-b'));
    const shown = (await api.call('GET', `/api/tickets/${created.id}/`)).body;
    for (const r of [a!, b!]) {
      // Upstream's keys, in its order, then who made the change (the actor, as change events name it).
      expect(verify(r)).toEqual({ ticket: shown, queue_slug: expect.any(String), ...ADMIN_ACTOR });
      expect(Object.keys(JSON.parse(r.body))).toEqual(['ticket', 'queue_slug', 'actor', 'source']);
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['user-agent']).toMatch(/^helpdesk-api-webhooks\//);
      expect(r.headers['webhook-id']).toMatch(/^msg_/);
      expect(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    }
    // One delivery per receiver, each with its own id.
    expect(a!.headers['webhook-id']).not.toBe(b!.headers['webhook-id']);
    // The opening followup does not fire the followup hook (as upstream): a followup posted now is
    // the only one the followup URL gets for this ticket (one fired by the create would come first).
    const marker = await api.call('POST', '/api/followups/', {
      json: { ticket: created.id, title: 'marker', comment: 'm', public: true },
    });
    await receiver.waitFor(
      1,
      (r) => forTicket(created.id, '/followup')(r) && payloadOf(r).followup_id === marker.body.id,
    );
    expect(receiver.received.filter(forTicket(created.id, '/followup')).map((r) => payloadOf(r).followup_id)).toEqual([
      marker.body.id,
    ]);
  });

  it('a tampered body or another secret fails verification', async () => {
    const created = (await api.createTicket({ title: unique('wh') })).body;
    const [r] = await receiver.waitFor(1, forTicket(created.id, '/new-a'));
    expect(() => verify({ ...r!, body: r!.body.replace(created.title, 'changed') })).toThrow();
    const other = new Webhook('whsec_' + Buffer.alloc(32, 7).toString('base64'));
    expect(() => other.verify(r!.body, r!.headers as Record<string, string>)).toThrow();
  });

  it('a followup is posted with the ticket as it stands after it, the queue slug and its id', async () => {
    const created = (await api.createTicket({ title: unique('wh') })).body;
    const reply = await api.call('POST', '/api/followups/', {
      form: form({ ticket: created.id, title: 'Fixed', comment: 'done', new_status: 3, public: true }, [
        { field: 'attachments', name: 'log.txt', type: 'text/plain', content: 'log' },
      ]),
    });
    expect(reply.status).toBe(201);
    const [r] = await receiver.waitFor(1, forTicket(created.id, '/followup'));
    const payload = verify(r!) as Json;
    expect(Object.keys(payload)).toEqual(['ticket', 'queue_slug', 'followup_id', 'actor', 'source']);
    expect(payload.followup_id).toBe(reply.body.id);
    expect(payload.ticket.status).toBe(3);
    expect(payload.ticket.resolution).toBe('done');
    expect(payload.ticket.followup_set.at(-1)!.id).toBe(reply.body.id);
    // Attachment links are this API's absolute URLs (docs/upstream.md: where we differ, i), as in the API's own
    // answers.
    expect(payload.ticket.followup_set.at(-1)!.followupattachment_set[0]!.file).toBe(
      reply.body.followupattachment_set[0].file,
    );
    expect(payload).toEqual({
      ticket: (await api.call('GET', `/api/tickets/${created.id}/`)).body,
      queue_slug: expect.any(String),
      followup_id: reply.body.id,
      ...ADMIN_ACTOR,
    });
  });

  it('a private followup is named but not shown: receivers see what the submitter could (issue 13)', async () => {
    const created = (await api.createTicket({ title: unique('wh') })).body;
    const note = unique('internal-note');
    const reply = await api.call('POST', '/api/followups/', {
      form: form({ ticket: created.id, title: 'Internal', comment: note }, [
        { field: 'attachments', name: 'secret.txt', type: 'text/plain', content: 'x' },
      ]),
    });
    expect(reply.status).toBe(201);
    expect(reply.body.public).toBe(false);
    const [r] = await receiver.waitFor(1, forTicket(created.id, '/followup'));
    const payload = verify(r!) as Json;
    expect(payload.followup_id).toBe(reply.body.id);
    expect(payload.ticket.followup_set.map((f: Json) => f.id)).not.toContain(reply.body.id);
    expect(JSON.stringify(payload)).not.toContain(note);
    expect(JSON.stringify(payload)).not.toContain('secret.txt');
  });

  it("a private followup's text never leaves as the resolution it becomes (issue 25)", async () => {
    const created = (await api.createTicket({ title: unique('wh') })).body;
    const note = unique('the-safe-code-is');
    // A private followup that resolves the ticket: upstream copies its comment into the resolution.
    const resolving = await api.call('POST', '/api/followups/', {
      json: { ticket: created.id, title: 'Internal', comment: note, new_status: 3, public: false },
    });
    expect(resolving.status).toBe(201);
    // Staff still see it, as upstream shows them.
    expect((await api.call('GET', `/api/tickets/${created.id}/`)).body.resolution).toBe(note);
    const [r] = await receiver.waitFor(
      1,
      (x) => forTicket(created.id, '/followup')(x) && payloadOf(x).followup_id === resolving.body.id,
    );
    const payload = verify(r!) as Json;
    expect(payload.ticket).toMatchObject({ status: 3, resolution: null });
    expect(JSON.stringify(payload)).not.toContain(note);
    // Any followup on a resolved ticket overwrites the resolution: a public one shows, a private one hides it again.
    const done = unique('Replaced the fuser');
    const answer = await api.call('POST', '/api/followups/', {
      json: { ticket: created.id, title: 'Done', comment: done, public: true },
    });
    const [shown] = await receiver.waitFor(
      1,
      (x) => forTicket(created.id, '/followup')(x) && payloadOf(x).followup_id === answer.body.id,
    );
    expect((verify(shown!) as Json).ticket.resolution).toBe(done);
    const again = unique('internal-again');
    const hidden = await api.call('POST', '/api/followups/', {
      json: { ticket: created.id, title: 'Note', comment: again },
    });
    const [last] = await receiver.waitFor(
      1,
      (x) => forTicket(created.id, '/followup')(x) && payloadOf(x).followup_id === hidden.body.id,
    );
    expect((verify(last!) as Json).ticket.resolution).toBeNull();
    expect(last!.body).not.toContain(again);
  });

  it('a failed write sends nothing', async () => {
    const title = unique('never');
    const before = receiver.received.length;
    expect((await api.call('POST', '/api/tickets/', { json: { queue: 1, title } })).status).toBe(400);
    expect(
      (
        await api.call('POST', '/api/tickets/', {
          json: { queue: 99999, title, description: 'd', submitter_email: 'a@b.example' },
        })
      ).status,
    ).toBe(400);
    expect((await api.call('POST', '/api/followups/', { json: { ticket: 99999, title, comment: 'c' } })).status).toBe(
      400,
    );
    // Edits, deletes and other routes do not fire either (upstream fires on create only).
    const created = (await api.createTicket({ title: unique('wh') })).body;
    await receiver.waitFor(2, forTicket(created.id));
    expect((await api.call('PATCH', `/api/tickets/${created.id}/`, { json: { title } })).status).toBe(200);
    expect((await api.call('DELETE', `/api/tickets/${created.id}/`)).status).toBe(204);
    // Anything those sent would be ahead of the deliveries of a ticket created after them.
    const marker = await markerTicket();
    const after = receiver.received.slice(before);
    expect(after.filter((r) => r.body.includes(title))).toEqual([]);
    expect(after.filter((r) => ![created.id, marker].includes(payloadOf(r).ticket.id))).toEqual([]);
    expect(after.filter(forTicket(created.id))).toHaveLength(2);
  });
});

describe('idempotent creates', () => {
  it('a create repeated with its Idempotency-Key sends no second webhook', async () => {
    const title = unique('idem');
    const send = () =>
      api.call('POST', '/api/tickets/', {
        json: { queue: 1, title, description: 'd', submitter_email: 'a@b.example' },
        headers: { 'idempotency-key': title },
      });
    const first = await send();
    const again = await send();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    await receiver.waitFor(2, forTicket(first.body.id));
    await markerTicket(); // a second webhook would be ahead of its deliveries
    expect(receiver.received.filter(forTicket(first.body.id))).toHaveLength(2); // one per new-ticket URL
  });
});

describe('retries and the delivery log', () => {
  it('a receiver answering 500 twice then 200 gets the same webhook-id three times', async () => {
    const title = unique('flaky');
    receiver.behaviour = (r, n) => (r.body.includes(title) && r.path === '/new-a' && n <= 2 ? 500 : 200);
    const created = (await api.createTicket({ title })).body;
    const attempts = await receiver.waitFor(3, forTicket(created.id, '/new-a'));
    expect(new Set(attempts.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(new Set(attempts.map((r) => r.body)).size).toBe(1);
    attempts.forEach(verify);
    // Spaced by the retry schedule (0.3 s here).
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(250);

    const id = String(attempts[0]!.headers['webhook-id']);
    let entry: Json;
    // The last attempt is recorded just after the receiver answers it.
    await expect
      .poll(async () => (entry = (await api.call('GET', `/api/webhook-deliveries/${id}/`)).body).status, {
        timeout: 5000,
        interval: 50,
      })
      .toBe('delivered');
    expect(entry).toEqual({
      id,
      event: 'ticket.created',
      url: `${receiver.url}/new-a`,
      ticket: created.id,
      followup: null,
      subscription: null,
      status: 'delivered',
      attempts: 3,
      last_response_code: 200,
      last_error: null,
      next_attempt: null,
      created: expect.stringMatching(/Z$/),
    });
    receiver.behaviour = () => 200;
  });

  it('gives up after the schedule: failed, with the last answer recorded', async () => {
    const title = unique('down');
    receiver.behaviour = (r) => (r.body.includes(title) && r.path === '/new-b' ? 503 : 200);
    const created = (await api.createTicket({ title })).body;
    const firstAttempt = await receiver.waitFor(1, forTicket(created.id, '/new-b'));
    // While its attempts are under way (three retries 0.3 s apart remain), a delivery cannot be sent again.
    const early = await api.call(
      'POST',
      `/api/webhook-deliveries/${String(firstAttempt[0]!.headers['webhook-id'])}/redeliver`,
    );
    expect(early.status, early.text).toBe(409);
    expect(early.body).toEqual({
      detail: 'This delivery is still being attempted; send it again once it has succeeded or failed.',
    });
    const attempts = await receiver.waitFor(4, forTicket(created.id, '/new-b'));
    const id = String(attempts[0]!.headers['webhook-id']);
    let entry: Json;
    await expect
      .poll(async () => (entry = (await api.call('GET', `/api/webhook-deliveries/${id}/`)).body).status, {
        timeout: 5000,
        interval: 50,
      })
      .toBe('failed');
    expect(entry).toMatchObject({ status: 'failed', attempts: 4, last_response_code: 503, next_attempt: null });
    // No fifth attempt: a delivery started now and retried once on the same schedule (0.3 s) comes
    // after any attempt that was still due.
    const marker = unique('marker');
    receiver.behaviour = (r, n) =>
      (r.body.includes(title) && r.path === '/new-b') || (r.body.includes(marker) && n === 1) ? 503 : 200;
    const retried = (await api.createTicket({ title: marker })).body;
    await receiver.waitFor(2, forTicket(retried.id, '/new-b'));
    expect(receiver.received.filter(forTicket(created.id, '/new-b'))).toHaveLength(4);

    // Staff can send it again: a new round with the same webhook-id and body.
    receiver.behaviour = () => 200;
    const again = await api.call('POST', `/api/webhook-deliveries/${id}/redeliver`);
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ id, status: 'pending', attempts: 0 });
    const all = await receiver.waitFor(5, forTicket(created.id, '/new-b'));
    expect(all[4]!.headers['webhook-id']).toBe(id);
    expect(all[4]!.body).toBe(all[0]!.body);
  });

  it('lists deliveries newest first with a cursor, to staff only', async () => {
    for (let i = 0; i < 2; i++) {
      const created = (await api.createTicket({ title: unique('log') })).body;
      await receiver.waitFor(2, forTicket(created.id));
    }
    const first = await api.call('GET', '/api/webhook-deliveries/?page_size=2');
    expect(first.status).toBe(200);
    expect(Object.keys(first.body)).toEqual(['next', 'previous', 'results']);
    expect(first.body.results).toHaveLength(2);
    expect(Object.keys(first.body.results[0])).toEqual([
      'id',
      'event',
      'url',
      'ticket',
      'followup',
      'subscription',
      'status',
      'attempts',
      'last_response_code',
      'last_error',
      'next_attempt',
      'created',
    ]);
    const second = await api.call('GET', new URL(first.body.next).pathname + new URL(first.body.next).search);
    expect(second.status).toBe(200);
    const ids = [...first.body.results, ...second.body.results].map((d: { id: string }) => d.id);
    expect(ids).toEqual([...ids].sort().reverse());
    expect(new Set(ids).size).toBe(4);

    expect((await api.call('GET', '/api/webhook-deliveries/?cursor=nonsense')).status).toBe(404);
    expect((await api.call('GET', '/api/webhook-deliveries/msg_unknown/')).status).toBe(404);
    expect((await api.call('POST', `/api/webhook-deliveries/msg_${'0'.repeat(26)}_0/redeliver`)).status).toBe(404);
    const user = unique('u');
    await api.createUser({ username: user, password: 'a-long-password' });
    const plain = basic(user, 'a-long-password');
    expect((await api.call('GET', '/api/webhook-deliveries/', { auth: plain })).status).toBe(403);
    expect((await api.call('POST', `/api/webhook-deliveries/${ids[0]}/redeliver`, { auth: plain })).status).toBe(403);
    expect((await api.call('GET', '/api/webhook-deliveries/', { auth: null })).status).toBe(401);
  });
});

describe('never blocking, never lost', () => {
  it('a payload too large to store is a failed delivery that says so, and blocks nothing behind it', async () => {
    const created = (await api.createTicket({ title: unique('big') })).body;
    // Three followups of 80,000 two-byte characters: the ticket's payload passes 350,000 bytes.
    const comment = 'é'.repeat(80_000);
    const post = (i: number) =>
      api.call('POST', '/api/followups/', { json: { ticket: created.id, title: `big ${i}`, comment, public: true } });
    await post(0);
    await post(1);
    const last = await post(2);
    expect(last.status).toBe(201);
    const after = (await api.createTicket({ title: unique('after-big') })).body;
    await receiver.waitFor(2, forTicket(after.id));
    const log = (await api.call('GET', '/api/webhook-deliveries/?page_size=20')).body.results as Json[];
    const big = log.find((d) => d.followup === last.body.id)!;
    expect(big).toMatchObject({
      status: 'failed',
      attempts: 0,
      last_error: expect.stringMatching(/^payload of \d+ bytes is over the 350000/),
    });
    expect(receiver.received.filter((r) => r.headers['webhook-id'] === big.id)).toEqual([]);
    const again = await api.call('POST', `/api/webhook-deliveries/${big.id}/redeliver`);
    expect(again.status).toBe(409);
  });

  it(
    'a receiver that hangs does not slow the API: creates answer while its deliveries are held open',
    { timeout: 55_000 },
    async () => {
      const slow = unique('hang');
      receiver.behaviour = (r) => (r.body.includes(slow) ? 'hang' : 200);
      try {
        const first = (await api.createTicket({ title: `${slow}-0` })).body;
        await receiver.waitFor(2, forTicket(first.id));
        for (let i = 1; i < 15; i++) expect((await api.createTicket({ title: `${slow}-${i}` })).status).toBe(201);
        // Every create answered while the first ticket's deliveries were still held: none waited on a
        // receiver (the sender gives up on a held delivery only after its timeout, 60 s here).
        expect(receiver.held(forTicket(first.id))).toHaveLength(2);
        // And the others' deliveries went out beside the held ones, all held too.
        await receiver.waitFor(30, (r) => r.body.includes(slow), 50_000);
        expect(receiver.held((r) => r.body.includes(slow))).toHaveLength(30);
      } finally {
        receiver.behaviour = () => 200;
        receiver.release();
      }
    },
  );

  // The two at once (each on a table and a receiver of its own). Both runtimes of a test use the same
  // table on the run's shared engines: what a restart must not lose is in the table (the pending
  // deliveries), not in the runtime's process. That a killed runtime's own DynamoDB Local goes too is
  // engines.ts's watchdog, checked in tests/unit/watchdog.test.ts.
  // (`expect` is the test's own, as concurrent tests need for expect.poll.)
  it.concurrent.for(['stopped', 'killed outright (SIGKILL)'])(
    'nothing is lost across a restart with deliveries pending: runtime %s',
    { timeout: 240_000 },
    async (how, { expect }) => {
      const local = await startReceiver(() => 503);
      // Retries far apart: the delivery is still pending when the runtime stops.
      const env = { ...onSharedEngines(), ...runtimeEnv(local.url, { HELPDESK_WEBHOOK_RETRY_DELAYS: '2,2,2,2' }) };
      let first: SpawnedRuntime | undefined = await spawnApiRuntime(env);
      let second: SpawnedRuntime | undefined;
      const firstOutput = first.output;
      try {
        const client = clientFor(first.url);
        const created = (await client.createTicket({ title: unique('restart') })).body;
        const failed = await local.waitFor(1, forTicket(created.id, '/new-a'));
        // The attempt is recorded just after the receiver answers: wait for it, so the counts below are exact.
        const firstId = String(failed[0]!.headers['webhook-id']);
        await expect
          .poll(async () => (await client.call('GET', `/api/webhook-deliveries/${firstId}/`)).body.attempts, {
            timeout: 5000,
            interval: 50,
          })
          .toBe(1);
        await (how === 'stopped' ? first.stop() : first.kill());
        first = undefined;

        local.behaviour = () => 200;
        second = await spawnApiRuntime(env);
        const delivered = await local.waitFor(2, forTicket(created.id, '/new-a'), 60_000);
        expect(delivered[1]!.headers['webhook-id']).toBe(failed[0]!.headers['webhook-id']);
        // Each attempt is recorded just after the receiver answers it.
        const restarted = clientFor(second.url);
        const logged = async (id: string) => (await restarted.call('GET', `/api/webhook-deliveries/${id}/`)).body;
        await expect
          .poll(() => logged(firstId), { timeout: 10_000, interval: 100 })
          .toMatchObject({ status: 'delivered', attempts: 2 });
        // The other receiver's delivery too, whether or not the first runtime had tried it yet.
        const other = firstId.replace(/_0$/, '_1');
        await local.waitFor(1, (r) => forTicket(created.id, '/new-b')(r) && r.headers['webhook-id'] === other, 60_000);
        await expect
          .poll(async () => (await logged(other)).status, { timeout: 10_000, interval: 100 })
          .toBe('delivered');
      } catch (error) {
        console.log(`first runtime:\n${firstOutput()}\nsecond runtime:\n${second?.output()}`);
        throw error;
      } finally {
        await first?.stop();
        await second?.stop();
        await local.stop();
      }
    },
  );
});

describe('settings', () => {
  it('a signing secret the runtime generates is never printed: it says where it is (issue 13)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'helpdesk-secret-'));
    const { HELPDESK_WEBHOOK_SECRET: _given, ...env } = runtimeEnv('http://127.0.0.1:9');
    // The secret's file is in the data directory; the table can be on the shared engines.
    const runtime = await spawnApiRuntime({ ...onSharedEngines(), ...env, HELPDESK_DATA_DIR: dataDir });
    try {
      const secret = readFileSync(join(dataDir, 'webhook-secret'), 'utf8').trim();
      expect(secret).toMatch(/^whsec_/);
      // The start's lines after the URL, the secret's among them, are printed once it listens.
      await expect.poll(() => runtime.output()).toMatch(/Webhook signing secret/);
      expect(runtime.output()).not.toContain(secret);
      expect(runtime.output()).not.toContain(secret.slice('whsec_'.length));
      expect(runtime.output()).toContain(join(dataDir, 'webhook-secret'));
    } finally {
      await runtime.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it.each([
    ['http://169.254.169.254/latest/meta-data/', /link-local or cloud metadata/],
    ['ftp://example.com/hook', /only http and https/],
    ['http://metadata.google.internal/x', /metadata host/],
    ['http://[fe80::1]/x', /link-local/],
  ])('refuses to start with %s as a receiver', async (url, reason) => {
    const failed = await spawnApiRuntime(
      runtimeEnv('http://127.0.0.1:9', { HELPDESK_NEW_TICKET_WEBHOOK_URLS: `http://ok.example/a, ${url}` }),
    ).then(
      async (r) => {
        await r.stop();
        return undefined;
      },
      (error: Error) => error.message,
    );
    expect(failed).toMatch(/Invalid webhook settings/);
    expect(failed).toMatch(reason);
    expect(failed).toContain(`HELPDESK_NEW_TICKET_WEBHOOK_URLS: ${url}`);
  });
});
