/**
 * The search index's stream consumer: each batch of table changes becomes one transaction on the
 * engine (sql.ts APPLY), whatever its size. Every ticket, followup and attachment item, and every
 * custom field definition, is replaced whole by its latest image in the batch (or removed), so the
 * consumer is idempotent: a batch that comes again, or a record late, leaves the same index once the
 * stream is applied. The same code rebuilds the index from the table (rebuild.ts).
 *
 * A queue's item gives its tickets' language (domain/search-language.ts). Queue items change with
 * every ticket put into the queue (its reservations): only a change of its configuration is applied,
 * and that re-indexes the queue's tickets after the batch, in bounded transactions (sql.ts REINDEX).
 */
import type { TableChange } from '../consumer/changes';
import { keys, TICKET_PREFIX, TICKET_SORT_KEY } from '../store/keys';
import { searchConfigOf } from '../domain/search-language';
import { openingOf } from '../store/items';
import { config } from '../config';
import {
  attachmentItemName,
  attachmentParts,
  followupItemName,
  followupParts,
  TICKET_ITEM,
  ticketParts,
  type SearchPart,
} from '../domain/search';
import type { Attachment, Followup, Ticket } from '../domain/records';
import type { SearchDriver, Statement } from './driver';
import { searchEngine } from './engine';
import { wellFormed } from '../domain/unicode';
import { APPLY, REINDEX, SCHEMA } from './sql';

type Item = Record<string, unknown>;

/**
 * The index's rows as JSON for PostgreSQL, each string well-formed: a lone surrogate (which the API refuses, but a
 * record written before or by other means might hold) would make PostgreSQL refuse the whole batch.
 */
const json = (value: unknown) =>
  JSON.stringify(value, (_, field: unknown) => (typeof field === 'string' ? wellFormed(field) : field));

/** Whether the index keeps anything of this record's item. */
const indexed = (change: TableChange) =>
  change.keys.PK.startsWith(TICKET_PREFIX) || change.keys.PK === keys.customFieldPartition || isQueue(change);

const isQueue = (change: TableChange) =>
  change.keys.PK === keys.queuePartition && change.keys.SK.startsWith(keys.queueSortPrefix);

/**
 * Whether a queue's changes in a batch, from its `first` to its `last`, are ones the index takes: the queue made
 * or deleted, or its configuration changed (a reservation after its create or its new language is in the same batch).
 */
const configChanged = (first: TableChange, last: TableChange) =>
  first.eventName !== 'MODIFY' ||
  last.eventName !== 'MODIFY' ||
  !first.oldImage ||
  searchConfigOf(first.oldImage.locale) !== searchConfigOf(last.newImage?.locale);

/** The statements that bring the index up to `changes` (the latest image of each item wins). */
export function statementsOf(changes: readonly TableChange[]): Statement[] {
  const latest = new Map<string, TableChange>();
  const first = new Map<string, TableChange>();
  for (const change of changes) {
    if (!indexed(change)) continue;
    const key = `${change.keys.PK}\u0000${change.keys.SK}`;
    latest.set(key, change);
    if (!first.has(key)) first.set(key, change);
  }
  if (!latest.size) return [];
  const removedTickets: number[] = [];
  const ticketRows: Item[] = [];
  const items: { ticket: number; item: string }[] = [];
  const parts: SearchPart[] = [];
  const followups: { id: number; ticket: number; private: boolean }[] = [];
  const removedFollowups: number[] = [];
  const fields: { key: string; name: string; staff_only: boolean }[] = [];
  const fieldKeys: string[] = [];
  const queues: { id: number; config: string }[] = [];
  const removedQueues: number[] = [];
  const dirty = new Set<number>();
  const replace = (ticket: number, item: string, newParts: SearchPart[]) => {
    items.push({ ticket, item });
    parts.push(...newParts);
    dirty.add(ticket);
  };
  for (const [key, change] of latest) {
    const image = change.newImage;
    const gone = change.eventName === 'REMOVE' || !image;
    if (isQueue(change)) {
      const id = Number((image ?? change.oldImage)?.id);
      if (!Number.isSafeInteger(id) || !configChanged(first.get(key)!, change)) continue;
      if (gone) removedQueues.push(id);
      else queues.push({ id, config: searchConfigOf(image.locale) });
      continue;
    }
    if (change.keys.PK === keys.customFieldPartition) {
      const key = (image ?? change.oldImage)?.key;
      if (typeof key !== 'string') continue;
      fieldKeys.push(key);
      if (!gone) fields.push({ key, name: String(image.name), staff_only: image.staff_only === true });
      continue;
    }
    const ticket = Number(change.keys.PK.slice(TICKET_PREFIX.length));
    const type = (image ?? change.oldImage)?.type;
    if (change.keys.SK === TICKET_SORT_KEY) {
      if (gone) {
        removedTickets.push(ticket);
        dirty.delete(ticket);
        continue;
      }
      const t = image as unknown as Ticket;
      ticketRows.push({
        id: ticket,
        queue: t.queue,
        status: t.status,
        priority: t.priority,
        assigned_to: t.assigned_to,
        submitter_email: t.submitter_email,
        created: t.created,
        modified: t.modified,
        due_date: t.due_date,
        merged: t.merged_to != null,
      });
      const opening = openingOf(image);
      if (opening) followups.push({ id: opening.id, ticket, private: !opening.public });
      replace(ticket, TICKET_ITEM, ticketParts({ ...t, id: ticket }, opening));
    } else if (type === 'followup') {
      const f = (image ?? change.oldImage) as unknown as Followup;
      if (gone) removedFollowups.push(f.id);
      else followups.push({ id: f.id, ticket, private: !f.public });
      replace(ticket, followupItemName(f.id), gone ? [] : followupParts({ ...f, ticket }));
    } else if (type === 'attachment') {
      const a = (image ?? change.oldImage) as unknown as Attachment;
      replace(ticket, attachmentItemName(a.id), gone ? [] : attachmentParts({ ...a, ticket }));
    }
  }
  // Only queue items passed over (their reservations): nothing to do.
  const lists = [queues, removedQueues, removedTickets, ticketRows, items, followups, removedFollowups, fieldKeys];
  if (!lists.some((list) => list.length)) return [];
  const numbered = parts.map((p, i) => ({ ...p, seq: i }));
  const with_ = (sqls: readonly string[], params: Statement['params']) => sqls.map((sql) => ({ sql, params }));
  return [
    ...(queues.length || removedQueues.length
      ? with_(APPLY.queues, { rows: json(queues), removed: json(removedQueues) })
      : []),
    ...(removedTickets.length ? with_(APPLY.removeTickets, { tickets: json(removedTickets) }) : []),
    ...(ticketRows.length ? [{ sql: APPLY.upsertTickets, params: { rows: json(ticketRows) } }] : []),
    ...(items.length ? with_(APPLY.replaceParts, { items: json(items), parts: json(numbered) }) : []),
    ...(followups.length || removedFollowups.length
      ? with_(APPLY.followups, { rows: json(followups), removed: json(removedFollowups) })
      : []),
    ...(fieldKeys.length
      ? with_(APPLY.customFields, {
          rows: json(fields),
          removed: json(fieldKeys.filter((k) => !fields.some((f) => f.key === k))),
        })
      : []),
    ...with_(APPLY.markDirty, { tickets: json([...dirty]), keys: json(fieldKeys) }),
    ...with_(APPLY.rebuildDirty, {}),
  ];
}

let schemaReady: Promise<void> | undefined;

/** Aurora's schema, made once per process (the embedded engine's worker makes its own at start). */
function ensureSchema(run: (statements: Statement[]) => Promise<void>): Promise<void> {
  if (config.search.engine !== 'aurora') return Promise.resolve();
  schemaReady ??= run(SCHEMA.map((sql) => ({ sql }))).catch((error: unknown) => {
    schemaReady = undefined;
    throw error;
  });
  return schemaReady;
}

/** Applies `changes` to the index, with `extra` statements in the same transaction (the rebuild's progress). */
export async function applyToIndex(changes: readonly TableChange[], extra: Statement[] = []): Promise<void> {
  const engine = searchEngine();
  if (!engine) return;
  const statements = statementsOf(changes);
  if (!statements.length && !extra.length) return;
  const driver = await engine;
  await ensureSchema(async (schema) => {
    for (const statement of schema) await driver.query(statement);
  });
  await driver.transaction([...statements, ...extra]);
  if (statements.some((s) => s.sql === APPLY.queues[0])) await reindexQueues(driver);
}

/**
 * Builds again, REINDEX_BATCH tickets to a transaction, the tickets of the queues whose language changed, until
 * none is left. A stop half-way (a failure, a timeout) fails the batch, which comes again and goes on from there.
 */
async function reindexQueues(driver: SearchDriver): Promise<void> {
  const batch = [REINDEX.mark, ...APPLY.rebuildDirty, REINDEX.done].map((sql) => ({ sql }));
  do await driver.transaction(batch);
  while ((await driver.query({ sql: REINDEX.pending })).length);
}

/** The stream consumer (consumer/table-changes.ts STREAM_CONSUMERS). */
export const SEARCH_INDEXER = { name: 'search index', apply: (changes: TableChange[]) => applyToIndex(changes) };
