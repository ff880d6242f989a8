/**
 * The table stream's one reader (issue 33): each batch goes to every consumer at once, each given
 * only the records its filters pass (consumer/stream-filters.ts), and each isolated. A consumer
 * that fails never fails the batch: its records go to its own retry queue (SQS on AWS, timers
 * locally: a `RetrySink`), whose handler runs the same consumer code on them again (`retryRecords`),
 * and the stream moves on for everyone. Consumers are idempotent and take records late (each says
 * how: docs/data-model.md, "One reader of the stream"), so a retry is a repeat. The batch fails only
 * when a failed consumer's records could not be put on its retry queue: then the whole batch is read
 * again, which every consumer takes as a repeat.
 */
import { matchesAny } from '../domain/stream-filters';
import { logger } from '../observability';
import type { FilteredConsumer, TableChange } from './changes';
import { timedPhase } from './consumer-timings';
import { tableChangeOf, type StreamRecordLike } from './stream-records';

/** Where a failed consumer's records go: its own retry queue. */
export interface RetrySink {
  retry(consumer: string, records: StreamRecordLike[]): Promise<void>;
}

/** One message of a retry queue: a consumer's records, as the stream gave them. */
export interface RetryMessage {
  consumer: string;
  records: StreamRecordLike[];
}

/** What one batch did: the consumers that had records, and those of them that failed (their records sent to retry). */
export interface FanOutResult {
  applied: string[];
  retried: string[];
}

/** The records of `records` that `consumer` takes, in stream order. */
export const recordsFor = <R extends StreamRecordLike>(consumer: FilteredConsumer, records: readonly R[]): R[] =>
  records.filter((record) => matchesAny(consumer.filters, record));

export async function fanOut(
  records: readonly StreamRecordLike[],
  consumers: readonly FilteredConsumer[],
  sink: RetrySink,
): Promise<FanOutResult> {
  const result: FanOutResult = { applied: [], retried: [] };
  const one = async (consumer: FilteredConsumer) => {
    const own = recordsFor(consumer, records);
    if (!own.length) return;
    result.applied.push(consumer.name);
    try {
      const changes = own.map((record): TableChange => ({ ...tableChangeOf(record), inStreamOrder: true }));
      await timedPhase(consumer.name, () => consumer.apply(changes));
    } catch (error) {
      logger.error('stream consumer failed: its records go to its retry queue', {
        consumer: consumer.name,
        records: own.length,
        error: (error as Error).message,
      });
      result.retried.push(consumer.name);
      await sink.retry(consumer.name, own);
    }
  };
  // Every consumer finishes before a sink's failure fails the batch: nothing of it is still running when it is read
  // again.
  const failed = (await Promise.allSettled(consumers.map(one))).find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return result;
}

/** Records of a retry message that failed again, each applied alone: the queue keeps them (the error says which). */
export class RecordsFailedAgain extends Error {
  constructor(
    readonly records: StreamRecordLike[],
    cause: unknown,
  ) {
    super(`${records.length} record(s) failed again: ${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}

/**
 * A retry queue's message applied again by its consumer: throws when it fails again (the queue then keeps it). A
 * message of several records that fails is applied again one record at a time, in stream order: one record that fails
 * every time (a poison record) then holds back no other, and RecordsFailedAgain names the ones that failed.
 */
export async function retryRecords(message: RetryMessage, consumers: readonly FilteredConsumer[]): Promise<void> {
  const consumer = consumers.find((c) => c.name === message.consumer);
  if (!consumer) throw new Error(`no stream consumer "${message.consumer}" here`);
  const apply = (records: readonly StreamRecordLike[]) =>
    timedPhase(consumer.name, () => consumer.apply(records.map(tableChangeOf)));
  try {
    await apply(message.records);
    return;
  } catch (error) {
    if (message.records.length < 2) throw error;
  }
  const failed: StreamRecordLike[] = [];
  let cause: unknown;
  for (const record of message.records) {
    try {
      await apply([record]);
    } catch (error) {
      failed.push(record);
      cause = error;
    }
  }
  if (failed.length) throw new RecordsFailedAgain(failed, cause);
}

/**
 * The messages that carry `records` to `consumer`'s retry queue: as many records a message as fit in `maxBytes`
 * (SQS takes up to 1 MiB; a record, two images of at most 400 KB each, always fits alone).
 */
export function retryMessages(consumer: string, records: readonly StreamRecordLike[], maxBytes: number): string[] {
  const messages: string[] = [];
  let batch: StreamRecordLike[] = [];
  let size = 0;
  const envelope = Buffer.byteLength(JSON.stringify({ consumer, records: [] }));
  for (const record of records) {
    const bytes = Buffer.byteLength(JSON.stringify(record)) + 1;
    if (batch.length && envelope + size + bytes > maxBytes) {
      messages.push(JSON.stringify({ consumer, records: batch } satisfies RetryMessage));
      batch = [];
      size = 0;
    }
    batch.push(record);
    size += bytes;
  }
  if (batch.length) messages.push(JSON.stringify({ consumer, records: batch } satisfies RetryMessage));
  return messages;
}
