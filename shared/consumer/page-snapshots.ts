/**
 * Page snapshots (docs/data-model.md, "Filtered lists"): each ticket's collection as a list page
 * shows it (the ticket, its followups and their attachments), one item per ticket
 * (`LISTED#<id>` / `PAGE`) kept by the stream consumer. A filtered page reads its tickets' snapshots
 * in one BatchGetItem instead of one Query per ticket, and falls back to that Query only for a
 * ticket without one (too large to keep, or not yet written).
 *
 * The consumer rewrites a ticket's snapshot from its collection as stored (one strongly consistent
 * Query) whenever a record of the collection comes by (ticket, followup, attachment), once per
 * ticket per batch, and deletes it with the ticket. Reading the collection rather than applying the
 * record makes a repeated, late or retried batch harmless: it writes what is stored now.
 *
 * But for a new ticket whose create wrote nothing else into its collection (items.ts CREATED_ALONE),
 * when its INSERT is the batch's only record of the collection and comes in stream order: its image
 * is then the collection, so the snapshot is made from it without the Query (the one read of most
 * creates). Any later record of the collection comes after it, and rewrites it from the collection;
 * a repeat of the INSERT from a retry queue or a replay is late, and takes the Query.
 */
import { batchWrite, queryAll } from '../store/query';
import { keys, IN_PARTITION, KEY, KEY_ATTRIBUTES, TICKET_PREFIX, TICKET_SORT_KEY } from '../store/keys';
import { CREATED_ALONE } from '../store/items';
import type { TableChange } from './changes';

type Item = Record<string, unknown>;

/**
 * The largest collection kept as a snapshot (its JSON): 64 KB, a thread of forty or so mailed
 * replies, so that a page of real tickets stays one BatchGetItem (at 8 KB, about ten short
 * followups, a mail-fed helpdesk's tickets fell back to a Query each). A page reads a snapshot for
 * what its collection's Query would read (half a read unit per 4 KB); the price is the consumer's
 * rewrite, 1 write unit per KB, on each change of the ticket. A larger one is read by its Query.
 */
export const SNAPSHOT_MAX_BYTES = 64 * 1024;
/** Collections the consumer reads at once (strongly consistent Queries of one partition each). */
const PARALLEL_READS = 16;

/** The index keys an item carries, which a page never shows: left out of the snapshot. */
const INDEX_KEYS = new Set(KEY_ATTRIBUTES.filter((a) => a !== KEY.partition && a !== KEY.sort));

/** The snapshot item of a collection as stored, or undefined when it is too large to keep. */
export function snapshotItem(ticket: number, items: Item[]): Item | undefined {
  const kept = items.map((i) => Object.fromEntries(Object.entries(i).filter(([k]) => !INDEX_KEYS.has(k))));
  const json = JSON.stringify(kept);
  if (Buffer.byteLength(json) > SNAPSHOT_MAX_BYTES) return undefined;
  const version = Number(items.find((i) => i.SK === TICKET_SORT_KEY)?.version ?? 0);
  return { ...keys.pageSnapshot(ticket), ticket, version, items: json };
}

/** What a batch does to snapshots: the tickets to read again, the deleted ones, and the new ones made from images. */
export interface SnapshotChanges {
  refresh: number[];
  removed: number[];
  /** New tickets whose collection is their INSERT's image (see above), by id. */
  created: Map<number, Item>;
}

/** Whether `change` alone is a ticket's whole collection: a lone create's INSERT, in stream order. */
const isWholeCollection = (change: TableChange) =>
  change.eventName === 'INSERT' &&
  change.inStreamOrder === true &&
  change.keys.SK === TICKET_SORT_KEY &&
  change.newImage?.[CREATED_ALONE] === true;

/**
 * The tickets whose snapshot a batch changes: those with a record of their collection in it, and of
 * them the ones whose ticket item the batch ends with deleting (ids are never given again), and the
 * ones whose only record is a lone create's INSERT in stream order (`created`: no read).
 */
export function snapshotChanges(changes: TableChange[]): SnapshotChanges {
  const records = new Map<number, TableChange[]>();
  for (const c of changes) {
    if (!c.keys.PK.startsWith(TICKET_PREFIX)) continue;
    const ticket = Number(c.keys.PK.slice(TICKET_PREFIX.length));
    const list = records.get(ticket);
    if (list) list.push(c);
    else records.set(ticket, [c]);
  }
  const result: SnapshotChanges = { refresh: [], removed: [], created: new Map() };
  for (const [ticket, list] of records) {
    const last = list.findLast((c) => c.keys.SK === TICKET_SORT_KEY);
    if (last?.eventName === 'REMOVE') result.removed.push(ticket);
    else if (list.length === 1 && isWholeCollection(list[0]!)) result.created.set(ticket, list[0]!.newImage!);
    else result.refresh.push(ticket);
  }
  return result;
}

/**
 * The stream consumer's part for snapshots: rewrites those of the tickets a batch touches (1 Query
 * each, PARALLEL_READS at once; none for a lone create's) and deletes those of deleted tickets, 25 to a
 * BatchWriteItem.
 */
export async function refreshPageSnapshots(changes: TableChange[]): Promise<void> {
  const { refresh, removed, created } = snapshotChanges(changes);
  await writePageSnapshots(refresh, removed, created);
}

/**
 * Rewrites the snapshots of `refresh` from their collections as stored, writes those of `created` from their one
 * item, and deletes those of `removed` (the backfill's too).
 */
export async function writePageSnapshots(
  refresh: number[],
  removed: number[] = [],
  created = new Map<number, Item>(),
): Promise<void> {
  const puts: Item[] = [];
  const gone = removed.map((t) => keys.pageSnapshot(t));
  for (const [ticket, item] of created) {
    const snapshot = snapshotItem(ticket, [item]);
    if (snapshot) puts.push(snapshot);
    else gone.push(keys.pageSnapshot(ticket));
  }
  for (let i = 0; i < refresh.length; i += PARALLEL_READS) {
    await Promise.all(
      refresh.slice(i, i + PARALLEL_READS).map(async (ticket) => {
        const items = await queryAll({
          KeyConditionExpression: IN_PARTITION,
          ExpressionAttributeValues: { ':pk': keys.ticketPartition(ticket) },
          ConsistentRead: true,
        });
        const item = items.some((x) => x.SK === TICKET_SORT_KEY) ? snapshotItem(ticket, items) : undefined;
        if (item) puts.push(item);
        else gone.push(keys.pageSnapshot(ticket));
      }),
    );
  }
  await batchWrite(puts, gone);
}
