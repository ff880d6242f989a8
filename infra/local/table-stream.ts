/**
 * The table's stream in the local runtime: where AWS runs the CountTickets function on the
 * DynamoDB Stream (infra/stream-consumer.ts), this poller reads DynamoDB Local's own stream of the
 * same table, shard by shard, in order, and hands the records to the same code
 * (consumer/table-changes.ts). A failed batch is read again from its first record, as Lambda retries
 * one; the consumer is idempotent, so a restart simply starts from the oldest record kept.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { config } from '../../shared/config';
import { logger } from '../../shared/observability';
import { tableChangeOf } from '../../shared/consumer/stream-records';
import { withOwnSockets } from '../../shared/aws/clients';
import type { TableChange } from '../../shared/consumer/changes';
import { STREAM_CONSUMER_GRANTS } from '../../shared/api/table-access';
import { asFunction } from './table-access';
import {
  CONSUMER_POOL,
  recordBatch,
  recordRead,
  recordRetry,
  startBatch,
  timedPhase,
} from '../../shared/consumer/consumer-timings';

/**
 * Takes the SDK's logger middleware out of a client: nothing here logs through the SDK, yet with its
 * default no-op logger the middleware still copies every input and output through the schema's
 * sensitive-data filter to hand it to that no-op (measured: 12% of a list page's CPU, when the
 * functions called DynamoDB through the SDK). Failures are logged by the caller all the same.
 */
export function withoutSdkLogging<T extends { middlewareStack: { remove(name: string): boolean } }>(client: T): T {
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}

const consumer = new AsyncLocalStorage<true>();

/** Whether the caller runs inside the stream consumer (the benchmark leaves its requests out of a request's count). */
export const inStreamConsumer = (): boolean => consumer.getStore() === true;

/** The stream is read this often: the counts lag a write by about this much. */
const POLL_MS = 50;

/** Polling: every POLL_MS, or HELPDESK_STREAM_POLL_MS (0: only when `drain` is called, for tests that step it). */
export function streamPollInterval(env: Record<string, string | undefined> = process.env): number {
  const raw = env.HELPDESK_STREAM_POLL_MS ?? String(POLL_MS);
  if (!/^\d+$/.test(raw.trim()))
    throw new Error(`HELPDESK_STREAM_POLL_MS must be a whole number of milliseconds, not "${raw}"`);
  return Number(raw);
}

export interface LocalTableStream {
  /** Applies every record written so far (the poller does this every interval). */
  drain(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * `alsoApply` gets each batch after the counts (the webhook dispatcher's change events, where AWS
 * has the Dispatch function on the same stream); a failure there reads the batch again too.
 */
export async function startLocalTableStream(
  intervalMs = streamPollInterval(),
  alsoApply?: (changes: TableChange[]) => Promise<void>,
): Promise<LocalTableStream> {
  const { applyTableChanges } = await import('../../shared/consumer/table-changes');
  // Polled every 50 ms: without the SDK's logger middleware, which copies every batch for a no-op logger.
  const streams = withoutSdkLogging(new DynamoDBStreamsClient({ endpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB }));
  const table = await new DynamoDBClient({}).send(new DescribeTableCommand({ TableName: config.tableName }));
  const streamArn = table.Table?.LatestStreamArn;
  if (!streamArn) throw new Error(`The local table ${config.tableName} has no stream`);
  /** The last record applied, per shard: where a read starts again after a failed batch. */
  const applied = new Map<string, string>();
  /**
   * Where the next read of each open shard starts: the iterator the last read returned, kept from one
   * poll to the next, so that a poll is one GetRecords rather than three calls (each of which waits
   * behind a burst's requests in DynamoDB Local: measured, docs/data-model.md "The stream consumer").
   */
  const iterators = new Map<string, string>();
  const closed = new Set<string>();
  let shards: string[] = [];
  let describedAt = 0;

  const iteratorAfterApplied = async (shardId: string) => {
    const after = applied.get(shardId);
    return (
      await streams.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId: shardId,
          ...(after
            ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after }
            : { ShardIteratorType: 'TRIM_HORIZON' }),
        }),
      )
    ).ShardIterator;
  };

  const getRecords = async (iterator: string) => {
    const read = performance.now();
    const batch = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
    recordRead(performance.now() - read);
    return batch;
  };

  /**
   * Reads one shard until it has nothing more for now, reading each next batch while the one before
   * is applied; a failed batch stops it, to be read again (from the last record applied) next time.
   */
  async function readShard(shardId: string): Promise<void> {
    const iterator = iterators.get(shardId) ?? (await iteratorAfterApplied(shardId));
    iterators.delete(shardId);
    if (!iterator) return void closed.add(shardId);
    let batch = await getRecords(iterator).catch(async () => getRecords((await iteratorAfterApplied(shardId))!));
    for (;;) {
      const records = batch.Records ?? [];
      const next = batch.NextShardIterator;
      if (!records.length) {
        if (next) iterators.set(shardId, next);
        else closed.add(shardId);
        return;
      }
      const applying = startBatch();
      const changes = records.map(tableChangeOf);
      const reading = next ? getRecords(next) : undefined;
      // Not awaited when the batch fails (its iterator is dropped): its failure is of no interest then.
      reading?.catch(() => undefined);
      // Sockets of its own, as its own function has on AWS: not queued behind a burst's requests.
      await withOwnSockets(CONSUMER_POOL, () =>
        consumer.run(true, async () => {
          // Held to CountTickets' grants, as on AWS; the dispatcher is a function of its own there.
          await asFunction('stream/consume', STREAM_CONSUMER_GRANTS, () => applyTableChanges(changes));
          if (alsoApply) await timedPhase('webhook dispatch', () => alsoApply(changes));
        }),
      );
      recordBatch(applying, records.length);
      applied.set(shardId, records.at(-1)!.dynamodb!.SequenceNumber!);
      if (!reading) return void closed.add(shardId);
      batch = await reading;
    }
  }

  // One drain at a time: the poller's and a test's share the positions.
  let draining: Promise<void> = Promise.resolve();
  const drainOnce = async () => {
    // The shards are listed again every second, or when one closed (its child has the next records).
    if (!shards.length || Date.now() - describedAt > 1000 || shards.some((id) => closed.has(id))) {
      const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
      describedAt = Date.now();
      // Listed parents first: a child shard's records come after its parent's.
      shards = (StreamDescription?.Shards ?? []).map((shard) => shard.ShardId!).filter((id) => !closed.has(id));
    }
    for (const shardId of shards) if (!closed.has(shardId)) await readShard(shardId);
  };
  const drain = () => (draining = draining.catch(() => undefined).then(drainOnce));

  let stopped = false;
  let wake: (() => void) | undefined;
  const poller = (async () => {
    while (intervalMs && !stopped) {
      let pause = intervalMs;
      try {
        await drain();
      } catch (error) {
        logger.error('table stream batch failed; reading it again in a second', { error: (error as Error).message });
        recordRetry();
        pause = 1000;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pause);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  })();

  return {
    drain,
    async stop() {
      stopped = true;
      wake?.();
      await poller;
      await draining.catch(() => undefined);
    },
  };
}
