/**
 * GET /api/tickets/ in id order with `created_since` (issue 24; docs/data-model.md, "Filtered
 * lists"): the list reads only ids above its id floor, that of the ticket created last before the
 * time asked for less CREATION_SPAN_MS (ids follow creation times), so recent tickets in a table of
 * older ones are on the first page, and `-id` ends at the floor instead of walking to the oldest
 * ticket.
 *
 * This file runs its own runtime in-process with the stream poller off (HELPDESK_STREAM_POLL_MS=0),
 * on a table of its own, so that it knows every ticket the table holds: older tickets are written
 * straight into it (bench/seed.ts), created days ago with ids reserved before the recent ones, as the
 * ids of tickets created then would be.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetCommand, type DynamoDB } from '../../shared/aws/dynamodb';
import { ADMIN_ID, clientFor, type Json } from './client';
import { startInProcessRuntime } from './in-process-runtime';

let runtime: Awaited<ReturnType<typeof startInProcessRuntime>>;
let api: ReturnType<typeof clientFor>;
let dynamo: DynamoDB;
let ticketKey: (id: number) => Record<string, string>;

const DAY = 86_400_000;
/** Created two days ago: below every floor here. */
let old: number[];
/**
 * Created 5 minutes before the time asked for, written straight in: within CREATION_SPAN_MS of it, so above the floor,
 * read and checked.
 */
let lately: number[];
/** Created over HTTP just before the time asked for (within the span too). */
let before: Json[];
/** Created at or after the time asked for: what the lists hold. */
let recent: Json[];
/** The time asked for: exactly the first recent ticket's `created`. */
let since: string;
let budget: number;

async function created(id: number): Promise<string> {
  const item = (
    await dynamo.send(new GetCommand({ TableName: process.env.TABLE_NAME!, Key: ticketKey(id), ConsistentRead: true }))
  ).Item!;
  return String(item.created);
}

/**
 * One page: its tickets' ids, its links, and the DynamoDB calls it made (the operation, and for a Query its partition).
 */
async function page(path: string): Promise<{ ids: number[]; body: Json; calls: string[] }> {
  await api.call('GET', path); // warm: the credential and custom fields are cached
  const calls: string[] = [];
  // The page's own reads (as ticket-filters.test.ts counts them): not the caller's credential or the custom fields.
  const stop = dynamo.intercept(async (call, next) => {
    const input = JSON.stringify(call.input);
    const values = (call.input as { ExpressionAttributeValues?: Record<string, unknown> }).ExpressionAttributeValues;
    if (!/"(USER#|TOKEN#|CUSTOM_FIELDS)/.test(input))
      calls.push(call.operation === 'Query' ? `Query ${String(values?.[':pk'])}` : call.operation);
    return next();
  });
  try {
    const reply = await api.call('GET', path);
    expect(reply.status, reply.text).toBe(200);
    return { ids: reply.body.results.map((t: Json) => t.id as number), body: reply.body, calls };
  } finally {
    stop();
  }
}

/** Every page from the first, following `next`: the ids in the order listed, and the pages. */
async function listIds(query: string, pageSize: number): Promise<{ ids: number[]; pages: Json[] }> {
  const pages: Json[] = [];
  let url: string | null = `/api/tickets/?page_size=${pageSize}&${query}`;
  while (url) {
    const reply = await api.call('GET', url);
    expect(reply.status, reply.text).toBe(200);
    pages.push(reply.body);
    url = reply.body.next === null ? null : reply.body.next.slice(api.url.length);
    expect(pages.length).toBeLessThan(50);
  }
  return { ids: pages.flatMap((p) => p.results.map((t: Json) => t.id as number)), pages };
}

const sinceQuery = (time: string) => `created_since=${encodeURIComponent(time)}`;
const recentIds = () => recent.map((t) => t.id as number);
/** The five priorities' ranges of the whole table by priority (`all@priority`), one Query each. */
const priorityPartitions = (calls: string[]) => calls.filter((c) => c === 'Query LIST#all@priority');

beforeAll(async () => {
  runtime = await startInProcessRuntime({ HELPDESK_STREAM_POLL_MS: '0' });
  api = clientFor(runtime.url);
  ({ dynamo } = await import('../../shared/aws/clients'));
  ticketKey = (await import('../../shared/store/keys')).keys.ticket;
  budget = (await import('../../shared/store/filtered-lists')).CHECK_BUDGET;
  const { seedTickets } = await import('../../bench/seed');
  const { CREATION_SPAN_MS } = await import('../../shared/domain/ticket-list-query');
  // More old tickets than a page reads: a list that walked from the oldest would show none of the recent ones on its
  // first page.
  old = await seedTickets(budget + 50, ADMIN_ID, undefined, 2 * DAY);
  lately = await seedTickets(5, ADMIN_ID, undefined, 5 * 60_000);
  expect(5 * 60_000).toBeLessThan(CREATION_SPAN_MS);
  before = [];
  for (let i = 0; i < 2; i++)
    before.push(
      (await api.createTicket({ title: `before ${i}`, queue: 1, submitter_email: 'customer0@example.com' })).body,
    );
  recent = [];
  for (let i = 0; i < 3; i++)
    recent.push(
      (
        await api.createTicket({
          title: `recent ${i}`,
          queue: 1,
          priority: i + 1,
          submitter_email: 'customer0@example.com',
        })
      ).body,
    );
  since = await created(recent[0]!.id);
  // The tickets made over HTTP just before are earlier than the time asked for, by a moment (each request stamps its
  // own).
  for (const t of before) expect(await created(t.id)).not.toBe(since);
  expect((await created(before[1]!.id)) < since).toBe(true);
  await runtime.drainTableStream();
}, 180_000);

afterAll(async () => {
  await runtime?.stop();
});

describe('id order with created_since reads only ids above its floor', () => {
  it(
    'ordering=id: exactly the recent tickets on the first page, in order, the list over (7 requests: the floor, ' +
      '5 partitions, 1 BatchGetItem)',
    async () => {
      const { ids, body, calls } = await page(`/api/tickets/?page_size=10&${sinceQuery(since)}&ordering=id`);
      expect(ids).toEqual(recentIds());
      expect(body.next).toBeNull();
      expect(body.previous).toBeNull();
      expect(body.count).toBeNull();
      // The floor's Query (the created partition, newest first, one entry) before the five priority partitions, read
      // from the floor up.
      expect(calls[0]).toBe('Query LIST#created');
      expect(priorityPartitions(calls)).toHaveLength(5);
      expect(calls.filter((c) => c === 'BatchGetItem')).toHaveLength(1);
      expect(calls, calls.join(', ')).toHaveLength(7);
    },
  );

  it(
    'ordering=-id: the recent tickets newest first, and the list ends at the floor (next null) without reading ' +
      'the old ones',
    async () => {
      const { ids, body, calls } = await page(`/api/tickets/?page_size=10&${sinceQuery(since)}&ordering=-id`);
      expect(ids).toEqual(recentIds().reverse());
      expect(body.next).toBeNull();
      expect(body.previous).toBeNull();
      expect(calls.filter((c) => c === 'Query LIST#created')).toHaveLength(1);
      expect(priorityPartitions(calls)).toHaveLength(5);
      expect(calls, calls.join(', ')).toHaveLength(7);
    },
  );

  it(
    'page by page, both ways, with previous links back: the same tickets; a page after a cursor (read upward) ' +
      'does not ask for the floor',
    async () => {
      for (const [ordering, want] of [
        ['id', recentIds()],
        ['-id', recentIds().reverse()],
      ] as const) {
        const { ids, pages } = await listIds(`${sinceQuery(since)}&ordering=${ordering}`, 1);
        expect(ids, ordering).toEqual(want);
        expect(pages).toHaveLength(3);
        for (let n = pages.length - 1; n > 0; n--) {
          const back = await api.call('GET', pages[n]!.previous.slice(api.url.length));
          expect(back.body.results.map((t: Json) => t.id)).toEqual(pages[n - 1]!.results.map((t: Json) => t.id));
        }
        // The first page's previous link leads nowhere, even read back from the second: the floor ends it.
        const second = await api.call('GET', pages[1]!.previous.slice(api.url.length));
        expect(second.body.previous).toBeNull();
      }
      const { pages } = await listIds(`${sinceQuery(since)}&ordering=id`, 1);
      const next = await page(pages[0]!.next.slice(api.url.length));
      expect(next.ids).toEqual([recentIds()[1]]);
      expect(next.calls).not.toContain('Query LIST#created');
      expect(next.calls, next.calls.join(', ')).toHaveLength(6);
    },
  );

  it(
    'every id-ordered source with created_since: a queue, a submitter, an agent view, a priority, with status ' +
      'besides',
    async () => {
      const third = recent[2]!;
      for (const [query, want] of [
        ['queue=1', recentIds()],
        ['submitter_email=customer0%40example.com', recentIds()],
        ['status=1&queue=1', recentIds()],
        ['status=1&assigned_to=none', recentIds()],
        ['status=1&queue=1&assigned_to=none', recentIds()],
        [`priority=${third.priority}`, [third.id]],
        ['status=1', recentIds()],
        ['status=2', []],
      ] as const) {
        for (const [ordering, order] of [
          ['id', [...want]],
          ['-id', [...want].reverse()],
        ] as const) {
          const { ids, body } = await page(
            `/api/tickets/?page_size=10&${query}&${sinceQuery(since)}&ordering=${ordering}`,
          );
          expect(ids, `${query} ${ordering}`).toEqual(order);
          expect(body.next, `${query} ${ordering}`).toBeNull();
        }
      }
    },
  );

  it('a time in the future: nothing, on the first page, both ways', async () => {
    const future = new Date(Date.now() + DAY).toISOString();
    for (const ordering of ['id', '-id']) {
      const { ids, body } = await page(`/api/tickets/?page_size=10&${sinceQuery(future)}&ordering=${ordering}`);
      expect(ids).toEqual([]);
      expect(body.next).toBeNull();
    }
  });

  it('a time before every ticket: no floor, every ticket, both ways', async () => {
    const all = [...old, ...lately, ...before.map((t) => t.id as number), ...recentIds()];
    const first = new Date(Date.now() - 3 * DAY).toISOString();
    expect((await listIds(`${sinceQuery(first)}&ordering=id`, 100)).ids).toEqual(all);
    expect((await listIds(`${sinceQuery(first)}&ordering=-id`, 100)).ids).toEqual([...all].reverse());
  });

  it('a time among the old tickets: those created since, then every later one', async () => {
    const at = await created(old[budget]!);
    const want = [...old.slice(budget), ...lately, ...before.map((t) => t.id as number), ...recentIds()];
    expect((await listIds(`${sinceQuery(at)}&ordering=id`, 100)).ids).toEqual(want);
    expect((await listIds(`${sinceQuery(at)}&ordering=-id`, 100)).ids).toEqual([...want].reverse());
  });

  it(
    'the tickets created within the span before the time are read and left out: ' + 'none created since is skipped',
    async () => {
      // Just after the last of the tickets written 5 minutes before: they are above the floor, and do not match.
      const at = await created(lately.at(-1)!);
      const after = `${at.slice(0, 20)}${String(Number(at.slice(20, 26)) + 1).padStart(6, '0')}Z`;
      const want = [...before.map((t) => t.id as number), ...recentIds()];
      const { ids, body } = await page(`/api/tickets/?page_size=10&${sinceQuery(after)}&ordering=id`);
      expect(ids).toEqual(want);
      expect(body.next).toBeNull();
      expect((await page(`/api/tickets/?page_size=10&${sinceQuery(after)}&ordering=-id`)).ids).toEqual(
        [...want].reverse(),
      );
    },
  );
});
