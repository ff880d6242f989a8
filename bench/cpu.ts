/**
 * CPU per request, per operation, of the process that serves the API (bench/cpu-server.ts, a child
 * of this one: the client's own work is not counted), over `count` warm requests with 4 in flight:
 * user+system time of the server process divided by the requests. Warm means settled: V8 compiles
 * a function's hot paths only after many calls, so the CPU per request falls over the first
 * thousands of requests (measured here for GET: 0.70 ms per request after 300, 0.50 after 3,000).
 * The warm-up runs in rounds of `count` requests, each measured, until a round costs no more than 5%
 * below the one before (at least MIN_WARMUP_ROUNDS rounds, at most WARMUP_ROUNDS), and the rounds are reported with
 * the result. A second, profiled pass of the same requests splits the time by layer
 * (bench/cpu-layers.ts); the profiler slows the process down, so the split is applied as shares of
 * the unprofiled figure.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { CpuServerMessage, CpuServerReply } from './cpu-server';
import { BENCH_ADMIN_AUTH } from './admin';
import { NODE_OPTIONS } from '../infra/node-options';

export interface CpuResult {
  operation: string;
  requests: number;
  /** The machine's one-minute load average when the unprofiled pass ended: CPU time inflates on a busy machine. */
  load: number;
  /** Milliseconds of CPU per request. */
  cpuMs: number;
  /** Milliseconds of CPU per request of each warm-up round (of `requests` requests), in order. */
  warmup: number[];
  /** Milliseconds of CPU per request, by layer. */
  layers: Record<string, number>;
}

interface Operation {
  name: string;
  /** The i-th request (i counts on across the warm-up and both passes). */
  request: (i: number, tickets: number[]) => { method: string; path: string; body?: unknown };
}

/** The i-th ticket read: the seeded tickets in a fixed stride. */
const ticketRequest = (i: number, tickets: number[]) => ({
  method: 'GET',
  path: `/api/tickets/${tickets[(i * 7) % tickets.length]}/`,
});
/** The i-th list page asked for: each page of the seeded tickets in turn (the floor records each page's calls). */
const listPageRequest = (i: number, tickets: number[]) => ({
  method: 'GET',
  path: `/api/tickets/?page=${(i % Math.floor(tickets.length / 25)) + 1}`,
});

export const CPU_OPERATIONS: Operation[] = [
  { name: 'GET one ticket', request: ticketRequest },
  { name: 'list page of 25', request: listPageRequest },
  {
    name: 'create (JSON)',
    request: (i) => ({
      method: 'POST',
      path: '/api/tickets/',
      body: {
        queue: 1,
        title: `CPU ${i}`,
        description: 'Benchmark',
        submitter_email: 'bench@example.com',
        priority: 3,
      },
    }),
  },
  {
    name: 'PATCH',
    request: (i, t) => ({
      method: 'PATCH',
      path: `/api/tickets/${t[(i * 13) % t.length]}/`,
      body: { priority: (i % 5) + 1 },
    }),
  },
];

/** Sends `message` and waits for the reply; fails, rather than waits for ever, if the server exits first. */
function call(server: ChildProcess, message: CpuServerMessage): Promise<CpuServerReply> {
  return new Promise((resolve, reject) => {
    const exited = (code: number | null) => reject(new Error(`the CPU benchmark's server exited (${code})`));
    server.once('exit', exited);
    server.once('message', (reply: CpuServerReply) => {
      server.off('exit', exited);
      resolve(reply);
    });
    server.send(message);
  });
}

async function run(
  url: string,
  operation: Operation,
  tickets: number[],
  from: number,
  count: number,
  inFlight = 4,
): Promise<void> {
  let next = from;
  const end = from + count;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < end) {
        const { method, path, body } = operation.request(next++, tickets);
        const res = await fetch(`${url}${path}`, {
          method,
          headers: { authorization: BENCH_ADMIN_AUTH, ...(body ? { 'content-type': 'application/json' } : {}) },
          body: body ? JSON.stringify(body) : undefined,
        });
        await res.arrayBuffer();
        if (res.status >= 300) throw new Error(`${operation.name}: ${method} ${path} answered ${res.status}`);
      }
    }),
  );
}

/**
 * Warm-up rounds an operation gets at least and at most, settled or not. At least 8 rounds of 1,000
 * (8,000 requests), so that the figure does not hang on the settling rule: with 4, one noisy round
 * ended a GET's warm-up at 1.02 ms a request and measured 0.79, where 7 rounds had gone on down to
 * 0.71 and measured 0.66 (two runs, 2026-11-29, load about 3).
 */
const MIN_WARMUP_ROUNDS = 8;
const WARMUP_ROUNDS = 12;
/** A round this much cheaper than the one before means the JIT is still at work. */
const SETTLING = 0.05;

/**
 * The floor under those figures on this machine (bench/cpu-floor-server.ts): the same client and warm-up, against a
 * bare Node HTTP server that answers a fixed body (`HTTP alone`), sends the GET's one Query to DynamoDB Local and
 * answers its items (`HTTP and one DynamoDB Query`), or sends the list page's calls and answers its tickets.
 */
/** The floor under each operation that has one: the floor's name in CPU_FLOOR_OPERATIONS. */
export const FLOOR_OF: Record<string, string> = {
  'GET one ticket': 'HTTP and one DynamoDB Query',
  'list page of 25': "HTTP and the list page's DynamoDB calls",
};
export const CPU_FLOOR_OPERATIONS: Operation[] = [
  { name: 'HTTP alone', request: () => ({ method: 'GET', path: '/http/' }) },
  { name: FLOOR_OF['GET one ticket']!, request: ticketRequest },
  { name: FLOOR_OF['list page of 25']!, request: listPageRequest },
];

export interface CpuOptions {
  /** The server's module (its IPC messages: bench/cpu-server.ts). */
  server?: URL;
  operations?: Operation[];
  /** A profiled pass after the measured one, split by layer. */
  profiled?: boolean;
}

export async function measureCpu(
  count = 1000,
  {
    server: serverModule = new URL('./cpu-server.ts', import.meta.url),
    operations = CPU_OPERATIONS,
    profiled = true,
  }: CpuOptions = {},
): Promise<CpuResult[]> {
  const server = fork(fileURLToPath(serverModule), [], {
    execArgv: [...NODE_OPTIONS, '--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  try {
    const ready = await new Promise<CpuServerReply>((resolve, reject) => {
      server.once('message', resolve);
      server.once('exit', (code) => reject(new Error(`the CPU benchmark's server exited (${code})`)));
    });
    if (ready.type !== 'ready') throw new Error('unexpected first message');
    const results: CpuResult[] = [];
    for (const operation of operations) {
      const measured = async (from: number, profile: boolean) => {
        await call(server, { type: 'measure', profile });
        await run(ready.url, operation, ready.tickets, from, count);
        const reply = await call(server, { type: 'report', name: operation.name });
        if (reply.type !== 'report') throw new Error('unexpected reply');
        return { cpuMs: reply.cpuMicros / 1000 / count, layers: reply.layers };
      };
      const warmup: number[] = [];
      let sent = 0;
      while (warmup.length < WARMUP_ROUNDS) {
        warmup.push((await measured(sent, false)).cpuMs);
        sent += count;
        const [before, last] = warmup.slice(-2);
        if (warmup.length >= MIN_WARMUP_ROUNDS && last! >= before! * (1 - SETTLING)) break;
      }
      const { cpuMs } = await measured(sent, false);
      const load = Math.round(loadavg()[0]! * 10) / 10;
      const { layers = {} } = profiled ? await measured(sent + count, true) : {};
      const round3 = (ms: number) => Math.round(ms * 1000) / 1000;
      results.push({
        operation: operation.name,
        requests: count,
        load,
        cpuMs: round3(cpuMs),
        warmup: warmup.map(round3),
        layers: Object.fromEntries(Object.entries(layers).map(([layer, share]) => [layer, round3(share * cpuMs)])),
      });
    }
    return results;
  } finally {
    if (server.connected) server.send({ type: 'stop' } satisfies CpuServerMessage);
  }
}

/** The floor (CPU_FLOOR_OPERATIONS), measured as the operations are. */
export const measureCpuFloor = (count = 1000): Promise<CpuResult[]> =>
  measureCpu(count, {
    server: new URL('./cpu-floor-server.ts', import.meta.url),
    operations: CPU_FLOOR_OPERATIONS,
    profiled: false,
  });

// `npx tsx bench/cpu.ts [requests] [--floor] [--only=<text>]`: this measurement alone (BENCH_CPU_PROFILES=<folder>
// keeps the profiles), with --floor the floor's, with --only the operations whose name holds <text>.
const isMain = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const args = process.argv.slice(2);
  const count = Number(args.find((a) => /^\d+$/.test(a)) ?? 1000);
  const only = args.find((a) => a.startsWith('--only='))?.slice('--only='.length) ?? '';
  const floor = args.includes('--floor');
  const operations = (floor ? CPU_FLOOR_OPERATIONS : CPU_OPERATIONS).filter((o) => o.name.includes(only));
  const results = await (floor ? measureCpuFloor(count) : measureCpu(count, { operations }));
  for (const result of results.filter((r) => r.operation.includes(only))) {
    console.log(
      `${result.operation.padEnd(18)} ${result.cpuMs.toFixed(3)} ms CPU/request over ${result.requests} ` +
        `(warm-up rounds: ${result.warmup.join(', ')})`,
    );
    for (const [layer, ms] of Object.entries(result.layers))
      console.log(`    ${ms.toFixed(3).padStart(7)} ms  ${layer}`);
  }
}
