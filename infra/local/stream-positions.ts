/**
 * Where the local stream's poller (table-stream.ts) has applied the table's stream up to, kept in the
 * data directory (`stream-positions.json`) so that a restart reads on from there. Without it every
 * start read DynamoDB Local's stream from its oldest record (24 hours of them) and applied it all
 * again; and since a record's time is the poller's read time (table-stream.ts `stampToTheSecond`), a
 * record read again had another time, and the consumers that key on it made their work twice: after
 * 300 creates, one restart sent 250 mails again and wrote 308 change events again (2026-11-29).
 *
 * Per shard: `after`, the sequence number of the last record applied, and the reads of the records
 * after it (when each batch was read). Read again, a record gets the time it was first read at, so
 * the consumers find their own work done. A file that is not of this stream (another table's, or
 * unreadable) counts as none: the stream is read from its oldest record, as before. A position past its
 * shard's newest record (the database put back from an older copy) is moved to that record at the
 * shard's first read (table-stream.ts `positionChecked`).
 */
import { logger } from '../../shared/observability';
import { readKept, writeKept } from './kept-files';

/** A read of a shard's records: the sequence number of the first record read, and when (epoch ms). */
export type ShardRead = [first: string, readAt: number];

export interface ShardPosition {
  /** The sequence number of the last record applied (none: the shard's oldest record is next). */
  after?: string;
  /**
   * The reads of the records after it, in stream order: a record read again is given the time of the last read that
   * began at or before it. Applied records' reads are dropped; while a consumer's records wait for a retry, `after`
   * stays where it was and the reads add up (at most MAX_READS, the oldest dropped).
   */
  reads: ShardRead[];
}

/** Reads kept per shard at most (a consumer failing for hours): about 40 bytes each in the file. */
export const MAX_READS = 10_000;

/** Stream order of two sequence numbers (decimal strings, of any length). */
export const compareSequences = (a: string, b: string): number => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);

/** When the record `sequence` was first read, if it was (as far as `position` knows). */
export function readTimeOf(position: ShardPosition | undefined, sequence: string): number | undefined {
  let readAt: number | undefined;
  for (const [first, at] of position?.reads ?? []) {
    if (compareSequences(first, sequence) > 0) break;
    readAt = at;
  }
  return readAt;
}

/** `position` with a read of the records from `first` on, at `readAt`. */
export const withRead = (position: ShardPosition | undefined, first: string, readAt: number): ShardPosition => ({
  ...position,
  reads: [...(position?.reads ?? []), [first, readAt] satisfies ShardRead].slice(-MAX_READS),
});

/** `position` applied up to the record `last`: only the reads of records after it are kept. */
export const appliedUpTo = (position: ShardPosition | undefined, last: string): ShardPosition => ({
  after: last,
  reads: (position?.reads ?? []).filter(([first]) => compareSequences(first, last) > 0),
});

/** The file's name in the data directory. */
export const STREAM_POSITIONS_FILE = 'stream-positions.json';

interface PositionsFile {
  streamArn: string;
  shards: Record<string, ShardPosition>;
}

const SEQUENCE = /^\d{1,64}$/;

const isSequence = (value: unknown): value is string => typeof value === 'string' && SEQUENCE.test(value);

function isPosition(value: unknown): value is ShardPosition {
  if (typeof value !== 'object' || value === null) return false;
  const { after, reads } = value as Partial<ShardPosition>;
  return (
    (after === undefined || isSequence(after)) &&
    Array.isArray(reads) &&
    reads.every((read) => Array.isArray(read) && isSequence(read[0]) && Number.isSafeInteger(read[1]))
  );
}

/** The positions kept in `file` for `streamArn`'s shards; none when there is no such file, or not that stream's. */
export function loadStreamPositions(file: string, streamArn: string): Map<string, ShardPosition> {
  try {
    const kept = readKept(file) as PositionsFile | undefined;
    if (kept?.streamArn !== streamArn) return new Map();
    const shards = Object.entries(kept.shards);
    if (!shards.every(([, position]) => isPosition(position))) throw new Error('not a position');
    return new Map(shards);
  } catch (error) {
    logger.warn('stream positions unreadable: the stream is read from its oldest record', {
      file,
      error: String(error),
    });
    return new Map();
  }
}

/** Keeps `positions` in `file`, replacing what was there whole. */
export function saveStreamPositions(
  file: string,
  streamArn: string,
  positions: ReadonlyMap<string, ShardPosition>,
): Promise<void> {
  return writeKept(file, { streamArn, shards: Object.fromEntries(positions) } satisfies PositionsFile);
}
