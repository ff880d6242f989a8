/**
 * The table's stream in the local runtime: where AWS runs the one reader, CountTickets, on the
 * DynamoDB Stream (infra/stream-consumer.ts), this poller reads DynamoDB Local's own stream of the
 * same table, shard by shard, in order, and fans each batch out with the same code
 * (consumer/fan-out.ts) to the same consumers: those of consumer/table-changes.ts, and the ones the
 * runtime adds (webhook dispatch, mail), each held to its own grants. A consumer that fails has its
 * records kept for retry (where AWS has its SQS retry queue), applied again at a later drain by the
 * same code, less often each time, and never dropped: locally there is no dead-letter queue to keep
 * them, so after RETRY_ATTEMPTS an error is logged (AWS: its dead-letter queue's alarm) and they are
 * still tried, every MAX_RETRY_MS at most, until they apply or the runtime stops; the others go on.
 * A batch whose fan-out failed is read again from its first record, as Lambda retries one, with the
 * time it was first read at; a restart reads on from the last record applied, kept in the data
 * directory (stream-positions.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type GetRecordsCommandOutput,
} from '@aws-sdk/client-dynamodb-streams';
import { config } from '../../shared/config';
import { logger } from '../../shared/observability';
import { dynamo, withOwnSockets } from '../../shared/aws/clients';
import { consumerYield, YIELD_MAX_MS } from './consumer-yield';
import type { FilteredConsumer } from '../../shared/consumer/changes';
import { fanOut, RecordsFailedAgain, retryRecords, type RetrySink } from '../../shared/consumer/fan-out';
import type { StreamRecordLike } from '../../shared/consumer/stream-records';
import { STREAM_CONSUMER_GRANTS } from '../../shared/api/table-access';
import { consumerAs } from './table-access';
import {
  appliedUpTo,
  loadStreamPositions,
  readTimeOf,
  saveStreamPositions,
  withRead,
  type ShardPosition,
} from './stream-positions';
import {
  CONSUMER_POOL,
  recordBatch,
  recordRead,
  recordRetry,
  startBatch,
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

/**
 * An idle poller's pause doubles after each read that found nothing, up to this: each read is a
 * GetRecords, and DynamoDB Local's answer to one costs it about as much CPU as a small query
 * (measured here: an idle runtime polled every 200 ms cost it and DynamoDB Local 5% of a core, 1.5 s
 * of CPU in 30 s; a test run has several runtimes up at a time). A write by this process (`nudge`)
 * brings the next read to within the interval again, so the counts follow its writes as closely as
 * ever; another process's writes (the CLI's) wait for the idle pause at most.
 */
export const IDLE_POLL_MS = 2000;

/** The calls that write the table (and so its stream). */
const TABLE_WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'TransactWriteItems', 'BatchWriteItem']);

/**
 * DynamoDB Local names a record's time to the minute (measured: 0-60 s before its write), where DynamoDB Streams
 * names the second. The change feed places an event by that time, and one older than the settling window is late
 * (placed at the consumer's time, with a mark: a read and a write more per event): locally every event was. The
 * read time is the nearest bound the poller has (within the interval of the write, a burst's backlog a few seconds
 * after), kept inside the minute named.
 */
export function stampToTheSecond(record: Pick<StreamRecordLike, 'dynamodb'>, readAt: number): void {
  const named = record.dynamodb?.ApproximateCreationDateTime;
  if (!(named instanceof Date) || named.getTime() % 60_000 !== 0) return;
  const second = Math.floor(readAt / 1000) * 1000;
  record.dynamodb!.ApproximateCreationDateTime = new Date(
    Math.max(named.getTime(), Math.min(second, named.getTime() + 59_000)),
  );
}

export interface LocalTableStream {
  /** Applies every record written so far (the poller does this every interval). */
  drain(): Promise<void>;
  /**
   * A write was made: the next read comes when the interval since the last one is over (at once
   * after an idle spell). Every write through this process's store client nudges.
   */
  nudge(): void;
  /**
   * Stops the poller's drains until called with false (a `drain` still applies): the benchmark counts one change's
   * work in one drain, its records all in one batch, as a lone write's are when the poller reads after it.
   */
  pausePolling(paused: boolean): void;
  stop(): Promise<void>;
}

/**
 * While requests wait for a function's slot (a burst: infra/local/server.ts), the poller holds off,
 * for at most this long at a time, then applies the backlog and may hold off again. On AWS the
 * consumer has compute and table capacity of its own; locally it shares two cores and one DynamoDB
 * Local with the routes, and every call it makes in a burst delays theirs. Measured on `npm start`'s
 * on-disk store, 500 creates at once: p99 14.7-15.3 s with the consumer applying meanwhile, 9.8-11.1 s
 * holding off (the counts then exact 16 s after the last 201 instead of 10 s; docs/local.md).
 */
export const HOLD_OFF_MAX_MS = 20_000;

/** What GetShardIterator answers for a position no longer in the stream (older than its 24 hours, or another's). */
const POSITION_GONE = new Set(['TrimmedDataAccessException', 'ResourceNotFoundException', 'ValidationException']);

/** A failed consumer's records are applied again this much later, doubled at each failure, up to MAX_RETRY_MS. */
const RETRY_MS = 1000;
const MAX_RETRY_MS = 60_000;
/** Attempts at a failed consumer's records before an error is logged (AWS: its dead-letter queue's alarm). */
export const RETRY_ATTEMPTS = 5;

/** A consumer's records waiting for their next attempt. */
interface PendingRetry {
  consumer: string;
  records: StreamRecordLike[];
  attempts: number;
  due: number;
}

export interface LocalTableStreamOptions {
  /** How often the poller reads (streamPollInterval(); 0: only when `drain` is called). */
  intervalMs?: number;
  /**
   * Consumers that get their records of each batch beside consumer/table-changes.ts's (the runtime's webhook
   * dispatcher and mail: where AWS runs them in the same reader), each already held to its grants.
   */
  extraConsumers?: readonly FilteredConsumer[];
  /**
   * How many requests wait for a function's slot (the local server's): while any wait, the poller holds off, for
   * at most `holdOffMaxMs` at a time.
   */
  requestsWaiting?: () => number;
  holdOffMaxMs?: number;
  /** Where the positions applied up to are kept across restarts (stream-positions.ts); none: in memory only. */
  positionsFile?: string;
}

export async function startLocalTableStream({
  intervalMs = streamPollInterval(),
  extraConsumers = [],
  requestsWaiting = () => 0,
  holdOffMaxMs = HOLD_OFF_MAX_MS,
  positionsFile,
}: LocalTableStreamOptions = {}): Promise<LocalTableStream> {
  const { STREAM_CONSUMERS } = await import('../../shared/consumer/table-changes');
  // Held to CountTickets' grants for the table changes' consumers, and the others to theirs (AWS: the union).
  const consumers: FilteredConsumer[] = [
    ...STREAM_CONSUMERS.map((c) => consumerAs('stream/consume', STREAM_CONSUMER_GRANTS, c)),
    ...extraConsumers,
  ];
  const pending: PendingRetry[] = [];
  const sink: RetrySink = {
    retry(consumer, records) {
      recordRetry();
      pending.push({ consumer, records, attempts: 1, due: Date.now() + RETRY_MS });
      return Promise.resolve();
    },
  };
  /** The consumers' work, as on AWS with sockets of its own: not queued behind a burst's requests. */
  const asReader = <T>(work: () => Promise<T>) => withOwnSockets(CONSUMER_POOL, () => consumer.run(true, work));
  /** The retries due (all of them when the poller is off and a test steps the stream). */
  const retryDue = async (all: boolean) => {
    const now = Date.now();
    for (const retry of [...pending]) {
      if (!all && retry.due > now) continue;
      try {
        await asReader(() => retryRecords(retry, consumers));
        pending.splice(pending.indexOf(retry), 1);
      } catch (error) {
        // Those of its records that were applied alone are done: only the ones that failed are tried again.
        if (error instanceof RecordsFailedAgain) retry.records = error.records;
        retry.attempts += 1;
        retry.due = now + Math.min(RETRY_MS * 2 ** (retry.attempts - 1), MAX_RETRY_MS);
        if (retry.attempts !== RETRY_ATTEMPTS + 1) continue;
        logger.error('stream consumer still failing on records after every retry: kept, tried less often', {
          consumer: retry.consumer,
          records: retry.records.length,
          error: (error as Error).message,
        });
      }
    }
  };
  // Polled every 50 ms: without the SDK's logger middleware, which copies every batch for a no-op logger.
  const streams = withoutSdkLogging(new DynamoDBStreamsClient({ endpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB }));
  const table = await new DynamoDBClient({}).send(new DescribeTableCommand({ TableName: config.tableName }));
  const streamArn = table.Table?.LatestStreamArn;
  if (!streamArn) throw new Error(`The local table ${config.tableName} has no stream`);
  /**
   * Where the next read of each open shard starts: the iterator the last read returned, kept from one
   * poll to the next, so that a poll is one GetRecords rather than three calls (each of which waits
   * behind a burst's requests in DynamoDB Local: measured, docs/data-model.md "The stream consumer").
   */
  const iterators = new Map<string, string>();
  const closed = new Set<string>();
  /** When the batch being applied was read (undefined: none is): the consumer yields to the routes while young. */
  let batchReadAt: number | undefined;
  /** Records read so far: whether a poll found any. */
  let recordsSeen = 0;
  let shards: string[] = [];
  /** Every shard the stream listed last, closed ones too. */
  let listed = new Set<string>();
  let describedAt = 0;
  /**
   * Per shard, what a restart reads on from (kept in positionsFile): the last record applied while no consumer's
   * records waited for a retry, and when the records after it were read.
   */
  const positions = positionsFile ? loadStreamPositions(positionsFile, streamArn) : new Map<string, ShardPosition>();
  /** Per shard, the last record applied: where a read starts again after a failed batch. */
  const applied = new Map<string, string>();
  /** What positionsFile holds (JSON): written again only when that changes. */
  let positionsKept = JSON.stringify([...positions]);
  /** Writes the positions to positionsFile, if there is one and they changed. */
  const keepPositions = async () => {
    if (!positionsFile) return;
    // A shard the stream no longer lists is gone (trimmed): its position with it.
    if (listed.size) for (const id of positions.keys()) if (!listed.has(id)) positions.delete(id);
    const next = JSON.stringify([...positions]);
    if (next === positionsKept) return;
    await saveStreamPositions(positionsFile, streamArn, positions);
    positionsKept = next;
  };
  /**
   * Shard `shardId` applied up to record `last`. A restart reads on from there, unless a consumer's records wait
   * for a retry: they are kept in memory only, so a restart must read them again, with the times they were read at.
   */
  const advance = (shardId: string, last: string) => {
    applied.set(shardId, last);
    if (!pending.length) positions.set(shardId, appliedUpTo(positions.get(shardId), last));
  };

  /** An iterator after record `after` (`at` it, with `at`), or from the shard's oldest record without one. */
  const iteratorAt = (shardId: string, after: string | undefined, at = false) =>
    streams.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shardId,
        ...(after
          ? { ShardIteratorType: at ? 'AT_SEQUENCE_NUMBER' : 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after }
          : { ShardIteratorType: 'TRIM_HORIZON' }),
      }),
    );
  /** Shards whose position was checked against what they hold (positionChecked) in this run. */
  const checked = new Set<string>();
  /**
   * The position to read shard `shardId` on from, `after` unless that is past the shard's newest record: its database
   * is then older than the positions file (put back from a copy). DynamoDB Local answers a read after such a position
   * with no records, and numbers its new records below it, so the poller would wait for ever. The records the shard
   * holds were applied before, and are not applied again (their mail would go out twice), nor are the few this
   * start's bootstrap wrote before this read; the records written from now on are.
   */
  const positionChecked = async (shardId: string, after: string): Promise<string | undefined> => {
    const at = await iteratorAt(shardId, after, true);
    const held = await streams.send(new GetRecordsCommand({ ShardIterator: at.ShardIterator, Limit: 1 }));
    if (held.Records?.length) return after;
    // Nothing at or after it: the newest record, read through from the oldest (once, and only here).
    let newest: string | undefined;
    let iterator = (await iteratorAt(shardId, undefined)).ShardIterator;
    while (iterator) {
      const batch = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
      const last = batch.Records?.at(-1)?.dynamodb?.SequenceNumber;
      if (!last) break;
      newest = last;
      iterator = batch.NextShardIterator;
    }
    logger.warn(
      "stream position past the shard's newest record (its database is older than the positions file): " +
        'read on from its newest record',
      { shard: shardId, position: after, newest: newest ?? 'none' },
    );
    applied.delete(shardId);
    if (newest) positions.set(shardId, { after: newest, reads: [] });
    else positions.delete(shardId);
    return newest;
  };
  /** An iterator after the last record applied; from the shard's oldest record when that is gone from the stream. */
  const iteratorAfterApplied = async (shardId: string) => {
    let after = applied.get(shardId) ?? positions.get(shardId)?.after;
    try {
      if (after && !checked.has(shardId)) {
        after = await positionChecked(shardId, after);
        checked.add(shardId);
      }
      return (await iteratorAt(shardId, after)).ShardIterator;
    } catch (error) {
      if (!after || !POSITION_GONE.has((error as Error).name)) throw error;
      logger.warn('stream position gone (trimmed?): the shard is read from its oldest record', {
        shard: shardId,
        error: (error as Error).message,
      });
      positions.delete(shardId);
      applied.delete(shardId);
      return (await iteratorAt(shardId, undefined)).ShardIterator;
    }
  };

  /**
   * A batch of shard `shardId`, its records' times stamped (stampToTheSecond) with the time they were first read at:
   * now for records never read (`again` false: the read goes on from the last one), else the time kept for them.
   */
  const getRecords = async (shardId: string, iterator: string, again: boolean) => {
    const read = performance.now();
    const batch = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
    recordRead(performance.now() - read);
    const records = batch.Records ?? [];
    const now = Date.now();
    const first = records[0]?.dynamodb?.SequenceNumber;
    if (first && (!again || readTimeOf(positions.get(shardId), first) === undefined))
      positions.set(shardId, withRead(positions.get(shardId), first, now));
    const position = positions.get(shardId);
    for (const record of records)
      stampToTheSecond(record, readTimeOf(position, record.dynamodb!.SequenceNumber!) ?? now);
    return batch;
  };

  /**
   * Reads one shard until it has nothing more for now, reading each next batch while the one before
   * is applied; a failed batch stops it, to be read again (from the last record applied) next time.
   * With `holdsOff` (the poller's drains), it stops between batches while the routes are in a burst.
   */
  async function readShard(shardId: string, holdsOff: () => boolean): Promise<void> {
    // A kept iterator reads on from the last read (which found nothing, or the poller held off): records never read.
    const kept = iterators.get(shardId);
    iterators.delete(shardId);
    const fromApplied = async () => {
      const iterator = await iteratorAfterApplied(shardId);
      return iterator ? getRecords(shardId, iterator, true) : undefined;
    };
    let readAt = performance.now();
    const firstBatch = kept ? await getRecords(shardId, kept, false).catch(fromApplied) : await fromApplied();
    if (!firstBatch) return void closed.add(shardId);
    let batch: GetRecordsCommandOutput = firstBatch;
    // The time of what was read is kept before it is applied (each later batch's, with the one before it applied).
    await keepPositions();
    for (;;) {
      const records = batch.Records ?? [];
      recordsSeen += records.length;
      const next = batch.NextShardIterator;
      if (!records.length) {
        if (next) iterators.set(shardId, next);
        else closed.add(shardId);
        return;
      }
      const applying = startBatch();
      const holdOff = next !== undefined && holdsOff();
      const nextReadAt = performance.now();
      const reading = next && !holdOff ? getRecords(shardId, next, false) : undefined;
      // Not awaited when the batch fails (its iterator is dropped): its failure is of no interest then.
      reading?.catch(() => undefined);
      batchReadAt = readAt;
      await asReader(() => fanOut(records, consumers, sink)).finally(() => (batchReadAt = undefined));
      readAt = nextReadAt;
      recordBatch(applying, records.length);
      advance(shardId, records.at(-1)!.dynamodb!.SequenceNumber!);
      if (!reading) {
        await keepPositions();
        if (holdOff) iterators.set(shardId, next);
        else closed.add(shardId);
        return;
      }
      batch = await reading.catch(async (error: unknown) => {
        await keepPositions();
        throw error;
      });
      await keepPositions();
    }
  }

  // One drain at a time: the poller's and a test's share the positions.
  let draining: Promise<void> = Promise.resolve();
  const drainOnce = async (holdsOff: () => boolean) => {
    // The shards are listed again every second, or when one closed (its child has the next records).
    if (!shards.length || Date.now() - describedAt > 1000 || shards.some((id) => closed.has(id))) {
      const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
      describedAt = Date.now();
      // Listed parents first: a child shard's records come after its parent's.
      const ids = (StreamDescription?.Shards ?? []).map((shard) => shard.ShardId!);
      listed = new Set(ids);
      shards = ids.filter((id) => !closed.has(id));
    }
    // The retries first: records a consumer failed on in this drain wait for the next (AWS: their queue's delay).
    await retryDue(!intervalMs);
    for (const shardId of shards) if (!closed.has(shardId) && !holdsOff()) await readShard(shardId, holdsOff);
  };
  /** Applies what the stream holds; the poller's drains hold off for a burst (`holdsOff`), a test's never. */
  const drain = (holdsOff = () => false) =>
    (draining = draining.catch(() => undefined).then(() => drainOnce(holdsOff)));

  let stopped = false;
  let wake: (() => void) | undefined;
  /** Ends the pause under way once it has lasted the interval (at once if it has). */
  let wakeSoon: (() => void) | undefined;
  let idlePause = intervalMs;
  /** A nudge came since the last read began: its write may not have been read yet. */
  let nudged = false;
  /** Since when the poller has held off for a burst (undefined: it has not). */
  let holdingOffSince: number | undefined;
  /** The benchmark paused the poller (`pausePolling`). */
  let paused = false;
  /**
   * Whether the poller's drain holds off now: paused, or requests wait for a function's slot and it has not yet held
   * off `holdOffMaxMs` (past that, the drain goes on to apply the backlog).
   */
  const holdsOff = () => {
    if (paused) return true;
    if (requestsWaiting() === 0) {
      holdingOffSince = undefined;
      return false;
    }
    holdingOffSince ??= Date.now();
    return Date.now() - holdingOffSince < holdOffMaxMs;
  };
  const poller = (async () => {
    while (intervalMs && !stopped) {
      let pause: number;
      let failed = false;
      try {
        const seen = recordsSeen;
        nudged = false;
        await drain(holdsOff);
        // A drain past the hold-off's limit applied the backlog: a burst still under way is held off afresh.
        if (holdingOffSince !== undefined && Date.now() - holdingOffSince >= holdOffMaxMs) holdingOffSince = undefined;
        // Records came (or a write since, or retries wait, or it held off for a burst): read again after the
        // interval; none: wait longer each time.
        const busy = recordsSeen > seen || nudged || pending.length > 0 || holdingOffSince !== undefined;
        idlePause = busy ? intervalMs : Math.max(intervalMs, Math.min(idlePause * 2, IDLE_POLL_MS));
        pause = idlePause;
      } catch (error) {
        logger.error('table stream batch failed; reading it again in a second', { error: (error as Error).message });
        recordRetry();
        pause = 1000;
        failed = true;
      }
      await new Promise<void>((resolve) => {
        const start = Date.now();
        let timer = setTimeout(resolve, pause);
        const finish = () => {
          clearTimeout(timer);
          resolve();
        };
        wake = finish;
        // As the fixed interval would: a write during a busy spell is read at the next tick, one after
        // an idle spell at once.
        wakeSoon = () => {
          if (pause <= intervalMs || failed) return;
          pause = intervalMs;
          clearTimeout(timer);
          timer = setTimeout(finish, Math.max(0, start + intervalMs - Date.now()));
        };
      });
      wakeSoon = undefined;
    }
  })();

  const nudge = () => {
    nudged = true;
    idlePause = intervalMs;
    wakeSoon?.();
  };
  const stopNudging = dynamo.intercept(({ operation }, next) =>
    TABLE_WRITES.has(operation) ? next().finally(nudge) : next(),
  );
  // Its calls go one at a time while the routes' are on the wire (DynamoDB Local runs calls in turn), unless it is
  // behind: a batch read over YIELD_MAX_MS ago, or a retry's records.
  const young = () => batchReadAt !== undefined && performance.now() - batchReadAt < YIELD_MAX_MS;
  const stopYielding = dynamo.intercept(consumerYield(inStreamConsumer, young).interceptor);

  return {
    drain: () => drain(),
    nudge,
    pausePolling(on) {
      paused = on;
    },
    async stop() {
      stopNudging();
      stopYielding();
      stopped = true;
      wake?.();
      await poller;
      await draining.catch(() => undefined);
    },
  };
}
