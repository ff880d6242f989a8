/**
 * Where the local stream's poller (table-stream.ts) has applied the table's stream up to, kept in the
 * data directory (`stream-positions.json`) so that a restart reads on from there. Without it every
 * start read DynamoDB Local's stream from its oldest record (24 hours of them) and applied it all
 * again; and since a record's time is the poller's read time (table-stream.ts `stampToTheSecond`), a
 * record read again had another time, and the consumers that key on it made their work twice: after
 * 300 creates, one restart sent 250 mails again and wrote 308 change events again (2026-11-29).
 *
 * Per shard: `after`, the sequence number of the last record applied, and `readAt`, the time the
 * records after it were read at, when they were read and not yet applied. Read again, they get the
 * same time, so the consumers find their own work done. A file that is not of this stream (another
 * table's, or unreadable) counts as none: the stream is read from its oldest record, as before.
 */
import { logger } from '../../shared/observability';
import { readKept, writeKept } from './kept-files';

export interface ShardPosition {
  /** The sequence number of the last record applied (none: the shard's oldest record is next). */
  after?: string;
  /** When the records after `after` were read (epoch ms), if they were read and are not yet applied. */
  readAt?: number;
}

/** The file's name in the data directory. */
export const STREAM_POSITIONS_FILE = 'stream-positions.json';

interface PositionsFile {
  streamArn: string;
  shards: Record<string, ShardPosition>;
}

const SEQUENCE = /^\d{1,64}$/;

function isPosition(value: unknown): value is ShardPosition {
  if (typeof value !== 'object' || value === null) return false;
  const { after, readAt } = value as ShardPosition;
  return (
    (after === undefined || (typeof after === 'string' && SEQUENCE.test(after))) &&
    (readAt === undefined || Number.isSafeInteger(readAt))
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
