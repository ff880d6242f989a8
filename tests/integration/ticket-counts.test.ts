/**
 * Ticket counts and list pages at scale (docs/data-model.md): the counts follow the table's stream
 * exactly once whatever the stream does (duplicates, late records, a failed batch retried), the
 * consumer mends the races that additions without the ticket item leave, and list pages find their
 * place in a simulated large table, with page numbers near either end and cursors beyond.
 *
 * This file runs its own runtime in-process (in-memory engines, a free port) with the stream poller
 * off (HELPDESK_STREAM_POLL_MS=0): each test drains the stream itself, so it decides when records
 * are applied and sees the consumer's work whole.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDB,
} from '../../shared/aws/dynamodb';
import { clientFor, multipart, type Json } from './client';
import { startInProcessRuntime } from './in-process-runtime';
import { failNextTransaction, failTransactions } from './fault-injection';

let runtime: { url: string; stop(): Promise<void>; drainTableStream(): Promise<void> };
let api: ReturnType<typeof clientFor>;
let dynamo: DynamoDB;
let store: {
  applyTableChanges: typeof import('../../shared/consumer/table-changes').applyTableChanges;
  keys: typeof import('../../shared/store/keys').keys;
  simulateTickets: typeof import('../../bench/seed').simulateTickets;
  pageDepth: number;
};
const table = () => process.env.TABLE_NAME!;

beforeAll(async () => {
  runtime = await startInProcessRuntime({ HELPDESK_STREAM_POLL_MS: '0' });
  api = clientFor(runtime.url);
  ({ dynamo } = await import('../../shared/aws/clients'));
  store = {
    applyTableChanges: (await import('../../shared/consumer/table-changes')).applyTableChanges,
    keys: (await import('../../shared/store/keys')).keys,
    simulateTickets: (await import('../../bench/seed')).simulateTickets,
    pageDepth: (await import('../../shared/domain/pagination')).MAX_PAGE_DEPTH,
  };
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
});

const totals = async () =>
  (await dynamo.send(new GetCommand({ TableName: table(), Key: store.keys.countsTotals, ConsistentRead: true })))
    .Item ?? {};
const count = async (query = '') => (await api.call('GET', `/api/tickets/?page_size=1${query}`)).body.count as number;
const ticket = async (fields: Json = {}) => (await api.createTicket(fields)).body;
const item = async (key: { PK: string; SK: string }) =>
  (await dynamo.send(new GetCommand({ TableName: table(), Key: key, ConsistentRead: true }))).Item;

describe('ticket counts from the stream', () => {
  it('count creates, status changes, queue moves and deletes once the stream is applied, and not before', async () => {
    await runtime.drainTableStream();
    const before = { all: await count(), open: await count('&status=1'), resolved: await count('&status=3') };
    const queue = (await api.call('POST', '/api/queues/', { json: { title: 'Counted', slug: 'counted' } })).body;
    const [a, b] = [await ticket({ queue: queue.id }), await ticket()];
    expect(await count()).toBe(before.all); // the counts follow the stream, not the request
    await runtime.drainTableStream();
    expect(await count()).toBe(before.all + 2);
    expect((await totals())[`q${queue.id}`]).toBe(1);

    await api.call('PATCH', `/api/tickets/${a.id}/`, { json: { status: 3, queue: 1 } });
    await api.call('DELETE', `/api/tickets/${b.id}/`);
    await runtime.drainTableStream();
    expect(await count()).toBe(before.all + 1);
    expect(await count('&status=1')).toBe(before.open);
    expect(await count('&status=3')).toBe(before.resolved + 1);
    expect((await totals())[`q${queue.id}`]).toBe(0);
    expect((await api.call('DELETE', `/api/queues/${queue.id}/`)).status).toBe(204);
  });

  it(
    'mends opening followup refs: none left by a ticket created and deleted in one batch, one written for a ' +
      'create whose ref was lost',
    async () => {
      await runtime.drainTableStream();
      const gone = await ticket();
      expect((await api.call('DELETE', `/api/tickets/${gone.id}/`)).status).toBe(204);
      await runtime.drainTableStream(); // its INSERT and REMOVE in one batch: one ref, asked for once
      expect(await item(store.keys.ref('followup', gone.followup_set[0].id))).toBeUndefined();

      // The ticket was stored, its opening followup's ref not (the write failed, or the process stopped).
      const kept = await ticket();
      const ref = store.keys.ref('followup', kept.followup_set[0].id);
      await dynamo.send(new DeleteCommand({ TableName: table(), Key: ref }));
      await runtime.drainTableStream();
      expect(await item(ref)).toMatchObject({ id: kept.followup_set[0].id, ticket: kept.id });
      expect((await api.call('GET', `/api/followups/${kept.followup_set[0].id}/`)).body).toEqual(kept.followup_set[0]);
    },
  );

  it('count each change exactly once when records come twice, late, or again after a batch failed', async () => {
    const created = await Promise.all([ticket(), ticket(), ticket()]);
    await api.call('PATCH', `/api/tickets/${created[0]!.id}/`, { json: { status: 4 } });
    await runtime.drainTableStream();
    const settled = await totals();

    // Every record of these tickets, as the stream carried them (their current images), twice, in
    // reverse, and older ones after newer: the counts do not move.
    const images = await Promise.all(created.map((t) => item(store.keys.ticket(t.id as number))));
    const records = images.map((newImage) => ({
      eventName: 'MODIFY' as const,
      keys: { PK: String(newImage!.PK), SK: 'TICKET' },
      newImage: newImage!,
    }));
    const older = records.map((r) => ({
      ...r,
      eventName: 'INSERT' as const,
      newImage: { ...r.newImage, status: 1, version: 1 },
    }));
    await store.applyTableChanges([...records, ...records.reverse(), ...older]);
    expect(await totals()).toEqual(settled);

    // A batch whose counts transaction is refused changed nothing of the counts, and fails no batch: the ticket
    // state's records wait on its retry path (consumer/fan-out.ts), and applied again at the next drain, count once.
    const third = await ticket();
    const fault = failNextTransaction(dynamo);
    try {
      await runtime.drainTableStream();
      expect(fault.failed()).toBe(true);
      expect(await totals()).toEqual(settled);
      await runtime.drainTableStream();
    } finally {
      fault.stop();
    }
    expect(fault.failed()).toBe(true);
    expect((await totals()).s1).toBe(Number(settled.s1) + 1);
    expect(await item(store.keys.counted(third.id as number))).toMatchObject({ status: 1, version: 1 });

    // Records that keep failing past every retry are still kept (locally there is no dead-letter queue to hold
    // them): once the fault is gone they apply, counted once.
    const fourth = await ticket();
    // Imported once the runtime has set the log level (a module of the runtime's, imported first, logs at INFO).
    const { RETRY_ATTEMPTS } = await import('../../infra/local/table-stream');
    const failures = RETRY_ATTEMPTS + 2;
    const failing = failTransactions(dynamo, failures);
    try {
      for (let drains = 0; drains < 3 * failures && failing.failures() < failures; drains++)
        await runtime.drainTableStream();
      await runtime.drainTableStream();
    } finally {
      failing.stop();
    }
    expect(failing.failures()).toBe(failures);
    expect((await totals()).s1).toBe(Number(settled.s1) + 2);
    expect(await item(store.keys.counted(fourth.id as number))).toMatchObject({ status: 1, version: 1 });
  });
});

describe('deleting a queue: reservations and the arrivals counted (docs/data-model.md, "Deleting a queue")', () => {
  const FILLING = { detail: 'Tickets are being created in or moved to this queue: try again in a moment.' };
  const IN_USE = { detail: 'This queue still has tickets: move or delete them before deleting the queue.' };
  const newQueue = async () =>
    (
      await api.call('POST', '/api/queues/', {
        json: { title: 'Reserved', slug: `reserved-${Date.now()}-${Math.random().toString(36).slice(2)}` },
      })
    ).body;
  const queueItem = async (id: number) => (await item(store.keys.queue(id)))!;
  const deleteQueue = (id: number) => api.call('DELETE', `/api/queues/${id}/`);

  it(
    'a create or a move the counts do not hold yet: 409 "being created" (the queue reopened), then 409 "in use" ' +
      'once they do',
    async () => {
      await runtime.drainTableStream();
      const queue = await newQueue();
      const created = await ticket({ queue: queue.id });
      expect(await queueItem(queue.id)).toMatchObject({ reserved: 1 });
      const refused = await deleteQueue(queue.id);
      expect(refused.status).toBe(409);
      expect(refused.body).toEqual(FILLING);
      expect((await queueItem(queue.id)).closed_until).toBeUndefined();
      expect((await ticket({ queue: queue.id })).queue).toBe(queue.id); // open again

      await runtime.drainTableStream();
      expect(await totals()).toMatchObject({ [`q${queue.id}`]: 2, [`arr${queue.id}`]: 2 });
      expect((await deleteQueue(queue.id)).body).toEqual(IN_USE);

      // Moved out (not counted yet: still in use by the counts), and one moved in (not counted: filling).
      const other = await newQueue();
      for (const t of await Promise.all([created, ticket()])) {
        expect((await api.call('PATCH', `/api/tickets/${t.id}/`, { json: { queue: other.id } })).status).toBe(200);
      }
      expect((await deleteQueue(queue.id)).body).toEqual(IN_USE);
      expect((await deleteQueue(other.id)).body).toEqual(FILLING);
      await runtime.drainTableStream();
      expect(await totals()).toMatchObject({ [`q${other.id}`]: 2, [`arr${other.id}`]: 2, [`arr${queue.id}`]: 2 });
      expect((await deleteQueue(other.id)).body).toEqual(IN_USE);
    },
  );

  it(
    'a reservation whose write was refused is given back; one whose write may have happened is kept, and given ' +
      'up after its time',
    async () => {
      const { withReservation } = await import('../../shared/store/queue-reservations');
      const { transact } = await import('../../shared/store/transact');
      const { ITEM_IS_NEW } = await import('../../shared/store/keys');
      const { RESERVATION_GIVEN_UP_MS } = await import('../../shared/domain/queue-delete');
      await runtime.drainTableStream();
      const queue = await newQueue();
      const existing = await ticket();
      // A create whose ticket put is refused (its condition): nothing was written, the reservation goes back.
      const refusedPut = () =>
        transact([
          {
            Put: {
              TableName: table(),
              Item: { ...store.keys.ticket(existing.id as number) },
              ConditionExpression: ITEM_IS_NEW,
            },
          },
        ]);
      await expect(withReservation(queue.id as number, refusedPut)).rejects.toThrow('Condition failed');
      expect((await queueItem(queue.id)).reserved).toBe(0);
      expect((await deleteQueue(queue.id)).status).toBe(204);

      // A write that failed without saying whether it happened (a timeout, a crash): kept.
      const kept = await newQueue();
      await expect(
        withReservation(kept.id as number, () => Promise.reject(new Error('socket hang up'))),
      ).rejects.toThrow('socket hang up');
      expect((await queueItem(kept.id)).reserved).toBe(1);
      expect((await deleteQueue(kept.id)).body).toEqual(FILLING);
      // Older than any writer runs: given up, and the empty queue goes.
      await dynamo.send(
        new UpdateCommand({
          TableName: table(),
          Key: store.keys.queue(kept.id as number),
          UpdateExpression: 'SET last_reserved = :then',
          ExpressionAttributeValues: { ':then': Date.now() - RESERVATION_GIVEN_UP_MS - 1000 },
        }),
      );
      expect((await deleteQueue(kept.id)).status).toBe(204);
    },
  );

  it('a create into a queue another request is deleting waits for its answer: 400 once it is gone', async () => {
    await runtime.drainTableStream();
    const queue = await newQueue();
    // Held closed, as a delete does while it decides (DELETE then answers 409 "being deleted").
    await dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: store.keys.queue(queue.id as number),
        UpdateExpression: 'SET closed_until = :until',
        ExpressionAttributeValues: { ':until': Date.now() + 5000 },
      }),
    );
    expect((await deleteQueue(queue.id)).body).toEqual({ detail: 'This queue is being deleted by another request.' });
    // The create has reached its wait once its reservation was refused and it read the queue still there.
    const key = JSON.stringify(store.keys.queue(queue.id as number));
    const onQueue = (input: Json) => JSON.stringify(input.Key) === key;
    let refused = false;
    let reachedWait!: () => void;
    const waited = new Promise<void>((done) => (reachedWait = done));
    const stop = dynamo.intercept(async ({ operation, input }, next) => {
      // A transaction of one item is sent as a plain UpdateItem (store/transact.ts).
      const reserving =
        operation === 'UpdateItem' &&
        onQueue(input) &&
        String(input.UpdateExpression).startsWith('ADD #reserved :count');
      if (!reserving && !(refused && operation === 'GetItem' && onQueue(input))) return next();
      const answer = await next().catch((error: unknown) => {
        refused ||= reserving;
        throw error;
      });
      if (operation === 'GetItem' && answer.Item) reachedWait();
      return answer;
    });
    try {
      const waiting = api.call('POST', '/api/tickets/', {
        json: { queue: queue.id, title: 't', description: 'd', submitter_email: 'w@example.com' },
      });
      await waited;
      expect((await queueItem(queue.id)).reserved ?? 0).toBe(0); // nothing reserved while closed
      await dynamo.send(new DeleteCommand({ TableName: table(), Key: store.keys.queue(queue.id as number) }));
      const answer = await waiting;
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ queue: [`Invalid pk "${queue.id}" - object does not exist.`] });
    } finally {
      stop();
    }
  });
});

describe('what the consumer mends', () => {
  it(
    'a followup committed as its ticket was deleted goes, with its ref, and ' + 'its file is handed to the sweeper',
    async () => {
      const t = await ticket();
      const followup = (
        await api.call(
          'POST',
          '/api/followups/',
          multipart({ ticket: t.id, title: 'late', comment: 'c' }, [
            { field: 'attachments', name: 'late.txt', type: 'text/plain', content: 'x' },
          ]),
        )
      ).body;
      await runtime.drainTableStream();
      // The followup's transaction does not hold the ticket item: re-create the race by putting its
      // items back after the ticket's delete, as a commit landing just after it would.
      const keys = store.keys;
      const saved = await Promise.all([
        item(keys.followup(t.id as number, followup.id as number)),
        item(keys.ref('followup', followup.id as number)),
        item(keys.attachment(t.id as number, followup.followupattachment_set[0].id)),
      ]);
      expect((await api.call('DELETE', `/api/tickets/${t.id}/`)).status).toBe(204);
      await runtime.drainTableStream();
      for (const Item of saved) await dynamo.send(new PutCommand({ TableName: table(), Item: Item! }));
      await runtime.drainTableStream();

      expect(await item(keys.followup(t.id as number, followup.id as number))).toBeUndefined();
      expect(await item(keys.ref('followup', followup.id as number))).toBeUndefined();
      const cleanups = await dynamo.send(
        new QueryCommand({
          TableName: table(),
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: { ':pk': keys.fileCleanupPartition },
          ConsistentRead: true,
        }),
      );
      expect(cleanups.Items!.flatMap((c) => c.object_keys)).toContain(saved[2]!.object_key);
    },
  );

  it('a followup written under the status its ticket just left is re-keyed, and listed under the new one', async () => {
    const t = await ticket();
    const followup = (
      await api.call('POST', '/api/followups/', { json: { ticket: t.id, title: 'racing', comment: 'c' } })
    ).body;
    await api.call('PATCH', `/api/tickets/${t.id}/`, { json: { status: 2 } });
    await runtime.drainTableStream();
    // As if another followup had committed after the status change's re-keying read the collection:
    // inserted under the status the ticket left.
    const keys = store.keys;
    const late = {
      ...(await item(keys.followup(t.id as number, followup.id as number)))!,
      id: 1_000_000,
      title: 'late',
    };
    const key = keys.followup(t.id as number, late.id);
    await dynamo.send(
      new PutCommand({
        TableName: table(),
        Item: {
          ...late,
          ...key,
          ...keys.listAll(t.id as number, key.SK),
          ...keys.listByStatus(1, t.id as number, key.SK),
        },
      }),
    );
    await dynamo.send(
      new PutCommand({
        TableName: table(),
        Item: {
          ...keys.ref('followup', late.id),
          ...keys.refList('followup', late.id),
          type: 'ref',
          id: late.id,
          ticket: t.id,
        },
      }),
    );
    await runtime.drainTableStream();
    expect((await item(key))!.GSI2PK).toBe(keys.listByStatusPartition(2));
    const listed = (await api.call('GET', '/api/tickets/?status=2&page=last')).body.results as Json[];
    expect(listed.find((r) => r.id === t.id)!.followup_set.map((f: Json) => f.id)).toEqual([
      expect.any(Number),
      followup.id,
      late.id,
    ]);
  });
});

describe('list pages in a large table (simulated)', () => {
  const SIZE = 30_000;
  const PAGE = 25;
  let first: number;
  let before: number;
  let admin: number;

  beforeAll(async () => {
    await runtime.drainTableStream();
    before = await count();
    admin = (await api.call('GET', '/api/user_tickets/')).status === 200 ? 1 : 1;
    // Real tickets only where the pages under test read: the first pages, around page-number depth,
    // and the last pages of the simulated range.
    const depth = store.pageDepth;
    first = await store.simulateTickets(SIZE, admin, [
      [0, 60],
      [depth - before - 60, depth - before + 90],
      [SIZE - 60, SIZE],
    ]);
  }, 120_000);

  const ids = (body: Json) => (body.results as Json[]).map((t) => t.id as number);
  const get = async (query: string) => {
    const reply = await api.call('GET', `/api/tickets/?page_size=${PAGE}&${query}`);
    expect(reply.status, reply.text).toBe(200);
    return reply.body;
  };

  it('count every ticket, and serve the last page from the end', async () => {
    const last = await get('page=last');
    expect(last.count).toBe(before + SIZE);
    expect(ids(last).at(-1)).toBe(first + SIZE - 1);
    expect(last.next).toBeNull();
    expect(last.previous).toMatch(/page=\d+/);
  });

  it('number pages within the depth of either end, and link past it with a cursor', async () => {
    const total = before + SIZE;
    const deepest = Math.floor(store.pageDepth / PAGE) + 1; // the page that starts at offset MAX_PAGE_DEPTH
    const page = await get(`page=${deepest}`);
    expect(ids(page)[0]).toBe(first + store.pageDepth - before);
    expect(page.next).toMatch(/[?&]cursor=/);
    expect(page.previous).toMatch(new RegExp(`page=${deepest - 1}`));

    const next = await get(new URL(page.next as string).search.slice(1));
    expect(next.count).toBe(total);
    expect(ids(next)[0]).toBe(ids(page).at(-1)! + 1);
    expect(ids(next)).toHaveLength(PAGE);
    const back = await get(new URL(next.previous as string).search.slice(1));
    expect(ids(back)).toEqual(ids(page));
  });

  it('answer 400 to a page number deeper than that from both ends, and 404 to a cursor it did not make', async () => {
    const middle = Math.floor(SIZE / 2 / PAGE);
    const deep = await api.call('GET', `/api/tickets/?page_size=${PAGE}&page=${middle}`);
    expect(deep.status).toBe(400);
    expect(deep.body.detail).toMatch(/next and previous links/);
    const bad = await api.call('GET', '/api/tickets/?cursor=bm90LWEtY3Vyc29y');
    expect(bad.status).toBe(404);
    expect(bad.body).toEqual({ detail: 'Invalid cursor' });
  });

  it('read a numbered page from its first ticket where the counts say every id of its run is one', async () => {
    // One ticket a page, so that page n is the n-th ticket: the 38th of the simulated range, inside a full run.
    const wanted = first + 37;
    const starts: unknown[] = [];
    const stop = dynamo.intercept(async (call, next) => {
      if (call.operation === 'Query' && call.input.IndexName === 'gsi1')
        starts.push((call.input.ExpressionAttributeValues as Record<string, unknown>)[':from']);
      return next();
    });
    try {
      const reply = await api.call('GET', `/api/tickets/?page_size=1&page=${before + 38}`);
      expect(reply.status, reply.text).toBe(200);
      expect(ids(reply.body)).toEqual([wanted]);
    } finally {
      stop();
    }
    expect(starts).toEqual([store.keys.listFrom(wanted)]);
  });

  it('read a page of tickets the API created in one Query, little past the page', async () => {
    // The newest tickets, each one item (its opening followup inside it), read downwards from the top: the page and
    // one ticket more, to know whether there is a next page. A partition's first page asks for 4 items a ticket (108
    // here); each page after, for what the last one met, and a fifth more.
    const created: number[] = [];
    for (let i = 0; i < PAGE + 5; i++) {
      const reply = await api.call('POST', '/api/tickets/', {
        json: {
          queue: 1,
          title: `Unanswered ${i}`,
          description: 'Nobody answered yet.',
          submitter_email: 'new@example.com',
        },
      });
      expect(reply.status, reply.text).toBe(201);
      created.push(reply.body.id);
    }
    await get('ordering=-id');
    const reads: number[] = [];
    const stop = dynamo.intercept(async (call, next) => {
      const out = await next();
      if (call.operation === 'Query' && call.input.IndexName === 'gsi1') reads.push((out.Items as unknown[]).length);
      return out;
    });
    try {
      expect(ids(await get('ordering=-id'))).toEqual(created.reverse().slice(0, PAGE));
    } finally {
      stop();
    }
    expect(reads).toHaveLength(1);
    expect(reads[0]).toBeLessThanOrEqual(Math.ceil((PAGE + 1) * 1.2) + 4);
  });
});

describe('counts of a helpdesk with many queues and agents', () => {
  it(
    'the totals item stays small with 30 queues × 30 agents: the views count ' + 'in items of their own, each exact',
    async () => {
      const { applyTicketRecords } = await import('../../shared/consumer/ticket-counts');
      const { itemSize } = await import('../../bench/item-size');
      // One ticket per queue × assignee (statuses cycling), counted by the consumer's own code, on ids
      // and queues no other test uses (uncounted at the end).
      const QUEUES = 30;
      const AGENTS = 30;
      const FIRST = 10 ** 9;
      const stateOf = (i: number) => ({
        status: (i % 5) + 1,
        queue: 5000 + Math.floor(i / AGENTS),
        assigned: String(6000 + (i % AGENTS)),
        priority: 3,
      });
      const records = Array.from({ length: QUEUES * AGENTS }, (_, i) => ({
        ticket: FIRST + i,
        version: 1,
        state: stateOf(i),
      }));
      const before = itemSize(await totals());
      await applyTicketRecords(records);
      const size = itemSize(await totals());
      // 60 more queue and assignee counts: under a kilobyte more, not 900 × 3 view counts (about 12 KB
      // before they moved; 35 KB at 50 × 50).
      expect(size - before).toBeLessThan(1500);
      expect(size).toBeLessThan(4096); // a list page's count: one read unit
      for (const i of [0, 1, 449, 899]) {
        const { status, queue, assigned } = stateOf(i);
        expect(await count(`&status=${status}&queue=${queue}&assigned_to=${assigned}`)).toBe(1);
        expect(await count(`&queue=${queue}&assigned_to=${assigned}&ordering=-created`)).toBe(1);
        expect(await count(`&status=${status}&queue=${queue}&ordering=due_date`)).toBe(
          records.filter((r) => r.state.status === status && r.state.queue === queue).length,
        );
        expect(await count(`&status=${status}&assigned_to=${assigned}`)).toBe(
          records.filter((r) => r.state.status === status && r.state.assigned === assigned).length,
        );
      }
      await applyTicketRecords(records.map(({ ticket }) => ({ ticket, version: 0 })));
      expect(await count(`&queue=5000&assigned_to=6000`)).toBe(0);
      expect(await count(`&status=1&queue=5000`)).toBe(0);
    },
    120_000,
  );

  it(
    'a run of tickets another consumer moved meanwhile into view items of their own is applied in smaller ' +
      'transactions, each within 100 actions',
    async () => {
      const { applyTicketRecords } = await import('../../shared/consumer/ticket-counts');
      const FIRST = 2 * 10 ** 9;
      // From one shared view combination into one each: 23 + 1 block + 3 + 69 + 2 totals = 98 actions.
      const TICKETS = 23;
      const ids = Array.from({ length: TICKETS }, (_, i) => FIRST + i);
      await applyTicketRecords(
        ids.map((ticket) => ({ ticket, version: 1, state: { status: 1, queue: 7000, assigned: '8000', priority: 3 } })),
      );
      const later = ids.map((ticket, i) => ({
        ticket,
        version: 3,
        state: { status: 2, queue: 7001 + i, assigned: String(8001 + i), priority: 3 },
      }));
      // Another consumer (a replayed batch) counts version 2 of each, in a combination of its own, after this one read
      // version 1.
      const between = ids.map((ticket, i) => ({
        ticket,
        version: 2,
        state: { status: 3, queue: 7100 + i, assigned: String(8100 + i), priority: 3 },
      }));
      const transactions: number[] = [];
      const stop = dynamo.intercept(async (call, next) => {
        if (call.operation === 'TransactWriteItems') transactions.push((call.input.TransactItems as unknown[]).length);
        return next();
      });
      try {
        let interfered = false;
        await applyTicketRecords(later, async () => {
          if (interfered) return;
          interfered = true;
          await applyTicketRecords(between);
        });
      } finally {
        stop();
      }
      // Re-read, the run leaves 23 combinations and enters 23 others (164 actions): it is halved.
      expect(Math.max(...transactions)).toBeLessThanOrEqual(100);
      expect(transactions.length).toBeGreaterThanOrEqual(4); // the other consumer's, the refused one, two halves
      expect(await count('&queue=7000&assigned_to=8000')).toBe(0);
      for (const i of [0, 11, 22]) {
        expect(await count(`&status=2&queue=${7001 + i}&assigned_to=${8001 + i}`)).toBe(1);
        expect(await count(`&queue=${7100 + i}&assigned_to=${8100 + i}`)).toBe(0);
      }
      await applyTicketRecords(ids.map((ticket) => ({ ticket, version: 0 })));
    },
    120_000,
  );
});
