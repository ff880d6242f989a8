/** What one `npm run bench` measures (bench/run.ts), as the report (bench/report.ts) reads it. */
import type { BundleResult } from './bundles';
import type { CpuResult } from './cpu';
import type { FilterCheck, ListCosts } from './scale';

/** One operation's latency at a number in flight, ms, and its rate, requests per second. */
export interface Latency {
  p50: number;
  p95: number;
  p99: number;
  rps: number;
}

/** One operation, measured warm: its status, wire counts, capacity units, CPU and latency. */
export interface OperationResult {
  status: number;
  dynamodb: number;
  s3: number;
  readUnits: number;
  writeUnits: number;
  commands: Record<string, number>;
  cpuMs: number;
  c1: Latency;
  c8: Latency;
}

/** What the stream consumer does for one change: its requests and capacity units. */
export interface ConsumerCost {
  requests: number;
  readUnits: number;
  writeUnits: number;
}

export interface BenchResults {
  date: string;
  machine: { cpus: number; cpu: string; memoryGiB: number; node: string };
  tickets: number;
  iterations: number;
  operations: Record<string, OperationResult>;
  consumer: Record<'create (JSON)' | 'PATCH' | 'DELETE', ConsumerCost>;
  serverRssMb: number;
  scale: {
    small: { tickets: number; listPageP50: number; pages: ListCosts; filtered: ListCosts };
    large: {
      tickets: number;
      listPageP50: number;
      dynamodbRequests: number;
      pages: ListCosts;
      filtered: ListCosts;
      filterChecks: Record<string, FilterCheck>;
    };
    huge: { tickets: number; pages: ListCosts };
    ratio: number;
  };
  bundles: BundleResult[];
  cpu: CpuResult[];
  /** The same measure of a bare Node server (bench/cpu-floor-server.ts): what any server pays here. */
  cpuFloor?: CpuResult[];
  seconds: number;
}
