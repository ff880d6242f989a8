/**
 * Group commit (shared/store/coalesce.ts) on a real DynamoDB Local: writes made at once in one process
 * share one request (the id counter's ADD, a queue's reservation, the opening followups' refs), and
 * each still gets exactly what it got alone: its own ids, its reservation, its ref. The writes are
 * started in one tick, so which of them share a request is decided, not timed.
 */
import { setImmediate } from 'node:timers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoCall } from '../../shared/aws/dynamodb';
import { clientFor } from './client';
import { startInProcessRuntime } from './in-process-runtime';

let runtime: { url: string; stop(): Promise<void> };
let api: ReturnType<typeof clientFor>;
let store: {
  dynamo: typeof import('../../shared/aws/clients').dynamo;
  counters: typeof import('../../shared/store/counters');
  tickets: typeof import('../../shared/store/tickets');
  reservations: typeof import('../../shared/store/queue-reservations');
  domain: typeof import('../../shared/domain/ticket');
};

beforeAll(async () => {
  // The poller off: the stream consumer's calls would mix with those counted.
  runtime = await startInProcessRuntime({ HELPDESK_STREAM_POLL_MS: '0' });
  api = clientFor(runtime.url);
  store = {
    dynamo: (await import('../../shared/aws/clients')).dynamo,
    counters: await import('../../shared/store/counters'),
    tickets: await import('../../shared/store/tickets'),
    reservations: await import('../../shared/store/queue-reservations'),
    domain: await import('../../shared/domain/ticket'),
  };
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
});

/**
 * Runs `work`, recording the DynamoDB calls it makes (operation and input); `around` may wrap each call (hold it, or
 * watch its answer).
 */
async function recording<T>(
  work: () => Promise<T>,
  around: (call: DynamoCall, next: () => Promise<unknown>) => Promise<unknown> = (_call, next) => next(),
): Promise<{ result: T; calls: DynamoCall[] }> {
  const calls: DynamoCall[] = [];
  const remove = store.dynamo.intercept(async (call, next) => {
    calls.push(call);
    return (await around(call, next)) as Awaited<ReturnType<typeof next>>;
  });
  try {
    return { result: await work(), calls };
  } finally {
    remove();
  }
}

const AT_ONCE = 5;
const range = (first: number, n: number, step = 1) => Array.from({ length: n }, (_, i) => first + i * step);

describe('group commit', () => {
  it('id reservations made at once share one ADD after the first, each with its own ranges, in order', async () => {
    const { result, calls } = await recording(() =>
      Promise.all(Array.from({ length: AT_ONCE }, () => store.counters.reserveIds({ ticket: 1, followup: 2 }))),
    );
    expect(calls.map((c) => c.operation)).toEqual(['UpdateItem', 'UpdateItem']);
    const first = result[0]!;
    expect(result.map((r) => r.ticket)).toEqual(range(first.ticket, AT_ONCE));
    expect(result.map((r) => r.followup)).toEqual(range(first.followup, AT_ONCE, 2));
    // The next reservation, alone, continues where the batch ended: nothing reserved twice, nothing skipped.
    const after = await store.counters.reserveIds({ ticket: 1, followup: 2 });
    expect(after).toEqual({ ticket: first.ticket + AT_ONCE, followup: first.followup + 2 * AT_ONCE });
  });

  it('creates at once share the reservation and the refs; each opening followup is found by id at once', async () => {
    const draft = store.domain.parseTicketBody(
      {
        kind: 'json',
        data: { queue: 1, title: 'group commit', description: 'at once', submitter_email: 'group@example.com' },
        files: [],
      },
      'create',
      [],
    );
    const refs = { queues: new Set([1]), users: new Map(), tickets: new Map() };
    const plan = store.domain.planTicketCreation(draft, refs, 1, new Date());
    const ids = await Promise.all(
      Array.from({ length: AT_ONCE }, () => store.counters.reserveIds({ ticket: 1, followup: 1 })),
    );
    const queueBefore = Number((await store.reservations.readQueueItem(1))!.reserved ?? 0);

    // The first ref is held until every ticket is put, and what their answers set going has run (setImmediate: after
    // the microtasks), so the other refs are all waiting behind it.
    const typeOf = (call: DynamoCall) => (call.input.Item as Record<string, unknown> | undefined)?.type;
    let ticketsPut = 0;
    let releaseRef = () => undefined as void;
    const refHeld = new Promise<void>((resolve) => (releaseRef = resolve));
    const { calls } = await recording(
      () =>
        Promise.all(
          ids.map((id) =>
            store.tickets.createTicket(
              { id: id.ticket, ...plan.ticket },
              { id: id.followup, ticket: id.ticket, ...plan.opening },
            ),
          ),
        ),
      async (call, next) => {
        if (call.operation === 'PutItem' && typeOf(call) === 'ref') await refHeld;
        const answer = await next();
        if (call.operation === 'PutItem' && typeOf(call) === 'ticket' && ++ticketsPut === AT_ONCE)
          setImmediate(releaseRef);
        return answer;
      },
    );
    const byOperation = (operation: string) => calls.filter((c) => c.operation === operation);
    // The reservation: the first alone, the other four in one ADD of 4.
    const reservations = byOperation('UpdateItem');
    expect(reservations.map((c) => (c.input.ExpressionAttributeValues as Record<string, unknown>)[':count'])).toEqual([
      1,
      AT_ONCE - 1,
    ]);
    expect(Number((await store.reservations.readQueueItem(1))!.reserved)).toBe(queueBefore + AT_ONCE);
    // Each ticket its own conditional put; the refs: the first a PutItem, the other four one BatchWriteItem. Calls are
    // recorded as they start, and the first ref may start before the last tickets' puts (their reservation came later).
    const puts = byOperation('PutItem');
    expect(puts.map(typeOf).sort()).toEqual(['ref', ...Array(AT_ONCE).fill('ticket')]);
    const refPut = puts.find((c) => typeOf(c) === 'ref')!;
    const batched = byOperation('BatchWriteItem').map((c) =>
      (Object.values(c.input.RequestItems as object)[0] as { PutRequest: { Item: { id: number } } }[]).map(
        (r) => r.PutRequest.Item.id,
      ),
    );
    expect(batched.map((refs) => refs.length)).toEqual([AT_ONCE - 1]);
    const refIds = [(refPut.input.Item as { id: number }).id, ...batched[0]!];
    expect(refIds.sort((a, b) => a - b)).toEqual(ids.map((id) => id.followup));

    for (const id of ids) {
      const followup = await api.call('GET', `/api/followups/${id.followup}/`);
      expect(followup.status).toBe(200);
      expect(followup.body).toMatchObject({ id: id.followup, ticket: id.ticket });
    }
  });

  it('a reservation refused for the batch (the queue gone) is refused for every create in it', async () => {
    const queue = await api.call('POST', '/api/queues/', { json: { title: 'Gone soon', slug: `gone-${Date.now()}` } });
    expect(queue.status).toBe(201);
    expect((await api.call('DELETE', `/api/queues/${queue.body.id}/`)).status).toBe(204);
    const outcomes = await Promise.allSettled(
      Array.from({ length: AT_ONCE }, () => store.reservations.reserveInQueue(queue.body.id as number)),
    );
    expect(outcomes.map((o) => o.status === 'rejected' && o.reason?.constructor.name)).toEqual(
      Array(AT_ONCE).fill('MissingQueue'),
    );
  });
});
