/**
 * Time spent's write half (docs/data-model.md, "Time spent"): per ticket with time, a summary of
 * what is counted (each day's followups with time, and the queue the day is counted under), and
 * per view (`ticket`, `queue`, `user`) one cell per day that the report sums (store/time-spent.ts).
 *
 * State-based, as the page snapshots are: a record of a followup whose time changed (created,
 * edited, deleted, moved to another ticket) does not carry its delta; the consumer reads what is
 * stored now (the followup's ref, the followup, its ticket: strongly consistent) and makes the
 * summaries say that, adding the difference to the cells in the same transaction, conditional on
 * the summaries' revisions. So a repeated, late or retried record changes nothing, and two batches
 * at once (records of two tickets in two shards) serialize on the summaries. A ticket's change of
 * queue moves its days' time to the new queue; a deleted ticket's time is taken out with it (its
 * followups' records, and the ticket's own, each take out what is still counted).
 */
import { GetCommand } from '../aws/dynamodb';
import { dynamo } from '../aws/clients';
import { config } from '../config';
import {
  changesTime,
  contributionOf,
  countedOf,
  moveDay,
  withFollowup,
  withoutFollowup,
  TIME_SPENT_DIMENSIONS,
  type CellDelta,
  type Contribution,
  type TicketTime,
} from '../domain/time-spent';
import { ITEM_IS_NEW, keys, TICKET_PREFIX, TICKET_SORT_KEY } from '../store/keys';
import { backOff, ConditionFailed, TransactionConflict, transact, type TransactItem } from '../store/transact';
import type { StreamConsumer, TableChange } from './changes';

type Item = Record<string, unknown>;

/** A summary as read: its time and the revision its rewrite is conditional on (0: none yet). */
interface Summary {
  ticket: number;
  rev: number;
  time: TicketTime;
}

/** Attempts of one recount that met another writer of the same summary before it gives up (the batch is retried). */
const ATTEMPTS = 8;
/** Cell updates per transaction at most, beside the summaries (DynamoDB's limit is 100 actions). */
const MAX_CELLS = 90;
/** Recounts at once. */
const PARALLEL = 8;

async function get(key: { PK: string; SK: string }): Promise<Item | undefined> {
  const out = await dynamo.send(new GetCommand({ TableName: config.tableName, Key: key, ConsistentRead: true }));
  return out.Item;
}

async function readSummary(ticket: number): Promise<Summary> {
  const item = await get(keys.timeSpentTicket(ticket));
  return { ticket, rev: Number(item?.rev ?? 0), time: (item?.time as TicketTime | undefined) ?? { days: {} } };
}

/** The summary's rewrite (or delete, when it holds nothing), conditional on the revision read. */
function summaryWrite(s: Summary): TransactItem {
  const key = keys.timeSpentTicket(s.ticket);
  const condition =
    s.rev === 0
      ? { ConditionExpression: ITEM_IS_NEW }
      : { ConditionExpression: '#rev = :rev', ExpressionAttributeNames: { '#rev': 'rev' } };
  const values = s.rev === 0 ? {} : { ExpressionAttributeValues: { ':rev': s.rev } };
  if (!Object.keys(s.time.days).length)
    return { Delete: { TableName: config.tableName, Key: key, ...condition, ...values } };
  return {
    Put: {
      TableName: config.tableName,
      Item: { ...key, ticket: s.ticket, rev: s.rev + 1, time: s.time },
      ...condition,
      ...values,
    },
  };
}

/** The cells' updates of some deltas, merged per cell (zero sums left out). */
function cellWrites(deltas: CellDelta[]): TransactItem[] {
  const sums = new Map<
    string,
    { key: { PK: string; SK: string }; queue: number | null; value: number | null; micros: number }
  >();
  for (const d of deltas) {
    for (const by of TIME_SPENT_DIMENSIONS) {
      const value = by === 'ticket' ? d.ticket : by === 'user' ? d.user : d.queue;
      const key = keys.timeSpentCell(by, d.day, d.queue, value);
      const id = `${key.PK}|${key.SK}`;
      const sum = sums.get(id) ?? { key, queue: d.queue, value, micros: 0 };
      sum.micros += d.micros;
      sums.set(id, sum);
    }
  }
  return [...sums.values()]
    .filter((s) => s.micros !== 0)
    .map((s) => ({
      Update: {
        TableName: config.tableName,
        Key: s.key,
        UpdateExpression: 'ADD #t :t SET #q = :q, #v = :v',
        ExpressionAttributeNames: { '#t': 'micros', '#q': 'queue', '#v': 'value' },
        ExpressionAttributeValues: { ':t': s.micros, ':q': s.queue, ':v': s.value },
      },
    }));
}

/** Commits the summaries changed and their deltas; false when another writer came first (read again). */
async function commit(summaries: Summary[], deltas: CellDelta[]): Promise<boolean> {
  // A summary never written that holds nothing still needs no write.
  const writes = summaries.filter((s) => s.rev > 0 || Object.keys(s.time.days).length).map(summaryWrite);
  try {
    await transact([...writes, ...cellWrites(deltas)]);
    return true;
  } catch (error) {
    if (error instanceof ConditionFailed || error instanceof TransactionConflict) return false;
    throw error;
  }
}

async function retried(what: string, attempt: () => Promise<boolean>): Promise<void> {
  for (let n = 1; n <= ATTEMPTS; n++) {
    if (await attempt()) return;
    await backOff(n);
  }
  throw new TransactionConflict(`time spent: ${what} kept meeting other writers`);
}

/** The ticket's queue now (undefined: no such ticket). */
async function currentQueue(ticket: number): Promise<{ queue: number | null } | undefined> {
  const item = await get(keys.ticket(ticket));
  return item && { queue: typeof item.queue === 'number' ? item.queue : null };
}

function sameCount(a: { day: string; user: number | null; micros: number }, b: Contribution): boolean {
  return a.day === b.day && a.user === b.user && a.micros === b.micros;
}

/**
 * Makes what is counted of followup `id` what is stored: taken out of the summaries of `tickets`
 * (those its records named) and of the ticket that holds it now, and counted there if it has time.
 */
async function recountFollowup(id: number, tickets: Set<number>): Promise<void> {
  await retried(`followup ${id}`, async () => {
    const ref = await get(keys.ref('followup', id));
    const holder = typeof ref?.ticket === 'number' ? ref.ticket : undefined;
    const [followup, ticket] =
      holder === undefined ? [] : await Promise.all([get(keys.followup(holder, id)), currentQueue(holder)]);
    const wanted = ticket ? contributionOf(followup) : null;
    const involved = [...new Set([...tickets, ...(holder === undefined ? [] : [holder])])];
    const summaries = await Promise.all(involved.map(readSummary));
    const deltas: CellDelta[] = [];
    const changed: Summary[] = [];
    for (const s of summaries) {
      const counted = countedOf(s.time, id);
      const here = wanted && s.ticket === wanted.ticket ? wanted : null;
      if (!counted && !here) continue;
      if (here && counted && sameCount(counted, here) && s.time.days[here.day]!.q === ticket!.queue) continue;
      deltas.push(...withoutFollowup(s.time, s.ticket, id));
      if (here) deltas.push(...withFollowup(s.time, id, here, ticket!.queue));
      changed.push(s);
    }
    return changed.length ? commit(changed, deltas) : true;
  });
}

/**
 * A ticket's queue changed, or the ticket is gone: moves its days' time to its queue now (some days
 * at a time, within a transaction's limit), or recounts each followup it still counts.
 */
async function recountTicket(ticket: number): Promise<void> {
  const first = await readSummary(ticket);
  if (first.rev === 0) return;
  const now = await currentQueue(ticket);
  if (!now) {
    const followups = Object.values(first.time.days).flatMap((d) => Object.keys(d.f).map(Number));
    for (const id of followups) await recountFollowup(id, new Set([ticket]));
    return;
  }
  for (let more = true; more;) {
    await retried(`ticket ${ticket}`, async () => {
      const s = await readSummary(ticket);
      const deltas: CellDelta[] = [];
      more = false;
      for (const day of Object.keys(s.time.days)) {
        const users = new Set(Object.values(s.time.days[day]!.f).map(([user]) => user)).size;
        if (s.time.days[day]!.q === now.queue) continue;
        if (deltas.length && cellWrites(deltas).length + 4 + 2 * users > MAX_CELLS) {
          more = true;
          break;
        }
        deltas.push(...moveDay(s.time, ticket, day, now.queue));
      }
      return deltas.length ? commit([s], deltas) : true;
    });
  }
}

/** The followups (with the tickets their records name) and the tickets a batch may change the time of. */
export function timeSpentWork(changes: TableChange[]): { followups: Map<number, Set<number>>; tickets: Set<number> } {
  const followups = new Map<number, Set<number>>();
  const tickets = new Set<number>();
  for (const c of changes) {
    if (!c.keys.PK.startsWith(TICKET_PREFIX)) continue;
    const ticket = Number(c.keys.PK.slice(TICKET_PREFIX.length));
    if (c.keys.SK === TICKET_SORT_KEY) {
      if (c.eventName === 'REMOVE' || (c.eventName === 'MODIFY' && c.oldImage?.queue !== c.newImage?.queue))
        tickets.add(ticket);
      continue;
    }
    const image = c.newImage ?? c.oldImage;
    if (image?.type !== 'followup' || !changesTime(c.oldImage, c.newImage)) continue;
    const id = Number(image.id);
    followups.set(id, (followups.get(id) ?? new Set()).add(ticket));
  }
  return { followups, tickets };
}

async function inParallel<T>(items: T[], work: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  const failures: unknown[] = [];
  const worker = async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift())
      await work(item).catch((e: unknown) => failures.push(e));
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, items.length) }, worker));
  if (failures.length) throw failures[0];
}

/**
 * The backfill's part (consumer/backfill.ts): recounts the followups with time among stored items, for a table
 * written before time spent was kept. The same state-based recount as the stream's, so running it twice, or while
 * writes go on, changes nothing it should not.
 */
export async function recountStoredFollowups(items: Item[]): Promise<number> {
  const timed = items.filter((i) => i.type === 'followup' && contributionOf(i));
  await inParallel(timed, (i) => recountFollowup(Number(i.id), new Set([Number(i.ticket)])));
  return timed.length;
}

async function applyTimeSpent(changes: TableChange[]): Promise<void> {
  const { followups, tickets } = timeSpentWork(changes);
  await inParallel([...followups], ([id, named]) => recountFollowup(id, named));
  await inParallel([...tickets], recountTicket);
}

export const TIME_SPENT: StreamConsumer = { name: 'time spent', apply: applyTimeSpent };
