/**
 * Ticket counts (domain/ticket-counts.ts), kept from the table's stream by one consumer (the
 * CountTickets function on AWS, the local runtime's stream poller): no request's transaction
 * touches them, so concurrent writers never meet on a shared item. They lag a write by the stream's
 * delay (well under a second), and are exact: each ticket's counted state is stored beside the
 * counts (`COUNTED#<id>`), written in the same transaction, conditional on what was read.
 */
import { QueryCommand } from './dynamodb';
import { config } from '../config';
import { TICKET_BLOCK, countChanges, type CountChanges, type Counted, type CountedState, type TicketRecord } from '../domain/ticket-counts';
import { dynamo } from './clients';
import { keys, ITEM_IS_NEW, IN_PARTITION } from './keys';
import { RESERVATION_VERSION } from './items';
import { batchGet } from './query';
import { ConditionFailed, transact, type TransactItem } from './transact';

type Item = Record<string, unknown>;

/** DynamoDB's limit on actions per transaction (COUNTED items, the blocks they fall in, the two totals). */
const MAX_ACTIONS = 100;

/** The tickets in id order, cut where a transaction of their counts would pass MAX_ACTIONS. */
function chunks(tickets: number[]): number[][] {
  const result: number[][] = [];
  let chunk: number[] = [];
  let blocks = new Set<number>();
  for (const id of [...tickets].sort((a, b) => a - b)) {
    const block = Math.floor(id / TICKET_BLOCK);
    const nextBlocks = blocks.has(block) ? blocks.size : blocks.size + 1;
    if (chunk.length && chunk.length + 1 + nextBlocks + 2 > MAX_ACTIONS) {
      result.push(chunk);
      chunk = [];
      blocks = new Set();
    }
    chunk.push(id);
    blocks.add(block);
  }
  if (chunk.length) result.push(chunk);
  return result;
}
/** Rounds of re-reading after another consumer changed a ticket's counted state under us. */
const ROUNDS = 5;
/** A deleted ticket's tombstone outlives the stream's 24-hour retention, then goes. */
const TOMBSTONE_SECONDS = 2 * 86_400;

/** What the counts keep of a ticket item (a stream image, or the item as stored). */
export function countedStateOf(ticket: Item): CountedState {
  return {
    status: Number(ticket.status),
    queue: Number(ticket.queue),
    assigned: ticket.assigned_to == null ? 'none' : String(Number(ticket.assigned_to)),
    priority: Number(ticket.priority),
  };
}

/** What a ticket item (a stream image, or the item as stored) says to the counts: its state at its version, and whether that version's write reserved in its queue. */
export function ticketRecordOf(ticket: Item): TicketRecord {
  const version = Number(ticket.version ?? 0);
  return { ticket: Number(ticket.id), version, state: countedStateOf(ticket), ...(version > 0 && Number(ticket[RESERVATION_VERSION]) === version ? { reserved: true } : {}) };
}

async function readCounted(tickets: number[]): Promise<Map<number, Counted>> {
  const counted = new Map<number, Counted>();
  for (const item of await batchGet(tickets.map((id) => keys.counted(id)))) {
    counted.set(Number(item.ticket), {
      status: Number(item.status),
      queue: Number(item.queue),
      ...(item.assigned === undefined ? {} : { assigned: item.assigned as string }),
      ...(item.priority === undefined ? {} : { priority: Number(item.priority) }),
      version: Number(item.version),
    });
  }
  return counted;
}

function addExpression(deltas: Map<string, number>): Pick<NonNullable<TransactItem['Update']>, 'UpdateExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'> {
  const entries = [...deltas];
  return {
    UpdateExpression: `ADD ${entries.map((_, i) => `#a${i} :d${i}`).join(', ')}`,
    ExpressionAttributeNames: Object.fromEntries(entries.map(([name], i) => [`#a${i}`, name])),
    ExpressionAttributeValues: Object.fromEntries(entries.map(([, delta], i) => [`:d${i}`, delta])),
  };
}

/** One transaction: the tickets' counted states (each conditional on what was read) and the count deltas. */
function countTransaction(changes: ReturnType<typeof countChanges>, now: number): TransactItem[] {
  const items: TransactItem[] = changes.counted.map(({ ticket, next, previous }) => ({
    Put: {
      TableName: config.tableName,
      Item: {
        ...keys.counted(ticket),
        ticket,
        ...next,
        ...(next.status === 0 ? { expires_at: Math.floor(now / 1000) + TOMBSTONE_SECONDS } : {}),
      },
      ConditionExpression: previous ? '#version = :read' : ITEM_IS_NEW,
      ...(previous ? { ExpressionAttributeNames: { '#version': 'version' }, ExpressionAttributeValues: { ':read': previous.version } } : {}),
    },
  }));
  for (const [block, deltas] of changes.blocks) items.push({ Update: { TableName: config.tableName, Key: keys.countsBlock(block), ...addExpression(deltas) } });
  if (changes.totals.size) {
    for (const Key of [keys.countsTotalsFirst, keys.countsTotalsLast]) items.push({ Update: { TableName: config.tableName, Key, ...addExpression(changes.totals) } });
  }
  return items;
}

/** The tickets whose counted state a transaction is about to move, from what to what. */
export type CountedMoves = CountChanges['counted'];

/**
 * Applies stream records of ticket items to the counts, exactly once per change whatever the
 * records' repetition. Returns the live tickets whose counted status changed (their collections
 * may need re-keying: store/collection-repair.ts).
 *
 * `beforeCommit` gets, before the transactions, the tickets they move (those whose records are
 * newer than what is counted): what else is kept per ticket version (listing records) is written
 * then, so each transaction, conditional on the counted states read, commits it; a retry after a
 * failure in between writes it again.
 *
 * Round trips, which a burst makes slow (each waits behind the burst's requests): the counted
 * states of the whole batch are read at once and `beforeCommit` gets all its tickets at once; only
 * the transactions go one after another (they share the totals). A transaction whose condition
 * fails (another consumer moved one of its tickets) reads its tickets again, up to ROUNDS times.
 */
export async function applyTicketRecords(records: TicketRecord[], beforeCommit?: (moves: CountedMoves) => Promise<void>): Promise<number[]> {
  const statusChanged: number[] = [];
  const commit = async (changes: CountChanges) => {
    await transact(countTransaction(changes, Date.now()));
    for (const { ticket, next, previous } of changes.counted) {
      if (previous && previous.status !== 0 && next.status !== 0 && previous.status !== next.status) statusChanged.push(ticket);
    }
  };
  const counted = await readCounted([...new Set(records.map((r) => r.ticket))]);
  const moving = countChanges(records, counted).counted;
  if (!moving.length) return statusChanged;
  await beforeCommit?.(moving);
  for (const ids of chunks(moving.map((m) => m.ticket))) {
    const chunk = new Set(ids);
    const mine = records.filter((r) => chunk.has(r.ticket));
    let changes = countChanges(mine, counted);
    for (let round = 1; changes.counted.length; round++) {
      try {
        await commit(changes);
        break;
      } catch (error) {
        // Another consumer (a retried batch, a replay) changed a counted state since the read.
        if (!(error instanceof ConditionFailed) || round === ROUNDS) throw error;
      }
      changes = countChanges(mine, await readCounted(ids));
      if (changes.counted.length) await beforeCommit?.(changes.counted);
    }
  }
  return statusChanged;
}

/** A page of the counts partition from one end: the totals item first, then block items. */
export async function readCounts(from: 'first' | 'last', limit: number, startKey?: Item): Promise<{ items: Item[]; next?: Item }> {
  const out = await dynamo.send(
    new QueryCommand({
      TableName: config.tableName,
      KeyConditionExpression: IN_PARTITION,
      ExpressionAttributeValues: { ':pk': keys.countsPartition },
      ScanIndexForward: from === 'first',
      Limit: limit,
      ExclusiveStartKey: startKey,
      ConsistentRead: true,
    }),
  );
  return { items: out.Items ?? [], next: out.LastEvaluatedKey };
}

/** The totals item alone (per status `s<n>`, per queue `q<id>`), strongly consistent. */
export async function readTotals(): Promise<Item | undefined> {
  const { items } = await readCounts('first', 1);
  return items[0]?.SK === keys.countsTotalsFirst.SK ? items[0] : undefined;
}
