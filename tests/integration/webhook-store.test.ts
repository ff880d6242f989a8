/**
 * The webhook store's conditions and queries on a real engine: the outbox's sweep for stranded
 * events (`eventsWrittenBefore`, what the Dispatch function's schedule re-dispatches on AWS when the
 * stream gave up), a redeliver's requeue (`requeueDelivery`: ended or stuck deliveries only), and a
 * subscription disabled after days of failures (the deliverer run with a clock of the test's). The
 * file runs its own runtime in-process (in-memory engines) to reach the store; with no webhook URL
 * set, the local poller dispatches nothing behind the test's back, and with the table's stream read
 * only on demand, its consumer does not take the outbox events the test writes (it would dispatch
 * and remove one between the write and the query: seen in CI).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor, type Json } from './client';
import { startInProcessRuntime, type InProcessRuntime } from './in-process-runtime';
import { startReceiver } from './webhook-receiver';
import { startAwsStandIn } from '../unit/aws-stand-in';
import { DISABLE_AFTER_DAYS } from '../../shared/domain/subscriptions';
import type { OutboxEvent } from '../../shared/store/outbox';
import { STUCK_AFTER_MS, type Delivery } from '../../shared/domain/webhooks';

let runtime: InProcessRuntime;
let outbox: typeof import('../../shared/store/outbox');
let transact: (typeof import('../../shared/store/transact'))['transact'];
let deliveries: typeof import('../../shared/store/deliveries');

const DEAD_LETTERS = 'https://sqs.eu-west-1.amazonaws.com/123456789012/dead-letters';
/** SQS for the AWS deliverer (below): a stand-in for its JSON protocol, which the runtime's settings point at. */
let sqs: Awaited<ReturnType<typeof startAwsStandIn>>;

beforeAll(async () => {
  sqs = await startAwsStandIn();
  runtime = await startInProcessRuntime({
    HELPDESK_STREAM_POLL_MS: '0',
    AWS_ENDPOINT_URL_SQS: sqs.endpoint,
    HELPDESK_WEBHOOK_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/deliveries',
    HELPDESK_WEBHOOK_DEAD_LETTER_URL: DEAD_LETTERS,
  });
  outbox = await import('../../shared/store/outbox');
  ({ transact } = await import('../../shared/store/transact'));
  deliveries = await import('../../shared/store/deliveries');
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
  await sqs?.close();
});

const HOUR = 3600_000;
const event = (id: string, ageMs: number): OutboxEvent => ({
  id,
  event: 'ticket.created',
  ticket: 1,
  followup: null,
  base_url: 'http://127.0.0.1',
  created: new Date(Date.now() - ageMs).toISOString(),
});

describe('stranded outbox events', () => {
  it('are the events written before the cutoff, and only those, at most `limit`', async () => {
    const events = [event('evt_old_a', 2 * HOUR), event('evt_fresh', 60_000), event('evt_old_b', 90 * 60_000)];
    for (const e of events) await transact([outbox.outboxPut(e)]);
    const cutoff = new Date(Date.now() - HOUR);
    const stranded = await outbox.eventsWrittenBefore(cutoff, 100);
    expect(stranded.map((e) => e.id).sort()).toEqual(['evt_old_a', 'evt_old_b']);
    expect(stranded.find((e) => e.id === 'evt_old_a')).toEqual(events[0]);
    expect(await outbox.eventsWrittenBefore(cutoff, 1)).toHaveLength(1);
    for (const e of events) await outbox.removeEvent(e.id);
    expect(await outbox.eventsWrittenBefore(new Date(), 100)).toEqual([]);
  });
});

const delivery = (id: string, status: Delivery['status'], nextAttemptAgoMs: number | null): Delivery => ({
  id,
  event: 'ticket.created',
  event_id: 'evt_x',
  url: 'https://hooks.example/in',
  ticket: 1,
  followup: null,
  status,
  attempts: status === 'pending' ? 1 : 8,
  last_response_code: 503,
  last_error: null,
  next_attempt: nextAttemptAgoMs === null ? null : new Date(Date.now() - nextAttemptAgoMs).toISOString(),
  created: new Date().toISOString(),
  body: '{}',
});

describe('requeueing a delivery (redeliver)', () => {
  it('takes a failed or a stuck delivery, not one whose attempts are under way', async () => {
    const cases = [
      [delivery('msg_failed', 'failed', null), true],
      [delivery('msg_stuck', 'pending', STUCK_AFTER_MS + 60_000), true],
      [delivery('msg_late', 'pending', 60_000), false],
      [delivery('msg_upcoming', 'pending', -60_000), false],
    ] as const;
    for (const [d] of cases) expect(await deliveries.createDelivery(d)).toBe(true);
    for (const [d, taken] of cases) {
      const requeued = await deliveries.requeueDelivery(d.id, new Date());
      expect(requeued === undefined ? 'refused' : `${requeued.status} ${requeued.attempts}`, d.id).toBe(
        taken ? 'pending 0' : 'refused',
      );
    }
    expect(await deliveries.requeueDelivery('msg_unknown', new Date())).toBeUndefined();
  });
});

describe('a delivery whose schedule is spent', () => {
  it(
    "to an environment receiver goes to the operator's dead-letter queue (a " + "subscription's does not: below)",
    async () => {
      const receiver = await startReceiver(() => 503);
      try {
        const { attemptDelivery } = await import('../../shared/webhooks/service');
        const { config } = await import('../../shared/config');
        const ctx = {
          settings: { ...config.webhooks.settings, retryDelays: [] },
          allowLoopback: true,
          secret: () => Promise.resolve('whsec_' + Buffer.alloc(32, 7).toString('base64')),
          queue: { enqueue: () => Promise.resolve() },
        };
        expect(
          await deliveries.createDelivery({
            ...delivery('msg_environment', 'pending', 0),
            url: `${receiver.url}/in`,
            attempts: 0,
          }),
        ).toBe(true);
        expect(await attemptDelivery('msg_environment', ctx)).toEqual({ state: 'failed', deadLetter: true });
        expect(receiver.received).toHaveLength(1);
      } finally {
        await receiver.stop();
      }
    },
  );
});

describe('the AWS deliverer, when its put on the dead-letter queue fails', () => {
  it(
    'reports the message for another receive, which puts it there, and only ' + 'once it is there is the delivery done',
    async () => {
      const receiver = await startReceiver(() => 503);
      // The fault: SQS refuses (500, on every retry) the put on the dead-letter queue, and only it, while `down`.
      let down = true;
      sqs.answer = (body) =>
        down && body.QueueUrl === DEAD_LETTERS
          ? { status: 500, body: { __type: 'InternalError', message: 'injected' } }
          : { status: 200, body: {} };
      process.env.HELPDESK_WEBHOOK_SECRET ??= 'whsec_' + Buffer.alloc(32, 9).toString('base64');
      try {
        const [{ handler }, { config }] = await Promise.all([
          import('../../functions/webhooks/deliver'),
          import('../../shared/config'),
        ]);
        const last = config.webhooks.settings.retryDelays.length; // attempts made: the next is the last
        expect(
          await deliveries.createDelivery({
            ...delivery('msg_dead_letter_down', 'pending', 0),
            url: `${receiver.url}/in`,
            attempts: last,
          }),
        ).toBe(true);
        const message = {
          messageId: 'm1',
          receiptHandle: 'r1',
          body: JSON.stringify({ delivery: 'msg_dead_letter_down' }),
        } as never;
        const deadLetterPuts = () => sqs.seen.filter((r) => r.body.QueueUrl === DEAD_LETTERS).length;

        // The last attempt fails and so does the put: the message is reported, not consumed.
        expect(await handler({ Records: [message] })).toEqual({ batchItemFailures: [{ itemIdentifier: 'm1' }] });
        expect(receiver.received).toHaveLength(1);
        expect(deadLetterPuts()).toBeGreaterThan(0);
        expect(await deliveries.getDelivery('msg_dead_letter_down')).toMatchObject({
          status: 'failed',
          attempts: last + 1,
          dead_letter_due: true,
        });

        // Its next receive puts it on the dead-letter queue, without another attempt, and consumes it.
        down = false;
        sqs.seen.length = 0;
        expect(await handler({ Records: [message] })).toEqual({ batchItemFailures: [] });
        expect(sqs.seen.map((r) => r.body)).toEqual([
          { QueueUrl: DEAD_LETTERS, MessageBody: JSON.stringify({ delivery: 'msg_dead_letter_down' }) },
        ]);
        expect(receiver.received).toHaveLength(1);
        expect((await deliveries.getDelivery('msg_dead_letter_down'))?.dead_letter_due).toBeUndefined();

        // Done: a further receive (SQS delivers at least once) puts nothing more.
        sqs.seen.length = 0;
        expect(await handler({ Records: [message] })).toEqual({ batchItemFailures: [] });
        expect(sqs.seen).toEqual([]);
      } finally {
        await receiver.stop();
        sqs.answer = undefined;
      }
    },
  );
});

describe('a subscription whose receiver keeps failing', () => {
  it(`is disabled after ${DISABLE_AFTER_DAYS} days of failures only, with an entry in the delivery log`, async () => {
    const receiver = await startReceiver(() => 500);
    try {
      const api = clientFor(runtime.url);
      const created = await api.call('POST', '/api/webhooks/', {
        json: { url: `${receiver.url}/down`, events: ['ticket.updated'] },
      });
      expect(created.status).toBe(201);
      const subscription = created.body;
      const { attemptDelivery } = await import('../../shared/webhooks/service');
      const { config } = await import('../../shared/config');
      const ctx = {
        settings: { ...config.webhooks.settings, retryDelays: [3600] },
        allowLoopback: true,
        secret: () => Promise.reject(new Error('a subscription signs with its own secret')),
        queue: { enqueue: () => Promise.resolve() },
      };
      const start = Date.parse('2026-01-05T10:00:00Z');
      const day = 86_400_000;
      let n = 0;
      /** One delivery to the subscription, attempted at `start` + `days`. */
      const attemptAfter = async (days: number) => {
        n += 1;
        const id = `msg_${'0'.repeat(25)}${n}`;
        expect(
          await deliveries.createDelivery({
            ...delivery(id, 'pending', 0),
            subscription: subscription.id,
            url: `${receiver.url}/down`,
            attempts: 0,
          }),
        ).toBe(true);
        return attemptDelivery(id, ctx, () => new Date(start + days * day));
      };
      const shown = async () => (await api.call('GET', `/api/webhooks/${subscription.id}/`)).body;

      expect(await attemptAfter(0)).toEqual({ state: 'retry', inSeconds: 3600 });
      // In the API's date-time form (no zero fraction), as every date-time it shows.
      expect(await shown()).toMatchObject({ enabled: true, failing_since: '2026-01-05T10:00:00Z' });
      // A success ends the run of failures; the count starts again at the next failure.
      receiver.behaviour = () => 204;
      expect(await attemptAfter(2)).toEqual({ state: 'delivered' });
      expect((await shown()).failing_since).toBeNull();
      receiver.behaviour = () => 500;
      // A schedule spent (one retry here): failed, and not the operator's dead letter to alarm on.
      expect(await attemptAfter(3)).toEqual({ state: 'retry', inSeconds: 3600 });
      expect(await attemptDelivery(`msg_${'0'.repeat(25)}${n}`, ctx, () => new Date(start + 3 * day + HOUR))).toEqual({
        state: 'failed',
        deadLetter: false,
      });
      await attemptAfter(3 + DISABLE_AFTER_DAYS - 0.01);
      expect(await shown()).toMatchObject({ enabled: true, failing_since: '2026-01-08T10:00:00Z' });
      await attemptAfter(3 + DISABLE_AFTER_DAYS);
      const disabled = await shown();
      expect(disabled).toMatchObject({
        enabled: false,
        disabled_reason: expect.stringContaining(`${DISABLE_AFTER_DAYS} days`),
      });

      const log = (await api.call('GET', '/api/webhook-deliveries/?page_size=100')).body;
      const entries = log.results.filter((d: Json) => d.event === 'subscription.disabled');
      expect(entries).toEqual([
        expect.objectContaining({
          subscription: subscription.id,
          status: 'failed',
          last_error: disabled.disabled_reason,
        }),
      ]);
      // Disabled, it is sent nothing more: a pending delivery ends without an attempt.
      const posts = receiver.received.length;
      expect(await attemptAfter(3 + DISABLE_AFTER_DAYS + 1)).toEqual({ state: 'skipped' });
      expect(receiver.received.length).toBe(posts);
      expect(await deliveries.getDelivery(`msg_${'0'.repeat(25)}${n}`)).toMatchObject({
        status: 'failed',
        last_error: 'its subscription is disabled',
      });
      // Enabled again, it starts afresh.
      expect(
        (await api.call('PATCH', `/api/webhooks/${subscription.id}/`, { json: { enabled: true } })).body,
      ).toMatchObject({ enabled: true, failing_since: null, disabled_reason: null });
      // A delivery goes to the subscription's URL of the moment it is attempted.
      receiver.behaviour = () => 204;
      expect(
        (await api.call('PATCH', `/api/webhooks/${subscription.id}/`, { json: { url: `${receiver.url}/moved` } }))
          .status,
      ).toBe(200);
      expect(await attemptAfter(3 + DISABLE_AFTER_DAYS + 2)).toEqual({ state: 'delivered' });
      expect(receiver.received.at(-1)!.path).toBe('/moved');
    } finally {
      await receiver.stop();
    }
  });
});
