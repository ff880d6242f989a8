/**
 * What the table's stream consumer spends its time on, per phase (store/table-changes.ts) and per
 * batch (the local poller, infra/local/table-stream.ts): kept in memory, read by the burst benchmark
 * (bench/burst.ts) to show where a burst's lag goes. Costs a clock read per phase.
 */
export interface PhaseTiming {
  /** Calls of the phase (one per batch that had work for it). */
  calls: number;
  /** Total and longest wall time, ms. */
  ms: number;
  maxMs: number;
}

export interface ConsumerTimings {
  phases: Record<string, PhaseTiming>;
  /** Batches applied, their records, and the wall time from the first record read to the last applied. */
  batches: number;
  records: number;
  /** Reading the stream (DescribeStream, GetShardIterator, GetRecords), ms, and how many reads returned records. */
  readMs: number;
  /** Batches that failed and were read again. */
  retries: number;
  /** Each batch applied: when it started (ms, performance.now()), its records, its wall time. */
  log: { at: number; records: number; ms: number }[];
}

const empty = (): ConsumerTimings => ({ phases: {}, batches: 0, records: 0, readMs: 0, retries: 0, log: [] });
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

export function recordBatch(at: number, records: number): void {
  timings.batches++;
  timings.records += records;
  timings.log.push({ at, records, ms: performance.now() - at });
}
export function recordRead(ms: number): void {
  timings.readMs += ms;
}
export function recordRetry(): void {
  timings.retries++;
}
