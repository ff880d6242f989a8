/**
 * `npm run bench [-- --tickets N] [--json]`: the local runtime in memory, seeded; for each
 * operation its DynamoDB and S3 requests (counted on the wire: an interceptor on the store's
 * DynamoDB client, a fetch wrapper for S3), DynamoDB capacity units, and latency and throughput at 1 and 8
 * requests in flight; the server's memory; list-page latency at 200 and 20,000 tickets; and each
 * function's bundle size and cold import time. Writes docs/benchmarks.md.
 */
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { join, resolve } from 'node:path';
import { startLocalRuntime } from '../infra/local/runtime';
import { measureBundles, type BundleResult } from './bundles';
import { measureCpu, measureCpuFloor, type CpuResult } from './cpu';
import {
  bundleBudget,
  checkedIdFloors,
  filteredFloors,
  renderCost,
  renderReport,
  requestFloors,
  withKeptSections,
  withSection,
  type Target,
} from './report';
import type { BenchResults, ConsumerCost, Latency, OperationResult } from './results';
import {
  checkedIdPages,
  checkFilter,
  filteredPages,
  measureFilteredCosts,
  measureListCosts,
  type ApiBody,
  type ApiReply,
  type FilterCheck,
  type ListCosts,
} from './scale';
import {
  combinations,
  LISTS_END,
  LISTS_START,
  measureLists,
  renderLists,
  type Combination,
  type SeededTicket,
} from './lists';
import { INITIAL_RETRY_TOKENS } from '@smithy/util-retry';
import { measureBurst, renderBurst, withBurstSection, type SteadyPhase } from './burst';
import { BENCH_ADMIN, BENCH_ADMIN_AUTH, BENCH_ADMIN_ENV, basicAuthorization } from './admin';

const { values: args } = parseArgs({
  options: {
    tickets: { type: 'string', default: '2000' },
    iterations: { type: 'string', default: '60' },
    json: { type: 'boolean', default: false },
    'skip-bundles': { type: 'boolean', default: false },
    'scale-tickets': { type: 'string', default: '20000' },
    'simulated-tickets': { type: 'string', default: '10000000' },
    burst: { type: 'boolean', default: false },
    // The filtered lists alone: every combination in every ordering at 200, --scale-tickets and
    // --simulated-tickets (bench/lists.ts); writes their section of docs/benchmarks.md.
    lists: { type: 'boolean', default: false },
    // Ticket search alone (bench/search.ts): index cost, latency with and without filters, lag.
    search: { type: 'boolean', default: false },
    // import-django of a generated installation (bench/import.ts): its rate, and when the counts are exact.
    import: { type: 'boolean', default: false },
    'search-tickets': { type: 'string', default: '20000' },
    'search-iterations': { type: 'string', default: '400' },
    'cpu-requests': { type: 'string', default: '1000' },
    // For CI: request counts, capacity units and bundle sizes only (deterministic), checked against
    // the floors; nothing written, exit 1 if one is missed. Timings are not looked at.
    quick: { type: 'boolean', default: false },
  },
});
if (args.search) {
  await import('./search');
  process.exit(0);
}
if (args.import) {
  await import('./import');
  process.exit(0);
}
const QUICK = args.quick;
const TICKETS = QUICK ? 200 : Number(args.tickets);
const ITERATIONS = QUICK ? 2 : Number(args.iterations);
const CPU_REQUESTS = Number(args['cpu-requests']);
const log = (...m: unknown[]) => (args.json ? process.stderr.write(`${m.join(' ')}\n`) : console.log(...m));

const REPORT = resolve(import.meta.dirname, '../docs/benchmarks.md');
const previousReport = existsSync(REPORT) ? readFileSync(REPORT, 'utf8') : '';

// Bundles and CPU first, while nothing else runs: cold imports and CPU time suffer on a busy machine.
let bundles: BundleResult[] = [];
if (!args['skip-bundles'] && !args.burst && !args.lists) {
  log(`bundling and importing each function (${QUICK ? 1 : 10} fresh processes each)`);
  bundles = await measureBundles(QUICK ? 1 : 10);
}
let cpu: CpuResult[] = [];
let cpuFloor: CpuResult[] = [];
if (!QUICK && !args.burst && !args.lists) {
  log(
    `CPU per request: ${CPU_REQUESTS} warm requests of each operation, then as many profiled, in a server process ` +
      `of their own`,
  );
  cpu = await measureCpu(CPU_REQUESTS);
  for (const c of cpu) log(`${c.operation.padEnd(18)} ${c.cpuMs} ms CPU per request`);
  log('CPU per request of a bare Node server, the floor under those');
  cpuFloor = await measureCpuFloor(CPU_REQUESTS);
  for (const c of cpuFloor) log(`${c.operation.padEnd(18)} ${c.cpuMs} ms CPU per request`);
}

Object.assign(process.env, BENCH_ADMIN_ENV);
process.env.HELPDESK_ACTIVATE_API_ENDPOINT = 'True';
// The request log lines would fill the report (stdout): warnings and errors only.
process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
// The burst on disk, as `npm start` keeps its data (DynamoDB Local's SQLite commits are a good part of a burst's
// cost there); everything else in memory. Mail off, as in memory (bench/mail.ts measures mail in a burst): on disk
// the runtime would mail each create's submitter, and the mail sender's calls would count as the consumer's.
const dataDir = args.burst ? mkdtempSync(join(tmpdir(), 'helpdesk-burst-')) : 'memory';
if (args.burst) process.env.HELPDESK_MAIL_TRANSPORT ??= 'off';
const runtime = await startLocalRuntime({ dataDir, port: 0 });
const API = runtime.url;

// --- counting -------------------------------------------------------------------------------
const { dynamo } = await import('../shared/aws/clients');
const { seedTickets, simulateTickets } = await import('./seed');
const { inStreamConsumer } = await import('../infra/local/table-stream');
const { findUserByUsername } = await import('../shared/store/users');

const counters = { dynamodb: 0, s3: 0, readUnits: 0, writeUnits: 0, commands: new Map<string, number>() };
const READS = new Set(['GetItem', 'Query', 'BatchGetItem', 'Scan', 'TransactGetItems']);
function resetCounters() {
  counters.dynamodb = counters.s3 = counters.readUnits = counters.writeUnits = 0;
  counters.commands.clear();
}
/** The stream consumer's own (its function's on AWS, not the request's): measured per change by consumerCost. */
const consumerCounters = { dynamodb: 0, readUnits: 0, writeUnits: 0 };
const unitsOf = (operation: string, out: Record<string, unknown>, into: { readUnits: number; writeUnits: number }) => {
  const consumed = out.ConsumedCapacity as { CapacityUnits?: number } | { CapacityUnits?: number }[] | undefined;
  // DynamoDB Local reports only CapacityUnits: an operation's kind says whether they are read or write units.
  for (const c of Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) {
    if (READS.has(operation)) into.readUnits += c.CapacityUnits ?? 0;
    else into.writeUnits += c.CapacityUnits ?? 0;
  }
};
dynamo.intercept(async ({ operation, input }, next) => {
  // The stream consumer's work (counts, listings, repairs, the change feed) is its own function's on AWS, not the
  // request's.
  if (inStreamConsumer()) {
    consumerCounters.dynamodb++;
    input.ReturnConsumedCapacity ??= 'TOTAL';
    const out = await next();
    unitsOf(operation, out, consumerCounters);
    return out;
  }
  counters.dynamodb++;
  counters.commands.set(operation, (counters.commands.get(operation) ?? 0) + 1);
  input.ReturnConsumedCapacity ??= 'TOTAL';
  const out = await next();
  unitsOf(operation, out, counters);
  return out;
});
const s3Host = new URL(process.env.AWS_ENDPOINT_URL_S3!).host;
const realFetch = globalThis.fetch;
globalThis.fetch = (input, init) => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  if (new URL(url).host === s3Host) counters.s3++;
  return realFetch(input, init);
};

// --- the API client -----------------------------------------------------------------------------
async function request(
  method: string,
  path: string,
  body?: unknown,
  authorization = BENCH_ADMIN_AUTH,
): Promise<ApiReply> {
  const headers: Record<string, string> = { authorization };
  let payload: RequestInit['body'];
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const res = await realFetch(`${API}${path}`, { method, headers, body: payload });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as ApiBody };
}

const ticketBody = (i: number) => ({
  queue: 1,
  title: `Bench ${i}`,
  description: 'Benchmark',
  submitter_email: 'bench@example.com',
  priority: 3,
});
function ticketForm(i: number) {
  const form = new FormData();
  for (const [k, v] of Object.entries(ticketBody(i))) form.append(k, String(v));
  form.append('attachment', new Blob([Buffer.alloc(1024, 'a')], { type: 'text/plain' }), 'notes.txt');
  return form;
}
function followupForm(ticket: number) {
  const form = new FormData();
  form.append('ticket', String(ticket));
  form.append('title', 'Bench reply');
  form.append('comment', 'With two files');
  form.append('attachments', new Blob([Buffer.alloc(1024, 'b')], { type: 'text/plain' }), 'a.txt');
  form.append('attachments', new Blob([Buffer.alloc(2048, 'c')], { type: 'image/png' }), 'b.png');
  return form;
}

// --- measurement ---------------------------------------------------------------------------------

/** Creates, then GETs, at 8 in flight beside the burst. */
const STEADY_REQUESTS = 400;
/** Warm-up rounds of STEADY_REQUESTS creates before the warm phase, at least and at most. */
const MIN_STEADY_ROUNDS = 3;
const STEADY_ROUNDS = 10;
/** A round this much faster than the one before means DynamoDB Local's JIT is still at work. */
const STEADY_SETTLING = 0.05;
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;

async function latency(run: (i: number) => Promise<unknown>, count: number, inFlight: number): Promise<Latency> {
  const times: number[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < count) {
        const i = next++;
        const t = performance.now();
        await run(i);
        times.push(performance.now() - t);
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  times.sort((a, b) => a - b);
  return {
    p50: round(percentile(times, 50)),
    p95: round(percentile(times, 95)),
    p99: round(percentile(times, 99)),
    rps: round(count / elapsed, 0),
  };
}

/**
 * One request's cost, counted alone: the least of COUNTED_RUNS in a row, so that what happens once in a
 * while to a warm function (a cache's refresh: the caller's user record every USER_RECORD_CACHE_MS,
 * custom field definitions every DEFINITIONS_TTL_MS) does not decide a floor. When the runs differ, the
 * costlier one is logged with its calls.
 */
const COUNTED_RUNS = 3;
async function measure(name: string, run: (i: number) => Promise<{ status: number }>): Promise<OperationResult> {
  let sequence = 0; // per operation, so that each request can take the next fresh record
  await run(sequence++); // warm: module load, credential cache, definitions cache
  const runs = [];
  // The process's CPU while each ran (the client's part, and the stream reader's if it ran meanwhile, too): the least.
  const cpuMsOfRuns: number[] = [];
  for (let i = 0; i < COUNTED_RUNS; i++) {
    resetCounters();
    const cpu = process.cpuUsage();
    const { status } = await run(sequence++);
    const used = process.cpuUsage(cpu);
    runs.push({
      status,
      dynamodb: counters.dynamodb,
      s3: counters.s3,
      readUnits: round(counters.readUnits, 2),
      writeUnits: round(counters.writeUnits, 2),
      commands: Object.fromEntries(counters.commands),
    });
    cpuMsOfRuns.push(round((used.user + used.system) / 1000));
  }
  const [counted] = [...runs].sort((a, b) => a.dynamodb - b.dynamodb || a.writeUnits - b.writeUnits);
  for (const other of runs.filter((r) => r.dynamodb !== counted!.dynamodb))
    log(`${name}: one of ${COUNTED_RUNS} counted requests made ${other.dynamodb}: ${JSON.stringify(other.commands)}`);
  const { status, ...costs } = counted!;
  const cpuMs = Math.min(...cpuMsOfRuns);
  const c1 = await latency(() => run(sequence++), ITERATIONS, 1);
  const c8 = await latency(() => run(sequence++), ITERATIONS * 2, 8);
  const result = { status, ...costs, cpuMs, c1, c8 };
  log(
    `${name.padEnd(24)} ${String(status).padEnd(4)} ` +
      `ddb=${costs.dynamodb} s3=${costs.s3} rru=${costs.readUnits} wru=${costs.writeUnits} ` +
      `p50=${c1.p50}ms p95=${c1.p95}ms ${c8.rps} req/s@8`,
  );
  return result;
}

const admin = (await findUserByUsername(BENCH_ADMIN.username))!;

if (args.burst) {
  // On the runtime just started: nothing before it, as a fresh `npm start`.
  log('burst: 500 creates at once, then 200 followups on one ticket at once');
  const { consumerTimings, resetConsumerTimings } = await import('../shared/consumer/consumer-timings');
  // What the store client's retry strategy did meanwhile: its retries, and how low its budget went.
  const { dynamoRetryStrategy } = await import('../shared/aws/clients');
  const retries = { calls: 0, attempts: 0, lowestBudget: dynamoRetryStrategy.getCapacity() };
  dynamo.intercept(async (_call, next) => {
    retries.calls++;
    return next();
  });
  dynamo.intercept(
    async (_call, next) => {
      retries.attempts++;
      try {
        return await next();
      } finally {
        retries.lowestBudget = Math.min(retries.lowestBudget, dynamoRetryStrategy.getCapacity());
      }
    },
    { eachAttempt: true },
  );
  const { jvmCpuProbe } = await import('./jvm-threads');
  // The runtime points the store at its DynamoDB Local through the SDK's variable (infra/local/endpoints.ts).
  const jvm = () => jvmCpuProbe(process.env.AWS_ENDPOINT_URL_DYNAMODB!);
  const burst = await measureBurst(request, {
    reset: resetConsumerTimings,
    read: consumerTimings,
    drain: () => runtime.drainTableStream(),
    jvm,
  });
  // Beside the burst, in the same run: creates and GETs at 8 in flight, right after it and warm, and the consumer's
  // work per change.
  let sent = 0;
  const creates = () => latency(() => request('POST', '/api/tickets/', ticketBody(sent++)), STEADY_REQUESTS, 8);
  const steadyPhase = async (): Promise<SteadyPhase> => {
    const load = Math.round(loadavg()[0]! * 10) / 10;
    const probe = jvm();
    const steady = (l: Latency) => ({
      requests: STEADY_REQUESTS,
      inFlight: 8,
      perSecond: l.rps,
      p50: l.p50,
      p99: l.p99,
    });
    // Each phase starts with the stream applied, and counts the consumer's work until its creates are applied.
    await runtime.drainTableStream();
    const calls = { requestPath: counters.dynamodb, consumer: consumerCounters.dynamodb };
    const creates8 = await creates();
    const lastCreate = performance.now();
    calls.requestPath = counters.dynamodb - calls.requestPath;
    const made = (
      (await request('GET', '/api/tickets/?page_size=100&ordering=-id')).body.results as { id: number }[]
    ).map((t) => t.id);
    const gets8 = await latency((i) => request('GET', `/api/tickets/${made[i % made.length]}/`), STEADY_REQUESTS, 8);
    await runtime.drainTableStream();
    const appliedAfterMs = Math.round(performance.now() - lastCreate);
    calls.consumer = consumerCounters.dynamodb - calls.consumer;
    const perCreate = (n: number) => Math.round((n / STEADY_REQUESTS) * 100) / 100;
    const callsPerCreate = { requestPath: perCreate(calls.requestPath), consumer: perCreate(calls.consumer) };
    return {
      creates: steady(creates8),
      gets: steady(gets8),
      load,
      jvm: probe?.since(),
      callsPerCreate,
      appliedAfterMs,
    };
  };
  const afterBurst = await steadyPhase();
  // DynamoDB Local's JIT goes on compiling well after the burst: rounds of creates until one is no more than
  // STEADY_SETTLING faster than the one before (at least MIN_STEADY_ROUNDS, at most STEADY_ROUNDS).
  const warmup: number[] = [];
  while (warmup.length < STEADY_ROUNDS) {
    warmup.push((await creates()).rps);
    const [before, last] = warmup.slice(-2);
    if (warmup.length >= MIN_STEADY_ROUNDS && last! <= before! * (1 + STEADY_SETTLING)) break;
  }
  burst.steady = { afterBurst, warm: { ...(await steadyPhase()), warmup } };
  const spare = (await request('POST', '/api/tickets/', ticketBody(0))).body.id;
  burst.consumerPerChange = {
    'create (JSON)': await consumerCost(() => request('POST', '/api/tickets/', ticketBody(1))),
    'PATCH (priority)': await consumerCost(() => request('PATCH', `/api/tickets/${spare}/`, { priority: 4 })),
    'PATCH (status)': await consumerCost(() => request('PATCH', `/api/tickets/${spare}/`, { status: 3 })),
    DELETE: await consumerCost(() => request('DELETE', `/api/tickets/${spare}/`)),
  };
  log(JSON.stringify(burst));
  log(
    `DynamoDB retries: ${retries.attempts - retries.calls} in ${retries.calls} calls; the retry budget's lowest ` +
      `point ${retries.lowestBudget} of ${INITIAL_RETRY_TOKENS}`,
  );
  await runtime.stop();
  rmSync(dataDir, { recursive: true, force: true });
  writeFileSync(REPORT, withBurstSection(previousReport, renderBurst(burst, new Date().toISOString())));
  log('wrote the Bursts section of docs/benchmarks.md');
  process.exit(0);
}

/** Waits until the stream's consumer has counted every ticket: the count equals the tickets the last page ends with. */
async function counted(): Promise<void> {
  // Each new ticket costs the consumer a listing item (8 index entries) and a page snapshot: seeding 20,000 takes
  // minutes on a busy machine.
  const deadline = Date.now() + 1_800_000;
  for (;;) {
    const last = (await request('GET', '/api/tickets/?page_size=100&page=last')).body;
    const before = last.previous ? Number(new URL(last.previous).searchParams.get('page') ?? 1) * 100 : 0;
    if (last.count === before + last.results.length) return;
    if (Date.now() > deadline) throw new Error('the ticket counts did not catch up in 30 minutes');
    await new Promise((r) => setTimeout(r, 100));
  }
}
const listCosts = (): Promise<ListCosts> => measureListCosts(probe);

const probe = {
  get: (path: string) => request('GET', path),
  count: async (run: () => Promise<unknown>) => {
    resetCounters();
    await run();
    return { requests: counters.dynamodb, readUnits: counters.readUnits };
  },
  p50: async (run: () => Promise<unknown>) => (await latency(run, ITERATIONS, 1)).p50,
};
// A second queue, so that `?queue=` lists some tickets of many (bench/seed.ts puts every seventh there).
const secondQueue = (await request('POST', '/api/queues/', { title: 'Second', slug: 'second' })).body.id;
const filtered = filteredPages(secondQueue, admin.id);

/**
 * Each filter's whole list at the large size against the tickets the table holds (read whole from
 * gsi1 here, for the check only), compared in order.
 */
/** Every ticket the table holds, as the filters see it (read whole from gsi1: for the checks only). */
async function readSeeded(): Promise<SeededTicket[]> {
  const { queryAll } = await import('../shared/store/query');
  const { INDEXES, inIndex, keys } = await import('../shared/store/keys');
  return (
    await queryAll({
      IndexName: INDEXES.gsi1.name,
      KeyConditionExpression: inIndex('gsi1'),
      ExpressionAttributeValues: { ':pk': keys.listAllPartition },
    })
  )
    .filter((i) => i.type === 'ticket')
    .map((i) => ({
      id: Number(i.id),
      status: Number(i.status),
      queue: Number(i.queue),
      assigned_to: i.assigned_to as number | null,
      priority: Number(i.priority),
      email: i.submitter_email as string | null,
      created: String(i.created),
      modified: String(i.modified),
      due_date: (i.due_date as string | null) ?? null,
    }));
}

async function checkFilters(): Promise<Record<string, FilterCheck>> {
  const all = await readSeeded();
  type T = (typeof all)[number];
  const ids = (list: T[]) => list.map((t) => t.id);
  const byId = (a: T, b: T) => a.id - b.id;
  const byTime = (f: 'created' | 'modified') => (a: T, b: T) => (a[f] < b[f] ? -1 : a[f] > b[f] ? 1 : a.id - b.id);
  const createdSince = [...all].sort(byTime('created'))[Math.floor(all.length * 0.9)]!.created;
  const updatedSince = [...all].sort(byTime('modified'))[Math.floor(all.length * 0.9)]!.modified;
  const checks: [string, string, number[]][] = [
    [
      `queue=${secondQueue}`,
      `/api/tickets/?queue=${secondQueue}`,
      ids(all.filter((t) => t.queue === secondQueue).sort(byId)),
    ],
    [
      `assigned_to=${admin.id}`,
      `/api/tickets/?assigned_to=${admin.id}`,
      ids(all.filter((t) => t.assigned_to === admin.id).sort(byId)),
    ],
    [
      'assigned_to=none, -id',
      '/api/tickets/?assigned_to=none&ordering=-id',
      ids(all.filter((t) => t.assigned_to == null).sort(byId)).reverse(),
    ],
    ['priority=2', '/api/tickets/?priority=2', ids(all.filter((t) => t.priority === 2).sort(byId))],
    [
      'submitter_email',
      '/api/tickets/?submitter_email=customer7%40example.com',
      ids(all.filter((t) => t.email === 'customer7@example.com').sort(byId)),
    ],
    [
      'updated_since (the last 10%)',
      `/api/tickets/?updated_since=${encodeURIComponent(updatedSince)}`,
      ids(all.filter((t) => t.modified >= updatedSince).sort(byTime('modified'))),
    ],
    [
      'created_since (the last 10%), -created',
      `/api/tickets/?created_since=${encodeURIComponent(createdSince)}&ordering=-created`,
      ids(all.filter((t) => t.created >= createdSince).sort(byTime('created'))).reverse(),
    ],
    ['ordering=-id', '/api/tickets/?ordering=-id', ids([...all].sort(byId)).reverse()],
    ['ordering=modified', '/api/tickets/?ordering=modified', ids([...all].sort(byTime('modified')))],
  ];
  const results: Record<string, FilterCheck> = {};
  for (const [name, path, expected] of checks) results[name] = await checkFilter(probe, path, expected);
  return results;
}

if (args.lists) {
  /**
   * Every combination in every ordering at the table's size now; `follow` says which lists are followed to their end.
   */
  const measureAt = async (simulated: boolean, follow: (c: Combination, ordering: string) => boolean) => {
    const all = await readSeeded();
    const at = (f: 'created' | 'modified') => all.map((t) => t[f]).sort()[Math.floor(all.length * 0.9)]!;
    const combos = combinations(secondQueue, admin.id, { created: at('created'), updated: at('modified') });
    const tickets = (await request('GET', '/api/tickets/?page_size=1')).body.count;
    const results = await measureLists(probe, all, combos, follow, (r) =>
      log(
        `  ${r.combination}, ${r.ordering}: ${r.check!.exact ? 'exact' : 'NOT EXACT'}, ` +
          `${r.check!.listed} tickets in ${r.check!.pages} pages, ${r.check!.requests} requests, ` +
          `${(r.followMs! / 1000).toFixed(1)} s`,
      ),
    );
    log(
      `lists at ${tickets}: ${results.length} pages measured; ` +
        `at most ${Math.max(...results.filter((r) => r.view).map((r) => r.requests))} requests for an agent ` +
        `view; ${results.filter((r) => r.check && !r.check.exact).length} lists not exact`,
    );
    return { tickets, simulated, results };
  };
  log('lists: seeding 200 tickets');
  await seedTickets(200, admin.id, secondQueue);
  await counted();
  await runtime.drainTableStream();
  const sizes = [await measureAt(false, () => true)];
  const scaleTickets = Number(args['scale-tickets']);
  log(`lists: seeding to ${scaleTickets} tickets`);
  await seedTickets(scaleTickets - 200, admin.id, secondQueue);
  await counted();
  await runtime.drainTableStream();
  // Followed: every combination in every ordering, to its end.
  sizes.push(await measureAt(false, () => true));
  const changed = (await request('POST', '/api/tickets/', ticketBody(0))).body.id;
  const listConsumer = {
    'create (JSON)': await consumerCost(() => request('POST', '/api/tickets/', ticketBody(1))),
    'PATCH (priority)': await consumerCost(() => request('PATCH', `/api/tickets/${changed}/`, { priority: 4 })),
    'PATCH (status)': await consumerCost(() => request('PATCH', `/api/tickets/${changed}/`, { status: 3 })),
    DELETE: await consumerCost(() => request('DELETE', `/api/tickets/${changed}/`)),
  };
  for (const [name, c] of Object.entries(listConsumer))
    log(`stream consumer per ${name}: ${c.requests} requests, ${c.readUnits} RRU, ${c.writeUnits} WRU`);
  const simulatedTotal = Number(args['simulated-tickets']);
  const extra = Math.max(0, simulatedTotal - scaleTickets);
  log(`lists: simulating ${simulatedTotal} tickets`);
  await simulateTickets(extra, admin.id, [
    [0, 100],
    [extra - 200, extra],
  ]);
  sizes.push(await measureAt(true, () => false));
  await runtime.stop();
  const load = loadavg()
    .map((l) => l.toFixed(1))
    .join(', ');
  writeFileSync(
    REPORT,
    withSection(
      previousReport,
      LISTS_START,
      LISTS_END,
      renderLists(sizes, listConsumer, new Date().toISOString(), load),
    ),
  );
  log('wrote the Filtered lists section of docs/benchmarks.md');
  process.exit(0);
}

// Scale, small: list pages with 200 tickets.
log('seeding 200 tickets');
const seeded = await seedTickets(200, admin.id, secondQueue);
await counted();
// The listing items the filtered lists read follow the stream too: applied up to now.
await runtime.drainTableStream();
const listP50 = async (count: number) => {
  const pages = Math.max(1, Math.floor(count / 25));
  await request('GET', '/api/tickets/');
  return (await latency((i) => request('GET', `/api/tickets/?page=${(i % pages) + 1}`), ITERATIONS, 1)).p50;
};
const small = {
  tickets: 200,
  listPageP50: await listP50(200),
  pages: await listCosts(),
  filtered: await measureFilteredCosts(probe, filtered),
};
for (const [name, c] of Object.entries(small.filtered))
  log(`${name} at 200: ${c.requests} requests, ${c.readUnits} RRU`);
const checkedIds = await measureFilteredCosts(probe, checkedIdPages());
for (const [name, c] of Object.entries(checkedIds)) log(`${name} at 200: ${c.requests} requests, ${c.readUnits} RRU`);

log(`seeding to ${TICKETS} tickets`);
seeded.push(...(await seedTickets(Math.max(0, TICKETS - 200), admin.id, secondQueue)));
// The operations change tickets past the first 200, whose pages the scale comparison reads again at the
// simulated size (the same pages, the same tickets); with none past them (--quick), those 200.
const changed = seeded.length > 400 ? seeded.slice(200) : seeded;
const pool = (n: number) => changed[n % changed.length]!;
/**
 * The tickets of `changed` in queue 1 with status 2, as seedTickets made them (statuses cycle 1-5 and every seventh
 * ticket is in the second queue, from each call's first ticket; `changed` starts at one): a PUT that keeps both is
 * counted as a PUT, not as a move's re-keying of the collection (data-model.md, "Write units"), whichever ticket
 * the count falls on.
 */
const steady = changed.filter((_, j) => j % 5 === 1 && j % 7 !== 0);
// The tickets DELETE takes: as the API creates them (with their opening followup), so its write
// units are those of deleting a ticket as it is first stored.
const doomed: number[] = [];
for (let i = 0; i < ITERATIONS * 3 + 10; i++)
  doomed.push((await request('POST', '/api/tickets/', ticketBody(i))).body.id);
await counted();
await request('POST', '/api/users/', {
  first_name: 'Plain',
  last_name: 'User',
  username: 'plain',
  email: 'plain@example.com',
  password: 'plain-password-1',
});
const PLAIN = basicAuthorization('plain', 'plain-password-1');
const pages = Math.floor(TICKETS / 25);

const operations: Record<string, OperationResult> = {
  get: await measure('get', (i) => request('GET', `/api/tickets/${pool(i * 7)}/`)),
  'list page': await measure('list page', (i) => request('GET', `/api/tickets/?page=${(i % pages) + 1}`)),
  'list by status': await measure('list by status', (i) =>
    request('GET', `/api/tickets/?status=3&page=${(i % Math.max(1, Math.floor(pages / 5))) + 1}`),
  ),
  'create (JSON)': await measure('create (JSON)', (i) => request('POST', '/api/tickets/', ticketBody(i))),
  'create with attachment': await measure('create with attachment', (i) =>
    request('POST', '/api/tickets/', ticketForm(i)),
  ),
  PUT: await measure('PUT', (i) =>
    request('PUT', `/api/tickets/${steady[(i * 11) % steady.length]}/`, { ...ticketBody(i), status: 2 }),
  ),
  PATCH: await measure('PATCH', (i) => request('PATCH', `/api/tickets/${pool(i * 13)}/`, { priority: (i % 5) + 1 })),
  DELETE: await measure('DELETE', (i) => request('DELETE', `/api/tickets/${doomed[i]}/`)),
  'followup with 2 files': await measure('followup with 2 files', (i) =>
    request('POST', '/api/followups/', followupForm(pool(i * 17))),
  ),
  'user create': await measure('user create', (i) =>
    request('POST', '/api/users/', {
      first_name: 'B',
      last_name: 'U',
      username: `bench${i}`,
      email: `b${i}@example.com`,
      password: 'bench-password',
    }),
  ),
  'denied (403)': await measure('denied (403)', () => request('GET', '/api/tickets/', undefined, PLAIN)),
};
const rssMb = round(process.memoryUsage().rss / 1024 / 1024, 0);

/**
 * What the stream consumer does for one change (its requests and capacity units: counts, listing
 * records, repairs, change events), each measured alone: the stream drained before and after it.
 */
async function consumerCost(run: () => Promise<unknown>): Promise<ConsumerCost> {
  // The poller paused: the change's records are read in one drain, in one batch, as a lone write's are. Polled, a
  // slower store (on disk) could split them across two batches, and the count would hang on when the poll fell.
  runtime.pauseTableStream(true);
  await runtime.drainTableStream();
  Object.assign(consumerCounters, { dynamodb: 0, readUnits: 0, writeUnits: 0 });
  await run();
  await runtime.drainTableStream();
  runtime.pauseTableStream(false);
  return {
    requests: consumerCounters.dynamodb,
    readUnits: round(consumerCounters.readUnits, 2),
    writeUnits: round(consumerCounters.writeUnits, 2),
  };
}
const spare = (await request('POST', '/api/tickets/', ticketBody(0))).body.id;
const consumer = {
  'create (JSON)': await consumerCost(() => request('POST', '/api/tickets/', ticketBody(1))),
  PATCH: await consumerCost(() => request('PATCH', `/api/tickets/${spare}/`, { priority: 4 })),
  DELETE: await consumerCost(() => request('DELETE', `/api/tickets/${spare}/`)),
};
for (const [name, c] of Object.entries(consumer))
  log(`stream consumer per ${name}: ${c.requests} requests, ${c.readUnits} RRU, ${c.writeUnits} WRU`);

if (QUICK) {
  // The floors that counts decide, and the bundle budget: what CI holds every change to.
  const listRequests = Math.max(...Object.values(small.pages).map((p) => p.requests));
  const checks: Target[] = [
    ...requestFloors(operations, `at most ${listRequests}`, listRequests),
    ...filteredFloors(small.filtered),
    ...checkedIdFloors(checkedIds),
    ...bundles.map((b): Target => {
      const budget = bundleBudget(b);
      return [`bundle ${b.handler} ≤ ${budget / 1024} KiB`, `${Math.round(b.bytes / 1024)} KiB`, b.bytes <= budget];
    }),
  ];
  await runtime.stop();
  const missed = checks.filter(([, , ok]) => !ok);
  for (const [what, value, ok] of checks)
    if (!ok || !what.startsWith('bundle ')) log(`${ok ? 'ok    ' : 'MISSED'} ${what}: ${value}`);
  log(
    missed.length
      ? `bench --quick: ${missed.length} of ${checks.length} checks missed`
      : `bench --quick: all ${checks.length} checks hold`,
  );
  process.exit(missed.length ? 1 : 0);
}

// Scale, large.
const scaleTickets = Number(args['scale-tickets']);
log(`seeding to ${scaleTickets} tickets`);
const total = seeded.length + doomed.length;
if (scaleTickets > total) await seedTickets(scaleTickets - total, admin.id, secondQueue);
await counted();
await runtime.drainTableStream();
await request('GET', '/api/tickets/?page=400'); // warm again: seeding outlasts the 60 s caches
resetCounters();
await request('GET', '/api/tickets/?page=400');
const largeRequests = counters.dynamodb;
const large = {
  tickets: scaleTickets,
  listPageP50: await listP50(scaleTickets),
  dynamodbRequests: largeRequests,
  pages: await listCosts(),
  filtered: await measureFilteredCosts(probe, filtered),
  filterChecks: await checkFilters(),
};
for (const [name, c] of Object.entries(large.filterChecks))
  log(
    `${name}: ${c.listed} of ${c.expected} listed, ${c.exact ? 'exactly' : 'NOT exactly'}, ` +
      `${c.pages} pages, ${c.requests} requests`,
  );

// Scale, simulated: the counts of millions of tickets, real ones only where the measured pages read.
const simulatedTotal = Number(args['simulated-tickets']);
const current = (await request('GET', '/api/tickets/?page_size=1')).body.count;
log(`simulating ${simulatedTotal} tickets`);
const extra = Math.max(0, simulatedTotal - current);
await simulateTickets(extra, admin.id, [
  [0, 100],
  [extra - 200, extra],
]);
const huge = { tickets: current + extra, pages: await listCosts() };
const scale = { small, large, huge, ratio: round(large.listPageP50 / small.listPageP50, 2) };
log(
  `list page p50: ${small.listPageP50} ms at 200 tickets, ${large.listPageP50} ms at ${scaleTickets} (x${scale.ratio})`,
);
for (const [name, c] of Object.entries(huge.pages))
  log(`${name} at ${huge.tickets}: ${c.requests} requests, ${c.readUnits} RRU, p50 ${c.p50} ms`);

await runtime.stop();

const results: BenchResults = {
  date: new Date().toISOString(),
  machine: {
    cpus: cpus().length,
    cpu: cpus()[0]?.model ?? '?',
    memoryGiB: round(totalmem() / 1024 ** 3, 0),
    node: process.version,
  },
  tickets: TICKETS,
  iterations: ITERATIONS,
  operations,
  consumer,
  serverRssMb: rssMb,
  scale,
  bundles,
  cpu,
  cpuFloor,
  // From the process's start: the bundles and the CPU measurement included.
  seconds: Math.round(process.uptime()),
};
// The marked sections (Bursts, Mail out, Mail in, Filtered lists, Counts, Importing, Search in
// benchmarks.md; the hand-written ones in cost.md) come from their own runs or by hand: kept as they were.
writeFileSync(REPORT, withKeptSections(renderReport(results), previousReport));
const COST = resolve(import.meta.dirname, '../docs/cost.md');
writeFileSync(COST, withKeptSections(renderCost(results), existsSync(COST) ? readFileSync(COST, 'utf8') : ''));
if (args.json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
else log(`wrote docs/benchmarks.md (${results.seconds} s)`);
process.exit(0);
