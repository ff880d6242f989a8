/**
 * Who is writing, for the whole of a request (or a mail's ingest, or an escalation run): set once by
 * the entry point (middleware/index.ts for the API, mail-in/ingest.ts, store/escalation.ts) and
 * recorded by the store on every ticket, followup and attachment item it writes (`written_by`:
 * items.ts), so that the stream's consumers know who made each change without a write of their own.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { WrittenBy } from '../domain/actor';
import { config } from '../config';
import { keys } from './keys';
import type { TransactItem } from './transact';

/** The item attribute (never part of a record: items.ts INTERNAL). */
export const WRITTEN_BY = 'written_by';

const writer = new AsyncLocalStorage<WrittenBy>();

/** Runs `fn` with `by` as the writer of everything it writes. */
export function withWriter<T>(by: WrittenBy, fn: () => T): T {
  return writer.run(by, fn);
}

/** The attribute to put on an item written now (none outside an entry point: a test's direct write). */
export function writtenBy(): Record<string, WrittenBy> {
  const by = writer.getStore();
  return by ? { [WRITTEN_BY]: by } : {};
}

/** The same for an update expression: adds `#wb = :wb` to `sets` when there is a writer. */
export function setWrittenBy(sets: string[], names: Record<string, string>, values: Record<string, unknown>): void {
  const by = writer.getStore();
  if (!by) return;
  sets.push('#wb = :wb');
  names['#wb'] = WRITTEN_BY;
  values[':wb'] = by;
}

/** How long a deletion's actor is kept: past the stream's 24 hours, for a late retry or a replay of the batch. */
const DELETION_RECORD_SECONDS = 2 * 86_400;

/**
 * Who deletes `kind` `id`, as a put to go beside the delete (in its transaction, or just before a lone DeleteItem):
 * a stream REMOVE record holds the item as it was, whose `written_by` names its last writer, not who deleted it. One
 * small item (1 write unit; 2 in a transaction), rather than an update of the item itself before the delete (its
 * size in units, and a MODIFY record every consumer reads). The change feed reads it (consumer/change-feed.ts).
 * Undefined outside an entry point.
 */
export function deletionRecord(kind: 'ticket' | 'followup' | 'attachment', id: number): TransactItem | undefined {
  const by = writer.getStore();
  if (!by) return undefined;
  const expires = Math.floor(Date.now() / 1000) + DELETION_RECORD_SECONDS;
  return {
    Put: { TableName: config.tableName, Item: { ...keys.deletion(kind, id), [WRITTEN_BY]: by, expires_at: expires } },
  };
}
