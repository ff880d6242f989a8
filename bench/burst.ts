/**
 * Bursts (`npm run bench -- --burst`): on a freshly started local runtime keeping its data on disk
 * (as `npm start` does), mail off, with DynamoDB's transaction conflict rule emulated (its default),
 * 500 creates sent at once (one in ten multipart with a small file), then 200 followups on one ticket
 * at once (issue 24's burst). Records the answers by status, creates per second, p50/p99 latency,
 * that every id is distinct and every ticket stored, how long after the last answer the list's
 * count and the agent views (their counts and their last ticket) were exact, and the stream
 * consumer's time per phase and per batch (consumer/consumer-timings.ts).
 */
import { cpus, loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { ConsumerTimings } from '../shared/consumer/consumer-timings';
import type { JvmCpu, JvmThreadKind } from './jvm-threads';
import type { ApiReply } from './scale';
import { withSection } from './report';

export interface BurstPart {
  requests: number;
  statuses: Record<string, number>;
  perSecond: number;
  /** Per request, from its send to its answer, ms. */
  p50: number;
  p99: number;
  max: number;
  distinctIds: number;
}

/** Requests at a fixed number in flight, one kind at a time, in the same run as the burst. */
export interface SteadyRate {
  requests: number;
  inFlight: number;
  perSecond: number;
  p50: number;
  p99: number;
}

/**
 * Creates, then GETs, at a fixed number in flight, one kind at a time; the load average when they began, and DynamoDB
 * Local's CPU by kind of thread meanwhile (bench/jvm-threads.ts; undefined without /proc).
 */
export interface SteadyPhase {
  creates: SteadyRate;
  gets: SteadyRate;
  load: number;
  jvm?: JvmCpu;
  /**
   * DynamoDB calls through the store's client per create: the routes' during the creates, and the stream consumer's
   * over the phase (the GETs write nothing, so its calls then are the creates' backlog). The stream's reads are the
   * poller's own client's, not counted.
   */
  callsPerCreate?: { requestPath: number; consumer: number };
  /**
   * Milliseconds from the phase's last create's answer until the stream consumer had applied the stream to its end
   * (the phase's GETs ran meanwhile): how far the derived state was behind the creates.
   */
  appliedAfterMs?: number;
}

/** The stream consumer's DynamoDB work for one change, measured alone (the stream drained before and after). */
export interface ConsumerCost {
  requests: number;
  readUnits: number;
  writeUnits: number;
}

export interface BurstResult {
  creates: BurstPart;
  followups: BurstPart;
  /** Tickets read back with the title they were created with. */
  stored: number;
  /** Milliseconds from the last answer until the list's count was exact (undefined: not within EXACT_WITHIN_MS). */
  countExactAfterMs: number | undefined;
  /**
   * Milliseconds from the last answer until the agent views (status × queue, status × assignee) were exact: their
   * counts and their newest ticket.
   */
  listsExactAfterMs: number | undefined;
  /** The stream consumer's work from the first create on (to the views' exact counts). */
  consumer: ConsumerTimings;
  /**
   * Lone creates after the burst, one at a time: milliseconds from each 201 until the list's count and the agent views
   * were exact.
   */
  lone: { writes: number; p50: number; max: number };
  /**
   * How late the runtime's event loop ran its timers during the burst (to the views' exact counts), ms: a call's answer
   * waits as long to be read.
   */
  eventLoopDelay: { p50: number; p99: number; max: number };
  /** The machine's 1-minute load average and cores when the burst began: other work on it slows every figure. */
  load: { average: number; cores: number };
  /** A fresh start's first create, before the burst: milliseconds from its 201 until the counts showed it. */
  firstCreateCountedMs: number;
  /** DynamoDB Local's CPU by kind of thread from the first create to the last followup's answer. */
  jvm?: JvmCpu;
  /**
   * Creates and GETs at 8 in flight (bench/run.ts): right after the burst, and warm, once rounds of creates stopped
   * getting faster (`warmup`: creates a second in each round, in order).
   */
  steady?: { afterBurst: SteadyPhase; warm: SteadyPhase & { warmup: number[] } };
  /** The stream consumer's work per change (bench/run.ts consumerCost). */
  consumerPerChange?: Record<string, ConsumerCost>;
}

/** The consumer's timings, read in the runtime's own process. */
export interface TimingsProbe {
  reset(): void;
  read(): ConsumerTimings;
  /** Applies every record of the stream written so far (the runtime's `drainTableStream`). */
  drain(): Promise<void>;
  /** Starts counting DynamoDB Local's CPU by kind of thread (bench/jvm-threads.ts), where it can be read. */
  jvm?: () => { since(): JvmCpu } | undefined;
}

type Send = (method: string, path: string, body?: unknown) => Promise<ApiReply>;

/** The consumer's batches listed in the report, the longest. */
const SLOWEST_BATCHES = 10;
/** How long after the burst's last answer the counts are waited for. */
const EXACT_WITHIN_MS = 120_000;
/** Lone creates measured after the burst. */
const LONE_WRITES = 10;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const round = (n: number) => Math.round(n * 10) / 10;

async function burst(
  count: number,
  send: (i: number) => Promise<ApiReply>,
): Promise<{ part: BurstPart; replies: ApiReply[] }> {
  const times: number[] = [];
  const started = performance.now();
  const replies = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const t = performance.now();
      const reply = await send(i);
      times.push(performance.now() - t);
      return reply;
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  times.sort((a, b) => a - b);
  const statuses: Record<string, number> = {};
  for (const r of replies) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
  const part = {
    requests: count,
    statuses,
    perSecond: Math.round(count / seconds),
    p50: round(percentile(times, 50)),
    p99: round(percentile(times, 99)),
    max: round(times.at(-1) ?? 0),
    distinctIds: new Set(replies.filter((r) => r.status === 201).map((r) => r.body.id)).size,
  };
  return { part, replies };
}

/**
 * A fresh start's first create: milliseconds from its 201 until the list's count and the agent view `?status=1&queue=1`
 * show it. The stream's first batch also holds the bootstrap's records, so every consumer's first use (the search
 * engine's start among them) is paid before it.
 */
async function firstCreateCounted(
  send: Send,
  count: (query: string) => Promise<ApiReply['body']>,
  body: Record<string, unknown>,
): Promise<number> {
  const [all, view] = [(await count('')).count, (await count('&status=1&queue=1')).count];
  const { body: created } = await send('POST', '/api/tickets/', body);
  const answered = performance.now();
  for (;;) {
    const [allNow, viewNow] = await Promise.all([count(''), count('&status=1&queue=1')]);
    const viewed = (viewNow.results as { id: number }[])[0]?.id === created.id;
    if (allNow.count === all + 1 && viewNow.count === view + 1 && viewed) break;
    if (performance.now() - answered > EXACT_WITHIN_MS) throw new Error("a fresh start's first create was not counted");
    await new Promise((r) => setTimeout(r, 10));
  }
  return Math.round(performance.now() - answered);
}

export async function measureBurst(
  send: Send,
  timings: TimingsProbe,
  creates = 500,
  followups = 200,
): Promise<BurstResult> {
  const run = `burst-${Date.now()}`;
  const ticket = (i: number) => ({
    queue: 1,
    title: `${run}-${i}`,
    description: 'Burst',
    submitter_email: 'burst@example.com',
  });
  const count = async (query: string) => (await send('GET', `/api/tickets/?page_size=1&ordering=-id${query}`)).body;
  const firstCreateCountedMs = await firstCreateCounted(send, count, ticket(creates + LONE_WRITES));
  const before = (await count('')).count;
  const viewsBefore = {
    queue: (await count('&status=1&queue=1')).count,
    unassigned: (await count('&status=1&assigned_to=none')).count,
  };
  timings.reset();
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const load = { average: Math.round(loadavg()[0]! * 10) / 10, cores: cpus().length };
  const jvmProbe = timings.jvm?.();
  const c = await burst(creates, (i) => {
    if (i % 10) return send('POST', '/api/tickets/', ticket(i));
    const form = new FormData();
    for (const [k, v] of Object.entries(ticket(i))) form.append(k, String(v));
    form.append('attachment', new Blob([`log ${i}\n`], { type: 'text/plain' }), `log-${i}.txt`);
    return send('POST', '/api/tickets/', form);
  });
  const made = c.replies.filter((r) => r.status === 201).map((r) => r.body.id);
  const f = await burst(followups, (i) =>
    send('POST', '/api/followups/', { ticket: made[0], title: `${run}-f${i}`, comment: 'Burst' }),
  );
  const answered = performance.now();
  const jvm = jvmProbe?.since();
  const newest = Math.max(...made);
  // A create answered otherwise (a 500 past the functions' timeout) may still have stored its ticket:
  // the figures below then stay undefined rather than fail the run.
  const waitFor = async (exact: () => Promise<boolean>) => {
    while (!(await exact())) {
      if (performance.now() - answered > EXACT_WITHIN_MS) return undefined;
      await new Promise((r) => setTimeout(r, 20));
    }
    return Math.round(performance.now() - answered);
  };
  const countExactAfterMs = await waitFor(async () => (await count('')).count === before + made.length);
  const viewsExact = async (added: number, newestId: number) => {
    const [queue, unassigned] = await Promise.all([count('&status=1&queue=1'), count('&status=1&assigned_to=none')]);
    return (
      queue.count === viewsBefore.queue + added &&
      unassigned.count === viewsBefore.unassigned + added &&
      (queue.results as { id: number }[])[0]?.id === newestId &&
      (unassigned.results as { id: number }[])[0]?.id === newestId
    );
  };
  const listsExactAfterMs = await waitFor(() => viewsExact(made.length, newest));
  const consumer = timings.read();
  loopDelay.disable();
  const eventLoopDelay = {
    p50: Math.round(loopDelay.percentile(50) / 1e6),
    p99: Math.round(loopDelay.percentile(99) / 1e6),
    max: Math.round(loopDelay.max / 1e6),
  };
  // A lone write once the burst is applied: the lag of the stream alone (the poll interval, one batch).
  const lags: number[] = [];
  // Only once the burst's counts were exact: else what a lone create adds cannot be told apart. And only
  // once every consumer has applied the burst's tail (the change feed and page snapshots finish after the
  // counts): a write behind a backlog is not alone.
  const loneWrites = listsExactAfterMs === undefined ? 0 : LONE_WRITES;
  if (loneWrites) await timings.drain();
  for (let i = 0; i < loneWrites; i++) {
    const reply = await send('POST', '/api/tickets/', ticket(creates + i));
    const created = performance.now();
    const added = made.length + i + 1;
    while (!((await count('')).count === before + added && (await viewsExact(added, reply.body.id)))) {
      if (performance.now() - created > 120_000) throw new Error('a lone create did not show in 120 s');
      await new Promise((r) => setTimeout(r, 10));
    }
    lags.push(performance.now() - created);
  }
  lags.sort((a, b) => a - b);
  const lone = { writes: loneWrites, p50: Math.round(percentile(lags, 50)), max: Math.round(lags.at(-1) ?? 0) };
  let stored = 0;
  for (const [i, r] of c.replies.entries()) {
    if (r.status === 201 && (await send('GET', `/api/tickets/${r.body.id}/`)).body.title === `${run}-${i}`) stored++;
  }
  return {
    creates: c.part,
    followups: f.part,
    stored,
    countExactAfterMs,
    listsExactAfterMs,
    consumer,
    lone,
    eventLoopDelay,
    load,
    jvm,
    firstCreateCountedMs,
  };
}

const exactIn = (ms: number | undefined) =>
  ms === undefined
    ? `more than ${EXACT_WITHIN_MS / 1000} s (or never: a create answered 500 stored its ticket)`
    : `${ms} ms`;

const JVM_KINDS: JvmThreadKind[] = ['JIT compilers', 'request threads', 'SQLite', 'garbage collector', 'other'];

/** DynamoDB Local's CPU by kind of thread in each phase measured: seconds, and each kind's share. */
function renderJvm(phases: [string, JvmCpu | undefined][]): string {
  const measured = phases.filter((p): p is [string, JvmCpu] => p[1] !== undefined);
  if (!measured.length) return '';
  const row = ([name, cpu]: [string, JvmCpu]) => {
    const total = JVM_KINDS.reduce((sum, kind) => sum + cpu[kind], 0);
    const cell = (kind: JvmThreadKind) => `${cpu[kind].toFixed(1)} (${Math.round((100 * cpu[kind]) / (total || 1))}%)`;
    return `| ${name} | ${total.toFixed(1)} | ${JVM_KINDS.map(cell).join(' | ')} |`;
  };
  return `DynamoDB Local's CPU in each phase, by kind of thread (seconds of CPU, bench/jvm-threads.ts): a freshly
started JVM compiles its hot code as it goes (its JIT compilers), on the same two cores as everything else, until
its code settles; the request threads parse and answer each call, and one thread per database runs the SQLite
statements (a database's calls are taken one at a time).

| Phase | all | ${JVM_KINDS.join(' | ')} |
|---|---|${JVM_KINDS.map(() => '---').join('|')}|
${measured.map(row).join('\n')}
`;
}

/** The DynamoDB calls per create of the two phases, when counted. */
function callsLine(afterBurst: SteadyPhase, warm: SteadyPhase): string {
  const [a, w] = [afterBurst.callsPerCreate, warm.callsPerCreate];
  if (!a || !w) return '';
  const applied =
    afterBurst.appliedAfterMs === undefined || warm.appliedAfterMs === undefined
      ? ''
      : `\nThe stream consumer had applied each phase's creates ${afterBurst.appliedAfterMs} ms (right after the burst)
and ${warm.appliedAfterMs} ms (warm) after the last one's answer (each phase begins with the stream applied; its GETs
ran meanwhile, and while a route's call is on the wire the consumer's go one at a time: docs/local.md).`;
  return `
DynamoDB calls per create, through the store's client (the stream's reads not counted): right after the burst
${a.requestPath} by the routes and ${a.consumer} by the stream consumer, warm ${w.requestPath} and ${w.consumer}.
Creates made at once share three of a create's four writes (docs/data-model.md, "Group commit").${applied}
`;
}

/** The steady rates and the consumer's work per change, when measured (bench/run.ts adds them). */
function renderSteady(r: BurstResult): string {
  const parts: string[] = [];
  if (r.steady) {
    const { afterBurst, warm } = r.steady;
    const row = (phase: string, name: string, s: SteadyRate) =>
      `| ${phase} | ${name} | ${s.requests} | ${s.inFlight} | ${s.perSecond} | ${s.p50} | ${s.p99} |`;
    parts.push(`Then, in the same run, creates and GETs at 8 in flight, one kind at a time: right after the burst
(load average ${afterBurst.load}), and warm (load average ${warm.load}): once rounds of ${warm.creates.requests}
creates stopped getting faster (creates a second, round by round: ${warm.warmup.join(' → ')}).

| Phase | Requests | Count | In flight | Per second | p50 ms | p99 ms |
|---|---|---|---|---|---|---|
${row('right after the burst', 'ticket creates (JSON)', afterBurst.creates)}
${row('right after the burst', 'ticket GETs', afterBurst.gets)}
${row('warm', 'ticket creates (JSON)', warm.creates)}
${row('warm', 'ticket GETs', warm.gets)}
${callsLine(afterBurst, warm)}`);
  }
  const jvm = renderJvm([
    ['the burst (500 creates, 200 followups)', r.jvm],
    ['right after the burst (creates, GETs)', r.steady?.afterBurst.jvm],
    ['warm (creates, GETs)', r.steady?.warm.jvm],
  ]);
  if (jvm) parts.push(jvm);
  if (r.consumerPerChange) {
    parts.push(`The stream consumer's work per change, each alone (its function's on AWS, not the request's):

| Change | Requests | Read units | Write units |
|---|---|---|---|
${Object.entries(r.consumerPerChange)
  .map(([name, c]) => `| ${name} | ${c.requests} | ${c.readUnits} | ${c.writeUnits} |`)
  .join('\n')}
`);
  }
  return parts.map((p) => `${p}\n`).join('');
}

export const BURST_START = '<!-- burst:start -->';
export const BURST_END = '<!-- burst:end -->';

export function renderBurst(r: BurstResult, date: string): string {
  const row = (name: string, p: BurstPart) =>
    `| ${name} | ${p.requests} | ${Object.entries(p.statuses)
      .map(([s, n]) => `${s} ×${n}`)
      .join(', ')} | ${p.distinctIds} | ${p.perSecond} | ${p.p50} | ${p.p99} | ${p.max} |`;
  const largestBatch = Math.max(0, ...r.consumer.log.map((b) => b.records));
  const longestBatchMs = Math.round(Math.max(0, ...r.consumer.log.map((b) => b.ms)));
  const late = r.eventLoopDelay;
  const readMs = Math.round(r.consumer.readMs);
  const secondsIn = (at: number) => Math.round((at - r.consumer.since) / 100) / 10;
  return (
    `${BURST_START}
## Bursts

Measured by \`npm run bench -- --burst\` on ${date.slice(0, 10)}, on a freshly started local runtime keeping
its data on disk, as \`npm start\` does (DynamoDB Local's SQLite file: each commit is written and synced),
mail off (\`bench/mail.ts\` measures mail in a burst), with DynamoDB's transaction conflict rule emulated
(infra/local/transaction-conflicts.ts): every request sent at once, no client retries. The machine's load
average was ${r.load.average} on ${r.load.cores} cores as it began (the engines, the runtime and the client share
them: a load above the cores slows every figure).

Latencies are per request, from its send to its answer (every request of a burst is sent at once;
the functions' timeout is 15 s, docs/local.md).

| Burst | Requests | Answers | Distinct ids | Per second | p50 ms | p99 ms | max ms |
|---|---|---|---|---|---|---|---|
${row('ticket creates (1 in 10 multipart with a file)', r.creates)}
${row('followups on one ticket', r.followups)}

${r.stored} of ${r.creates.requests} tickets read back as created. After the last answer, the list's \`count\` was exact
in ${exactIn(r.countExactAfterMs)}, and the agent views (\`?status=1&queue=1\`, \`?status=1&assigned_to=none\`: their
counts and their newest ticket) in ${exactIn(r.listsExactAfterMs)}; they follow the table's stream. The first
requests of a cold runtime also pay its warm-up (one password hash, DynamoDB Local's JIT).

${renderSteady(r)}A lone create after the burst (${r.lone.writes}, one at a time): its count and the agent views ` +
    `were exact
${r.lone.p50} ms after its 201 (median; at most ${r.lone.max} ms); the local stream is polled every 50 ms. Before the
burst, the runtime's first create was counted ${r.firstCreateCountedMs} ms after its 201 (the stream's first batch ` +
    `also
holds the bootstrap's records, and each consumer's first use).

The stream consumer during the burst: ${r.consumer.records} records in ${r.consumer.batches} batches (largest
${largestBatch}, longest ${longestBatchMs} ms), ${r.consumer.retries} retried, ${readMs} ms reading the
stream. Its time per phase (consumers run at once per batch; \`counts\` includes \`listings\`, written
before each counts transaction):

| Phase | Calls | Total ms | Longest ms |
|---|---|---|---|
${Object.entries(r.consumer.phases)
  .map(([name, p]) => `| ${name} | ${p.calls} | ${Math.round(p.ms)} | ${Math.round(p.maxMs)} |`)
  .join('\n')}

Where the DynamoDB calls spent their time, per socket pool (attempts answered; "queued": waiting for
a socket of the pool, "wire": from the socket to the answer, mostly inside DynamoDB Local). No
route's call waits for the consumer's (nothing admits them: docs/local.md, "Concurrency and timeouts"):

| Pool | Calls | Queued ms (mean / max) | Wire ms (mean / max) |
|---|---|---|---|
${Object.entries(r.consumer.calls)
  .map(([pool, c]) => {
    const queued = `${Math.round(c.queuedMs / c.calls)} / ${Math.round(c.maxQueuedMs)}`;
    const wire = `${Math.round(c.wireMs / c.calls)} / ${Math.round(c.maxWireMs)}`;
    return `| ${pool} | ${c.calls} | ${queued} | ${wire} |`;
  })
  .join('\n')}

The runtime, the engines' client and the benchmark's client share one Node process: its event loop
ran timers ${late.p50} ms late at the median, ${late.p99} ms at p99, ${late.max} ms at most, and an answer
that arrived waited as long to be read ("wire" above includes it). The consumer's ${SLOWEST_BATCHES} longest
batches (when each began, from the first create; its records, wall time and DynamoDB calls):
${r.consumer.log
  .toSorted((a, b) => b.ms - a.ms)
  .slice(0, SLOWEST_BATCHES)
  .toSorted((a, b) => a.at - b.at)
  .map((b) => `${secondsIn(b.at)} s: ${b.records} records, ${Math.round(b.ms)} ms, ${b.calls} calls`)
  .join('; ')}.

Before issue 12 every create's transaction held items that every create shares (the ticket index
block, the queue's count, the followup and attachment index blocks) and every followup held its
ticket's item. Measured on that data model with the same emulation (2026-11-25): 500 creates at
once answered 201 ×17 and 503 ×483, and 200 followups on one ticket 201 ×17 and 503 ×183, every 503
a \`TransactionConflict\` after 4 attempts; without the emulation the local runtime hid it.
${BURST_END}`
  );
}

/** Replaces the burst section of the report, or appends it. */
export function withBurstSection(report: string, section: string): string {
  return withSection(report, BURST_START, BURST_END, section);
}
