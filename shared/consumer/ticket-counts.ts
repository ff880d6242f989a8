/**
 * Ticket counts (domain/ticket-counts.ts), kept from the table's stream by one consumer (the
 * CountTickets function on AWS, the local runtime's stream poller): no request's transaction
 * touches them, so concurrent writers never meet on a shared item. They lag a write by the stream's
 * delay (well under a second), and are exact: each ticket's counted state is stored beside the
 * counts (`COUNTED#<id>`), written in the same transaction, conditional on what was read.
 */
import { config } from '../config';
import {
  chunkMoves,
  countChanges,
  legacyViewCount,
  statusAttribute,
  transactionActions,
  viewCountId,
  type CountChanges,
  type Counted,
  type CountedState,
  type TicketRecord,
  type ViewCountItem,
} from '../domain/ticket-counts';
import { keys, ITEM_IS_NEW } from '../store/keys';
import { RESERVATION_VERSION } from '../store/items';
import { batchGet } from '../store/query';
import { readTotals } from '../store/ticket-counts';
import { ConditionFailed, transact, type TransactItem } from '../store/transact';

type Item = Record<string, unknown>;

/**
 * DynamoDB's limit on actions per transaction (COUNTED items, the blocks and view count items they touch, the
 * totals).
 */
export const MAX_ACTIONS = 100;

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

/**
 * What a ticket item (a stream image, or the item as stored) says to the counts: its state at its version, and whether
 * that version's write reserved in its queue.
 */
export function ticketRecordOf(ticket: Item): TicketRecord {
  const version = Number(ticket.version ?? 0);
  return {
    ticket: Number(ticket.id),
    version,
    state: countedStateOf(ticket),
    ...(version > 0 && Number(ticket[RESERVATION_VERSION]) === version ? { reserved: true } : {}),
  };
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

function addExpression(
  deltas: Map<string, number>,
): Pick<
  NonNullable<TransactItem['Update']>,
  'UpdateExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'
> {
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
      ...(previous
        ? {
            ExpressionAttributeNames: { '#version': 'version' },
            ExpressionAttributeValues: { ':read': previous.version },
          }
        : {}),
    },
  }));
  for (const [block, deltas] of changes.blocks)
    items.push({ Update: { TableName: config.tableName, Key: keys.countsBlock(block), ...addExpression(deltas) } });
  for (const { item, deltas } of changes.views.values())
    items.push({ Update: { TableName: config.tableName, Key: keys.countsView(item), ...addExpression(deltas) } });
  if (changes.totals.size)
    items.push({ Update: { TableName: config.tableName, Key: keys.countsTotals, ...addExpression(changes.totals) } });
  return items;
}

/** The tickets whose counted state a transaction is about to move, from what to what. */
export type CountedMoves = CountChanges['counted'];

/**
 * Applies stream records of ticket items to the counts, exactly once per change whatever the
 * records' repetition. Returns the live tickets whose counted status changed (their collections
 * may need re-keying: consumer/collection-repair.ts).
 *
 * `beforeCommit` gets, before the transactions, the tickets they move (those whose records are
 * newer than what is counted): what else is kept per ticket version (listing items) is written
 * then, so each transaction, conditional on the counted states read, commits it; a retry after a
 * failure in between writes it again.
 *
 * Round trips, which a burst makes slow (each waits behind the burst's requests): the counted
 * states of the whole batch are read at once and `beforeCommit` gets all its tickets at once; only
 * the transactions go one after another (they share the totals and view count items). A transaction whose condition
 * fails (another consumer moved one of its tickets) reads its tickets again, up to ROUNDS times.
 */
export async function applyTicketRecords(
  records: TicketRecord[],
  beforeCommit?: (moves: CountedMoves) => Promise<void>,
): Promise<number[]> {
  const statusChanged: number[] = [];
  const commit = async (changes: CountChanges) => {
    await transact(countTransaction(changes, Date.now()));
    for (const { ticket, next, previous } of changes.counted) {
      if (previous && previous.status !== 0 && next.status !== 0 && previous.status !== next.status)
        statusChanged.push(ticket);
    }
  };
  const counted = await readCounted([...new Set(records.map((r) => r.ticket))]);
  const moving = countChanges(records, counted).counted;
  if (!moving.length) return statusChanged;
  await beforeCommit?.(moving);
  const applyChunk = async (ids: number[]): Promise<void> => {
    const chunk = new Set(ids);
    const mine = records.filter((r) => chunk.has(r.ticket));
    let changes = countChanges(mine, counted);
    for (let round = 1; changes.counted.length; round++) {
      // A re-read state (another consumer's) may touch view count items the cut did not foresee.
      if (transactionActions(changes) > MAX_ACTIONS && ids.length > 1) {
        await applyChunk(ids.slice(0, ids.length >> 1));
        await applyChunk(ids.slice(ids.length >> 1));
        return;
      }
      try {
        await commit(changes);
        return;
      } catch (error) {
        // Another consumer (a retried batch, a replay) changed a counted state since the read.
        if (!(error instanceof ConditionFailed) || round === ROUNDS) throw error;
      }
      for (const [ticket, state] of await readCounted(ids)) counted.set(ticket, state);
      changes = countChanges(mine, counted);
      if (changes.counted.length) await beforeCommit?.(changes.counted);
    }
  };
  for (const ids of chunkMoves(moving, MAX_ACTIONS)) await applyChunk(ids);
  return statusChanged;
}

/**
 * Upgrades a table whose totals items still hold the agent views' counts (an earlier version kept
 * `sq…`, `sa…`, `sqa…` there): moves them into the view count items, each transaction removing a
 * run of them from the totals item (conditional on the values read) and adding them to their
 * items, so a count moves exactly once, and changes the consumer counted meanwhile (into the view
 * items already) add up. Returns the attributes moved; nothing to do once done.
 */
export async function moveViewCountsOutOfTotals(): Promise<number> {
  let moved = 0;
  for (let round = 0; ; round++) {
    const totals = await readTotals();
    const legacy = Object.entries(totals ?? {}).flatMap(([attribute, value]) => {
      const found = legacyViewCount(attribute);
      return found ? [{ attribute, value: Number(value), ...found }] : [];
    });
    if (!legacy.length) return moved;
    let conflicted = false;
    // Runs within an expression's 4 KB (100 attributes) and a transaction's 100 actions.
    for (let i = 0; i < legacy.length; i += LEGACY_PER_TRANSACTION) {
      const run = legacy.slice(i, i + LEGACY_PER_TRANSACTION);
      const views = new Map<string, { item: ViewCountItem; deltas: Map<string, number> }>();
      for (const { item, status, value } of run) {
        const id = viewCountId(item);
        if (!views.has(id)) views.set(id, { item, deltas: new Map() });
        const deltas = views.get(id)!.deltas;
        deltas.set(statusAttribute(status), (deltas.get(statusAttribute(status)) ?? 0) + value);
      }
      const names = Object.fromEntries(run.map(({ attribute }, n) => [`#r${n}`, attribute]));
      const remove = `REMOVE ${run.map((_, n) => `#r${n}`).join(', ')}`;
      const actions: TransactItem[] = [
        {
          Update: {
            TableName: config.tableName,
            Key: keys.countsTotals,
            UpdateExpression: remove,
            ConditionExpression: run.map((_, n) => `#r${n} = :r${n}`).join(' AND '),
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: Object.fromEntries(run.map(({ value }, n) => [`:r${n}`, value])),
          },
        },
        ...[...views.values()].map(({ item, deltas }) => ({
          Update: { TableName: config.tableName, Key: keys.countsView(item), ...addExpression(deltas) },
        })),
      ];
      try {
        await transact(actions);
        moved += run.length;
      } catch (error) {
        // The consumer of an earlier version changed one of them since the read: read again.
        if (!(error instanceof ConditionFailed) || round === ROUNDS) throw error;
        conflicted = true;
      }
    }
    if (!conflicted) return moved;
  }
}
/**
 * Legacy attributes moved per transaction: at most 99 view items besides the totals, and a condition expression
 * under 4 KB.
 */
const LEGACY_PER_TRANSACTION = 90;
