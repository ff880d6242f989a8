/**
 * What the table's stream consumer spends its time on, per phase (consumer/table-changes.ts) and per
 * batch (the local poller, infra/local/table-stream.ts), and where the DynamoDB calls of the
 * process spend theirs (waiting for a socket of their pool, or on the wire: aws/clients.ts):
 * kept in memory, read by the burst benchmark (bench/burst.ts) to show where a burst's lag goes.
 * Costs a clock read per phase and two per call.
 */
import { observeCalls } from '../aws/clients';
export interface PhaseTiming {
  /** Calls of the phase (one per batch that had work for it). */
  calls: number;
  /** Total and longest wall time, ms. */
  ms: number;
  maxMs: number;
}

export interface ConsumerTimings {
  /** When these timings began (performance.now()): the batches' `at` count from the same origin. */
  since: number;
  phases: Record<string, PhaseTiming>;
  /** Batches applied, their records, and the wall time from the first record read to the last applied. */
  batches: number;
  records: number;
  /** Reading the stream (DescribeStream, GetShardIterator, GetRecords), ms, and how many reads returned records. */
  readMs: number;
  /** Batches that failed and were read again. */
  retries: number;
  /**
   * Each batch applied: when it started (ms, performance.now()), its records, its wall time, and its DynamoDB calls.
   */
  log: ({ at: number; records: number; ms: number } & CallTiming)[];
  /** DynamoDB calls per socket pool: the stream consumer's own (`stream consumer`), the requests' (`shared`). */
  calls: Record<string, CallTiming>;
}

/** DynamoDB calls (attempts answered), the time they waited for a socket of their pool and the time on the wire, ms. */
export interface CallTiming {
  calls: number;
  queuedMs: number;
  wireMs: number;
  maxQueuedMs: number;
  maxWireMs: number;
}

const noCalls = (): CallTiming => ({ calls: 0, queuedMs: 0, wireMs: 0, maxQueuedMs: 0, maxWireMs: 0 });
const empty = (): ConsumerTimings => ({
  since: performance.now(),
  phases: {},
  batches: 0,
  records: 0,
  readMs: 0,
  retries: 0,
  log: [],
  calls: {},
});
let timings = empty();

export const consumerTimings = (): ConsumerTimings => structuredClone(timings);
export function resetConsumerTimings(): void {
  timings = empty();
}

/** Runs `work` as phase `name`, adding its wall time to the phase's. */
export async function timedPhase<T>(name: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    const ms = performance.now() - started;
    const phase = (timings.phases[name] ??= { calls: 0, ms: 0, maxMs: 0 });
    phase.calls++;
    phase.ms += ms;
    phase.maxMs = Math.max(phase.maxMs, ms);
  }
}

/** The consumer's calls since its batch began (batches are applied one at a time). */
let batchCalls = noCalls();

function addCall(into: CallTiming, queuedMs: number, wireMs: number): void {
  into.calls++;
  into.queuedMs += queuedMs;
  into.wireMs += wireMs;
  into.maxQueuedMs = Math.max(into.maxQueuedMs, queuedMs);
  into.maxWireMs = Math.max(into.maxWireMs, wireMs);
}

/** One DynamoDB attempt of socket pool `pool`: its wait for a socket and its time on the wire. */
export function recordCall(pool: string, queuedMs: number, wireMs: number): void {
  addCall((timings.calls[pool] ??= noCalls()), queuedMs, wireMs);
  if (pool === CONSUMER_POOL) addCall(batchCalls, queuedMs, wireMs);
}

/** The socket pool of the stream consumer (infra/local/table-stream.ts withOwnSockets). */
export const CONSUMER_POOL = 'stream consumer';

export function startBatch(): number {
  batchCalls = noCalls();
  return performance.now();
}

export function recordBatch(at: number, records: number): void {
  timings.batches++;
  timings.records += records;
  timings.log.push({ at, records, ms: performance.now() - at, ...batchCalls });
}
export function recordRead(ms: number): void {
  timings.readMs += ms;
}
export function recordRetry(): void {
  timings.retries++;
}

observeCalls(recordCall);
