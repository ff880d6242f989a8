/**
 * The webhook store's conditions and queries on a real engine: the outbox's sweep for stranded
 * events (`eventsWrittenBefore`, what the Dispatch function's schedule re-dispatches on AWS when the
 * stream gave up) and a redeliver's requeue (`requeueDelivery`: ended or stuck deliveries only). The
 * file runs its own runtime in-process (in-memory engines) to reach the store; with no webhook URL
 * set, the local poller dispatches nothing behind the test's back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessRuntime } from './in-process-runtime';
import type { OutboxEvent } from '../../shared/store/outbox';
import { STUCK_AFTER_MS, type Delivery } from '../../shared/domain/webhooks';

let runtime: { stop(): Promise<void> };
let outbox: typeof import('../../shared/store/outbox');
let transact: typeof import('../../shared/store/transact')['transact'];
let deliveries: typeof import('../../shared/store/deliveries');

beforeAll(async () => {
  runtime = await startInProcessRuntime();
  outbox = await import('../../shared/store/outbox');
  ({ transact } = await import('../../shared/store/transact'));
  deliveries = await import('../../shared/store/deliveries');
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
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

describe('requeueing a delivery (redeliver)', () => {
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
      expect(requeued === undefined ? 'refused' : `${requeued.status} ${requeued.attempts}`, d.id).toBe(taken ? 'pending 0' : 'refused');
    }
    expect(await deliveries.requeueDelivery('msg_unknown', new Date())).toBeUndefined();
  });
});
