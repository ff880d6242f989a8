/**
 * The table's stream records as every consumer takes them: a change (one record, its images
 * unmarshalled), where it is in the stream, and what a consumer is. Types only: every file of the
 * consumer imports this one, and it imports nothing but a type, so no circle runs through it.
 */
import type { FilterPattern } from '../domain/stream-filters';

type Item = Record<string, unknown>;

/** One stream record, its images unmarshalled (NEW_AND_OLD_IMAGES). */
export interface TableChange {
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE';
  keys: { PK: string; SK: string };
  newImage?: Item;
  oldImage?: Item;
  /**
   * Where the record is in the stream: its `eventID` (the same on every retry), its sequence number
   * and its approximate creation time (epoch ms; on AWS rounded down to the second). The change
   * feed's events are derived from it (consumer/change-feed.ts); a record without it gives none.
   */
  stream?: StreamPosition;
  /**
   * Set on a record the stream's reader hands out in stream order (consumer/fan-out.ts `fanOut`): every later record of
   * its item comes after it, if not in its batch then in a later one. A record from a retry queue (which comes after
   * newer ones) or a replay has none. Lets a consumer take the record's image as what is stored until the next record
   * of the item (consumer/page-snapshots.ts).
   */
  inStreamOrder?: true;
}

export interface StreamPosition {
  id: string;
  sequence: string;
  at: number;
}

/**
 * A consumer of the table's changes: gets every batch (all its records, in stream order; it picks
 * what it needs) and must be idempotent: a batch may come again, whole or split, and a record late.
 * Its work is timed under its name (consumer/consumer-timings.ts, reported by `npm run bench -- --burst`).
 * Its grants are the stream function's (shared/api/table-access.ts STREAM_CONSUMER_GRANTS).
 */
export interface StreamConsumer {
  name: string;
  apply(changes: TableChange[]): Promise<void>;
}

/**
 * A consumer with the records it takes (consumer/stream-filters.ts): what the table stream's one
 * reader fans each batch out to (consumer/fan-out.ts), each consumer isolated from the others.
 */
export interface FilteredConsumer extends StreamConsumer {
  filters: readonly FilterPattern[];
}
