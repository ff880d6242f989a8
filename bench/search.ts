/**
 * `npm run bench -- --search`: ticket search on the embedded engine (PGlite in its worker thread).
 *  1. Indexes N synthetic tickets (default 20,000; --search-tickets) through the stream consumer's
 *     own code in batches of 500, as the stream would hand them: wall time and process CPU per change.
 *  2. Searches them (the page statement and the snippets statement, as the API runs them) with and
 *     without list filters: p50 and p99 latency, and CPU per search (the process's, worker included).
 *  3. On a local runtime, over HTTP: the index's lag after one lone create, and after a burst of
 *     500 creates (from the last 201 to the last ticket found).
 * Prints its figures (with the load average); docs/benchmarks.md, "Search", records them.
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    search: { type: 'boolean' },
    'search-tickets': { type: 'string', default: '20000' },
    'search-iterations': { type: 'string', default: '400' },
  },
  strict: false,
});
const TICKETS = Number(args['search-tickets']);
const ITERATIONS = Number(args['search-iterations']);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const log = (...m: unknown[]) => console.log(...m, ` (load ${load()})`);

process.env.HELPDESK_SEARCH = 'pglite';
process.env.HELPDESK_SEARCH_DIR = 'memory';
process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';

const { applyToIndex } = await import('../shared/search/indexer');
const { searchEngine, closeSearchEngine } = await import('../shared/search/engine');
const { searchTickets } = await import('../shared/search/search');
const { parseSearch } = await import('../shared/domain/search');
const { keys } = await import('../shared/store/keys');

// --- 1. indexing ----------------------------------------------------------------------------
const WORDS = (
  'laptop printer screen battery keyboard mouse network wifi router server password account invoice refund ' +
  'shipping delivery order payment billing license update install crash error slow overheats broken noisy cable ' +
  'charger monitor email calendar backup restore database report export import login access permission café ' +
  'résumé naïve'
).split(' ');
let seed = 1;
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const pick = () => WORDS[Math.floor(random() * WORDS.length)]!;
const sentence = (n: number) => Array.from({ length: n }, pick).join(' ');
const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString().replace('Z', '000Z');

const t0 = performance.now();
await searchEngine()!;
log(`engine started in ${Math.round(performance.now() - t0)} ms`);
const cpu0 = process.cpuUsage();
const w0 = performance.now();
for (let from = 1; from <= TICKETS; from += 500) {
  const changes = [];
  for (let id = from; id < Math.min(from + 500, TICKETS + 1); id++) {
    const k = keys.ticket(id);
    const ticket = {
      ...k,
      type: 'ticket',
      id,
      queue: 1 + (id % 3),
      title: sentence(5),
      description: `${sentence(40)} code INV-2026-${String(id).padStart(4, '0')}`,
      resolution: null,
      submitter_email: `user${id % 50}@example.com`,
      assigned_to: id % 10 === 0 ? 1 : null,
      status: 1 + (id % 5),
      on_hold: false,
      priority: 1 + (id % 5),
      due_date: null,
      merged_to: null,
      secret_key: 'x',
      created: at(id),
      modified: at(id),
      custom: {},
      opening: {
        id: id * 10,
        user: 1,
        title: 'Ticket Opened',
        comment: sentence(20),
        public: true,
        new_status: null,
        time_spent: null,
        date: at(id),
        message_id: null,
      },
    };
    changes.push({ eventName: 'INSERT' as const, keys: k, newImage: ticket });
  }
  await applyToIndex(changes);
}
const indexMs = performance.now() - w0;
const indexCpu = process.cpuUsage(cpu0);
const indexCpuMs = (indexCpu.user + indexCpu.system) / 1000;
log(
  `indexed ${TICKETS} tickets in ${Math.round(indexMs)} ms: ${(indexMs / TICKETS).toFixed(2)} ms ` +
    `and ${(indexCpuMs / TICKETS).toFixed(2)} ms CPU per change (batches of 500)`,
);

// --- 2. searching ---------------------------------------------------------------------------
const QUERIES = [
  'laptop overheats',
  'printer',
  'cafe',
  'resume',
  'wifi router slow',
  '"broken cable"',
  'invoice -refund',
  'backup OR restore',
  'lapt',
  'passw',
  'INV-2026-0042',
  '2026-01',
  'naive error',
];
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
async function measure(label: string, filters: Parameters<typeof searchTickets>[1]) {
  const times: number[] = [];
  for (let i = 0; i < 20; i++)
    await searchTickets(parseSearch(QUERIES[i % QUERIES.length])!, filters, 'relevance', {}, { page: 1, pageSize: 25 });
  const c0 = process.cpuUsage();
  for (let i = 0; i < ITERATIONS; i++) {
    const s = performance.now();
    await searchTickets(parseSearch(QUERIES[i % QUERIES.length])!, filters, 'relevance', {}, { page: 1, pageSize: 25 });
    times.push(performance.now() - s);
  }
  const used = process.cpuUsage(c0);
  times.sort((a, b) => a - b);
  const cpuMs = (used.user + used.system) / 1000 / ITERATIONS;
  log(
    `${label}: p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms, ` +
      `${cpuMs.toFixed(1)} ms CPU per search ` +
      `(${ITERATIONS} searches of ${QUERIES.length} kinds, 25 a page with snippets)`,
  );
}
await measure(`search at ${TICKETS} tickets, no filter`, {});
await measure(`search at ${TICKETS} tickets, status and priority`, { statuses: new Set([1, 2]), priority: '2' });
await measure(`search at ${TICKETS} tickets, queue, submitter and created_since`, {
  queue: '2',
  email: 'user5@example.com',
  createdSince: at(100),
});
await closeSearchEngine();

// --- 3. lag over HTTP -----------------------------------------------------------------------
const { startLocalRuntime } = await import('../infra/local/runtime');
const ADMIN = { username: 'admin', password: 'bench-admin-password' };
Object.assign(process.env, {
  HELPDESK_ADMIN_USERNAME: ADMIN.username,
  HELPDESK_ADMIN_PASSWORD: ADMIN.password,
  HELPDESK_ACTIVATE_API_ENDPOINT: 'True',
});
const runtime = await startLocalRuntime({ dataDir: 'memory', port: 0 });
const auth = `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`;
const get = async (path: string) =>
  (await (await fetch(`${runtime.url}${path}`, { headers: { authorization: auth } })).json()) as { count: number };
const create = async (title: string) => {
  const reply = await fetch(`${runtime.url}/api/tickets/`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify({ queue: 1, title, description: 'bench', submitter_email: 'b@example.com' }),
  });
  if (reply.status !== 201) throw new Error(`create: ${reply.status}`);
  return performance.now();
};
const until = async (path: string, count: number) => {
  for (;;) {
    if ((await get(path)).count >= count) return performance.now();
    await new Promise((r) => setTimeout(r, 20));
  }
};
await get('/api/tickets/?search=warmup'); // the engine is up
const lone = await create('lonely zebracorn');
const loneFound = await until('/api/tickets/?search=zebracorn', 1);
log(`lag of a lone create: ${Math.round(loneFound - lone)} ms from its 201 to found`);
const burstStart = performance.now();
let last = 0;
let next = 0;
await Promise.all(
  Array.from({ length: 10 }, async () => {
    while (next < 500) {
      next++;
      last = Math.max(last, await create('burst quagga'));
    }
  }),
);
const burstFound = await until('/api/tickets/?search=quagga', 500);
log(
  `burst of 500 creates answered in ${Math.round(last - burstStart)} ms; ` +
    `lag from the last 201 to all 500 found: ${Math.round(burstFound - last)} ms`,
);
await runtime.stop();
process.exit(0);
