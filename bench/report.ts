/** Renders the benchmark's results as docs/benchmarks.md. */
import { environments } from '../infra/environments';
import type { BenchResults } from './results';
import { FLOOR_OF, type CpuResult } from './cpu';
import type { ListCosts } from './scale';

const kib = (bytes: number) => `${Math.round(bytes / 1024)} KiB`;

/** A target: what, what was measured, whether it holds. */
export type Target = [string, string, boolean];

/**
 * The floors the design sets that deterministic counts decide (requests and capacity units of one
 * warm request of each operation): the report shows them, and `npm run bench -- --quick` fails CI
 * on them. `listRequests` is the most requests any list page measured took.
 */
export function requestFloors(o: BenchResults['operations'], listMeasured: string, listRequests: number): Target[] {
  return [
    ['get: DynamoDB requests (warm)', `${o['get']?.dynamodb}`, o['get']?.dynamodb === 1],
    ['list page: DynamoDB requests ≤ 3, every page measured, at every size', listMeasured, listRequests <= 3],
    [
      'write units: JSON create ≤ 8, PATCH ≤ 4, DELETE ≤ 8',
      `${o['create (JSON)']?.writeUnits}, ${o['PATCH']?.writeUnits}, ${o['DELETE']?.writeUnits}`,
      (o['create (JSON)']?.writeUnits ?? 99) <= 8 &&
        (o['PATCH']?.writeUnits ?? 99) <= 4 &&
        (o['DELETE']?.writeUnits ?? 99) <= 8,
    ],
    [
      'create: DynamoDB requests ≤ 4 (the reservation in its queue among them; +1 with files: their cleanup ' +
        'record), 1 S3 PUT per file',
      `${o['create (JSON)']?.dynamodb}, ` +
        `${o['create with attachment']?.dynamodb} + ${o['create with attachment']?.s3} S3`,
      (o['create (JSON)']?.dynamodb ?? 9) <= 4 &&
        (o['create with attachment']?.dynamodb ?? 9) <= 5 &&
        o['create with attachment']?.s3 === 1,
    ],
    ['PATCH: DynamoDB requests ≤ 2', `${o['PATCH']?.dynamodb}`, (o['PATCH']?.dynamodb ?? 9) <= 2],
    ['denied request: 0 requests after the first', `${o['denied (403)']?.dynamodb}`, o['denied (403)']?.dynamodb === 0],
  ];
}

/**
 * A filtered list page of 25 (issue 15 item 4, issue 24; docs/data-model.md, "Filtered lists"): 1
 * Query of the filter's index for the page's ids (per status asked for: the pages measured here ask
 * for none or one), 1 BatchGetItem of their page snapshots, and the totals item where the list keeps
 * a count: 3; one more is allowed, as the list page's floor allows (the 60-second cache of the custom
 * field definitions, or the 5-second one of the caller's user record, may run out between the
 * warm-up and the counted request on a slow machine), and one for a ticket without a snapshot. Read
 * units: half a unit per snapshot of up to 4 KB (eventually consistent), half for the index Query, 1
 * for the totals (strongly consistent); a `submitter_email` page reads gsi3, which projects whole
 * ticket items (about 2 units for 26 of them). A list by `-id` reads as the upstream list does.
 */
export const FILTERED_PAGE_FLOORS = { requests: 5, readUnits: 16 };

/** The floors of the filtered pages measured (`… next`: the page after, by its cursor). */
export function filteredFloors(pages: ListCosts): Target[] {
  const requests = Math.max(...Object.values(pages).map((p) => p.requests));
  const readUnits = Math.max(...Object.values(pages).map((p) => p.readUnits));
  return [
    [
      `filtered list page: DynamoDB requests ≤ ${FILTERED_PAGE_FLOORS.requests}, every filter and ordering measured`,
      `at most ${requests}`,
      requests <= FILTERED_PAGE_FLOORS.requests,
    ],
    [
      `filtered list page: read units ≤ ${FILTERED_PAGE_FLOORS.readUnits}`,
      `at most ${readUnits}`,
      readUnits <= FILTERED_PAGE_FLOORS.readUnits,
    ],
  ];
}

/**
 * A page in id order with only time filters (besides status), checked on every ticket it reads: 5
 * Queries (one per priority partition, keys only, at most CHECK_BUDGET entries each), 1 BatchGetItem
 * of the 100 snapshots merged first, no totals (count null), with `created_since` 1 Query of its id
 * floor (the created partition, 1 keys-only entry: it spares the walk over every older ticket,
 * docs/data-model.md "Filtered lists"), and one more as above (a cache running out). Read units: half
 * a unit per snapshot (50 for 100), the five keys-only Queries and half a unit for the floor.
 */
export const CHECKED_ID_PAGE_FLOORS = { requests: 8, readUnits: 60 };

/** The floors of the pages that check their filters on every ticket read in id order. */
export function checkedIdFloors(pages: ListCosts): Target[] {
  const requests = Math.max(...Object.values(pages).map((p) => p.requests));
  const readUnits = Math.max(...Object.values(pages).map((p) => p.readUnits));
  return [
    [
      `id-order page with only time filters: DynamoDB requests ≤ ${CHECKED_ID_PAGE_FLOORS.requests}`,
      `at most ${requests}`,
      requests <= CHECKED_ID_PAGE_FLOORS.requests,
    ],
    [
      `id-order page with only time filters: read units ≤ ${CHECKED_ID_PAGE_FLOORS.readUnits}`,
      `at most ${readUnits}`,
      readUnits <= CHECKED_ID_PAGE_FLOORS.readUnits,
    ],
  ];
}

/**
 * What `--quick` allows a bundle: today's largest (tickets/create, 173 KiB: a route that takes a
 * body carries busboy; 152 before the store's client took the SDK's retry strategy, issue 25; 168
 * before issues 22 and 24 added the mail settings' retry schedule and dead-letter queue, the
 * failed-mail key and a ticket write's `updated_by` (+555 bytes in every route), the reservation in
 * a ticket's queue (store/queue-reservations.ts, +1.8 KiB) and the listing dimensions' names; each
 * branch was within 172 alone, 173.0 KiB merged) and a small margin, so that a change that grows a
 * bundle fails CI. Issue 16's target is 300 KiB (the report's "every bundle" row); this budget comes
 * down as the bundles do. Raised to 212 KiB when OpenID Connect came in (issue 34): authentication,
 * which every route runs, imported jose's JWT verification. Since then jose is in a bundle only where
 * the environment's authentication classes name oidc (HELPDESK_OIDC_BUNDLED, infra/bundling.ts), and
 * loaded at the first bearer token: 28 to 31 KiB less in every route (2026-11-29: tickets/create
 * 212.9 → 184.0 KiB, tickets/list 205.8 → 178.6, tickets/get 169.8 → 139.2), so the budget came
 * down to 185 KiB. The bundles measured here are those of an environment without oidc; with it, each
 * route carries jose's ~30 KiB again. Raised to 186 KiB by what hostile-client probes asked for (2026-11-29): a JSON
 * body's lone surrogates refused, integer custom values bounded, one file a followup attachment, long text path
 * parameters 404 (tickets/create 188,964 → 189,718 bytes, 278 past 185 KiB). Raised to 187 KiB by group commit
 * (store/coalesce.ts, 2026-11-30: tickets/create 189,718 → 191,091 bytes, 627 past 186 KiB; tickets/list kept its
 * size, the shared writes it never calls being marked pure). Raised to 189 KiB by signPost (aws/sigv4.ts,
 * 2026-11-30): a route that writes to S3 carries it beside the SDK's signer, which S3 keeps (tickets/create 187 →
 * 189 KiB), while every route that does not drops the SDK's (tickets/get 142 → 129 KiB). Lowered to 175 KiB once S3's
 * PUT, GET and DELETE were signed by the same code (signRequest, 2026-12-01): only a route that presigns a link still
 * bundles the SDK's signer (tickets/create 189 → 174 KiB, followups/create 184 → 170). Raised to 176 KiB by parked
 * answers (shared/middleware/large-answers.ts, 2026-12-01): a route that answers a page, or a ticket read or changed,
 * measures its answer and may park it in S3 behind a presigned link (tickets/replace 176,185 → 179,378 bytes, 178 past
 * 175 KiB; tickets/list 174,358 → 177,554), while presigning moved to hand-written code (presignS3Get), so no bundle
 * carries the SDK's signer any more (attachments/download 142,676 → 128,175) and the routes that cannot park carry
 * only the check that they do not (users/me 125,257 → 125,452).
 */
export const BUNDLE_BUDGET_BYTES = 176 * 1024;

/** Issue 16's targets for every function: minified ESM bundle and median cold import. */
export const BUNDLE_TARGET_BYTES = 300 * 1024;
export const IMPORT_TARGET_MS = 40;

/**
 * What `--quick` allows a function's bundle: a route's, BUNDLE_BUDGET_BYTES; a worker's (stream and
 * queue consumers, the mail sender, the ingest, schedules: no request waits on their cold start),
 * the target itself. Today's largest worker: mail/send, 254 KiB (nodemailer's composer, 81 KiB of it
 * its MIME type table).
 */
export const bundleBudget = (bundle: { route: boolean; handler: string }) =>
  bundle.route
    ? (ROUTE_EXCEPTIONS[bundle.handler] ?? BUNDLE_BUDGET_BYTES)
    : (WORKER_EXCEPTIONS[bundle.handler] ?? BUNDLE_TARGET_BYTES);

/**
 * Workers held to a budget of their own, above the target, and why. mail-in/poll (IMAP mail in,
 * issue 23): 1,305 KiB, of which imapflow's charset and MIME code is most (iconv-lite 481 KiB, libmime
 * 174, imapflow 171, encoding-japanese 87; `npx tsx bench/bundles.ts --why mail-in/poll`): no
 * well-kept IMAP client comes without them, and the function runs once a minute on a schedule with
 * one execution reserved, so its cold start delays no request. It misses issue 16's 300 KiB target,
 * which the report's "every bundle" row says; this budget keeps it from growing unseen.
 */
export const WORKER_EXCEPTIONS: Record<string, number> = { 'mail-in/poll': 1340 * 1024 };

/**
 * Routes held to a budget of their own, and why. api/fallback carries the whole route table (its 404s
 * and 405s answer from it), 216 KiB once this stop's routes came in (time spent, mail problems); owed:
 * only the paths and methods compiled in, as the other routes have their RouteFacts. (The ticket lists,
 * 477 and 458 KiB, and stream/consume, 430, carried the RDS Data API's SDK client; through
 * shared/aws/rds-data.ts they are 202, 186 and 157 KiB: issue 35.) Down by jose's ~30 KiB (without oidc,
 * above; 2026-11-29): api/fallback 223.1 → 192.4 KiB (the release route's record among them). Up by the hostile
 * probes' checks (as BUNDLE_BUDGET_BYTES; 2026-11-29): 199,669 bytes, 1,013 past 194 KiB.
 */
export const ROUTE_EXCEPTIONS: Record<string, number> = {
  'api/fallback': 196 * 1024,
};

/**
 * What the bundles hold and what was decided about it (issue 16), measured with esbuild's metafile
 * and fresh-process imports (bench/bundles.ts). Prose with the figures of the day it was decided:
 * bundle sizes are deterministic, import times were taken on the loaded benchmark machine.
 */
const BUNDLE_DECISIONS = `What a bundle holds (esbuild's metafile, 2026-11-27). Every function shares a base of about
105 KiB (tickets/get: 109): Powertools Logger and Metrics 32; our store 15, domain 13 and middleware
11; zod 11; the SigV4 signer 9 with 4.5 of @smithy/core; util-dynamodb's marshalling 5; middy 2.5.
A route that takes a body adds busboy (23 KiB with streamsearch) and its field rules and route
records: ticket create is the largest, at 152 KiB.

Decided, by measured size and import:

- **DynamoDB through its JSON protocol** (shared/aws/dynamodb.ts): the document client's commands,
  inputs and outputs, sent as signed POSTs over node:http, with the SDK's retry rules and error
  shapes, instead of the SDK's client. That client was 175 KiB of every bundle (@smithy/core 93,
  client-dynamodb 30 with its schemas and error classes, @aws-sdk/core 22, the HTTP handler 7,
  lib-dynamodb 6, endpoint and credential resolution) and most of a request's CPU outside our code
  (schema-driven serialisation, a middleware stack of some 20 steps). Measured the same day on a quiet
  machine: tickets/create 309 → 152 KiB, tickets/get 268 → 109 KiB; the slowest median import
  38 → 25 ms; CPU per request (300 requests of warm-up, as the benchmark then measured), GET
  1.08 → 0.79 ms, list page 2.25 → 1.57 ms. Its tests:
  tests/unit/dynamodb-client.test.ts, and every integration test against DynamoDB Local. The
  credential chain, the endpoint-discovery cache and the event-stream codec that bundles used to
  replace or leave out went with it.
- **X-Ray**: the Powertools Tracer with the X-Ray SDK adds 125 KiB (tickets/get 109 → 233 KiB) and
  roughly doubled a cold import when measured (median 90 → 159 ms, 2026-11-25, loaded machine). No
  function bundles it (\`tracedHandlers\` is empty in every environment, infra/environments.ts):
  Lambda's active tracing (\`Tracing.ACTIVE\`, checked in tests/infra) traces every invocation
  without it. What is given up is the per-call subsegments inside a function; naming a function in
  \`tracedHandlers\` brings them back for it (the Tracer follows node:http, which DynamoDB's calls
  use, and fetch; tests/unit/bundling.test.ts keeps that bundle loading).
- **The OpenAPI document**: its template is built at bundling time and compiled into the openapi
  function brotli-compressed (shared/api/openapi-template.ts), decompressed once at module load,
  instead of the route table, the zod shapes and their JSON Schema generator (356 → 274 KiB when the
  SDK was still in every bundle).
- **The SDK's retry strategy and error classification** in the store's client (issue 25: its retry
  budget, delays and DNS failures, held to the SDK's client by tests/unit/aws-retries.test.ts): +7 KiB
  in every bundle (tickets/create 152 → 160 KiB, tickets/get 109 → 116), of which 4 are @smithy/core's
  retry files, taken from the files that define them (infra/bundled/): through the package's index
  they brought the SDK's retry middleware and its date and UUID helpers, 7 KiB more, unused.
- **SQS and Secrets Manager** through their JSON protocols (shared/aws/aws-json.ts) instead of their
  SDK clients, and every AWS call signed by one SigV4 signer (shared/aws/sigv4.ts) instead of
  aws4fetch (the same signatures, tests/unit/s3-signing.test.ts).
- **The JSON protocols' POSTs signed by \`signPost\`** (shared/aws/sigv4.ts; DynamoDB, SQS, Secrets
  Manager, SES), written for their one shape and held to the SDK's signer by tests/unit/sigv4.test.ts
  (the same headers for the same request, time and credentials); S3 then kept the SDK's. The SDK's
  took 28 to 40 µs of CPU a signature, this one 10 (2026-11-30, a DynamoDB Query's headers, 20,000
  each, alternating): it clones the request, awaits each hash, and hashes the credentials for its key
  cache at every call. Every AWS call of every function pays it: a GET 1, a create 4.
- **S3's PUT, GET and DELETE signed by the same code** (\`signRequest\`, shared/aws/sigv4.ts; held to
  aws4fetch by tests/unit/s3-signing.test.ts): only a function that presigns a link (downloads, mail
  with links) still bundles the SDK's signer. tickets/create 189 → 174 KiB, followups/create 184 →
  170, attachments/create 177 → 162 (2026-12-01).
- **A request's JSON without a replacer**: binary attribute values are made base64 where they are
  marshalled (shared/aws/dynamodb.ts), not by a replacer function, which puts \`JSON.stringify\` on
  its slow path: a GET's Query 11 → 4 µs (2026-11-30).
- **node:http and node:https** taken with \`process.getBuiltinModule\` (infra/builtins/): an ESM import of
  node:http builds its facade, which reads http's lazy WebSocket exports and so loads undici, http2
  and zlib. tickets/get median import 120 → 92 ms on the loaded machine (2026-11-25).
- **The decoy hash** (verified against for an unknown username) is random salt and key in the stored
  format, not a scrypt hash made at module load (~100 ms of CPU beside every cold start; on Lambda's
  fraction of a vCPU it delayed the first request).
- **busboy stays**, eagerly loaded: the product names it, and loading it lazily measured no gain
  (tickets/update median import 68.2 ms eager, 69.1 ms lazy, 2026-11-25).
- **The mail sender takes SES's transport alone** (functions/mail/send.ts): through \`transportFor\` it
  also bundled the local runtime's SMTP transport, whose \`import('nodemailer')\` esbuild follows: all
  of nodemailer (its SMTP client and pool, DKIM, OAuth2, well-known services). mail/send 359 → 254 KiB
  (2026-11-27); what is left of nodemailer is its composer (mime-node, addressparser, 81 KiB of
  mime-funcs, most of it the MIME type table). The workers (stream and queue consumers, the sender,
  the ingest, schedules) are measured and held to the 300 KiB target by \`--quick\` since then;
  \`npx tsx bench/bundles.ts --why <handler>\` prints a bundle's parts by package.`;

/** CPU per request targets (issue 16), milliseconds in the server's Node process, after warm-up. */
export const CPU_TARGETS: Record<string, number> = { 'GET one ticket': 0.6, 'list page of 25': 1.5 };

/** How memory was chosen: duration and cost at each size (SIZING), and the size the stacks set. */
function renderSizing(r: BenchResults): string {
  if (!r.cpu.length) return 'not sized in this run (no CPU measured).';
  const { rows, chosen } = sizeMemory(r);
  const names = Object.keys(rows[0]!.durations);
  const head =
    `| Memory | vCPU | ${names.map((n) => `${n}: ms / $ per million`).join(' | ')} | first request of a ` +
    `credential (scrypt) ms ` +
    `|\n|---|---|${names.map(() => '---').join('|')}|---|`;
  const body = rows
    .map((row) => {
      const vcpu = Math.min(1, row.memory / SIZING.mbPerVcpu).toFixed(2);
      const perName = names.map((n) => `${row.durations[n]!.toFixed(1)} / $${row.costs[n]!.toFixed(3)}`);
      return `| ${row.memory} MB | ${vcpu} | ${perName.join(' | ')} | ${Math.round(row.hashMs)} |`;
    })
    .join('\n');
  const set = environments.prod.memorySize;
  const waits = `DynamoDB (~${SIZING.dynamoWaitMs} ms a request) and S3 (~${SIZING.s3WaitMs} ms a PUT)`;
  const setVerdict = set === chosen ? ', the size chosen' : `: **not the size chosen** (${chosen} MB); change it there`;
  return (
    `sized as Lambda Power Tuning does, from the CPU per request measured above
(\`sizeMemory\` in bench/report.ts): at m MB a function gets m / ${SIZING.mbPerVcpu} of a vCPU, so a request takes its
CPU time over that share, plus its waits on ${waits}, which
memory does not change (AWS's typical in-region latencies: not measurable here). Lambda's price per
million of each (billed duration × memory, plus the request):

${head}
${body}

Chosen: the smallest size at which the first request of a credential, which hashes its password
(${r.operations['user create']?.cpuMs} ms of CPU here), waits at most ${SIZING.hashBudgetMs} ms, and no operation ` +
    `takes more than ${SIZING.slowdown} times
its duration at 1,024 MB: **${chosen} MB**. The stacks set ${set} MB for every API function
(\`infra/environments.ts\`)${setVerdict}. Below it, requests
would cost a little less and take several times longer, and a user's first request on a fresh
function would wait over a second for its hash.`
  );
}

/** The CPU section: per operation, and per layer from the profile (bench/cpu.ts, bench/cpu-layers.ts). */
function renderCpu(cpu: BenchResults['cpu'], floor: BenchResults['cpuFloor']): string {
  if (!cpu.length) return 'Not measured in this run.';
  const layers = [...new Set(cpu.flatMap((c) => Object.keys(c.layers)))].sort(
    (a, b) => (cpu[0]!.layers[b] ?? 0) - (cpu[0]!.layers[a] ?? 0),
  );
  const head = `| Layer | ${cpu.map((c) => c.operation).join(' | ')} |\n|---|${cpu.map(() => '---').join('|')}|`;
  const rows = layers
    .map((layer) => `| ${layer} | ${cpu.map((c) => (c.layers[layer] ?? 0).toFixed(3)).join(' | ')} |`)
    .join('\n');
  const total = `| **all (ms CPU per request)** | ${cpu.map((c) => `**${c.cpuMs.toFixed(3)}**`).join(' | ')} |`;
  const load = `| machine's load average (1 min) | ${cpu.map((c) => c.load.toFixed(1)).join(' | ')} |`;
  const rounds = cpu.map((c) => c.warmup.map((ms) => ms.toFixed(3)).join(' → '));
  const warmup = `| warm-up rounds before (ms per request, in order) | ${rounds.join(' | ')} |`;
  return (
    `User and system time of a process that serves the API and nothing else (\`bench/cpu-server.ts\`:
the local runtime in memory, on the functions' Node options (\`infra/node-options.ts\`), logging a Powertools
record and EMF metrics per request as on AWS; the
table's stream, on AWS another function's work, not read meanwhile; the runtime's emulation of IAM's
grants and DynamoDB's conflict rule off, being IAM's and DynamoDB's work on AWS), divided by
${cpu[0]!.requests} warm requests of each operation sent with 4 in flight from the benchmark's own process.
Warm means settled: V8 optimises a function's hot paths only after many calls, so the first
thousands of requests cost more. Before it is measured, each operation runs at least 8 rounds of
${cpu[0]!.requests} requests (a long warm-up, so that the figure does not hang on the rule that ends
it: with 4, one noisy round could end it early), each measured, and more until a round is no more
than 5% cheaper than the one before (the last row). A second pass of the same
requests under V8's sampling profiler splits that time by layer: each sample counts for the innermost
frame of a known layer on its stack (\`bench/cpu-layers.ts\`; Node's and builtins' frames count for
their caller). Milliseconds per request:

${head}
${rows}
${total}
${load}
${warmup}

CPU time grows on a busy machine (shared caches, two cores): read a figure with its load average, and
compare runs at like loads. On AWS the first two layers change: the local ` +
    `adapter (the HTTP server that makes API ` +
    `Gateway events)
is Lambda's runtime instead, and Node's socket work is TLS to DynamoDB instead of plain HTTP to
DynamoDB Local. \`BENCH_CPU_PROFILES=<folder> npx tsx bench/cpu.ts\` keeps each profile for a closer look
(Chrome DevTools, speedscope).${renderCpuFloor(cpu, floor)}

${HOST_SPEED}`
  );
}

/**
 * How far this machine's speed moves the CPU figures: one commit measured again, side by side with a later one
 * (a \`git worktree\` of it, the later warm-up rule), days after its own run.
 */
const HOST_SPEED = `The machine's own speed moves these figures by a factor of two or more from one day to another. \
The code of
2026-11-27 (912baf0), whose run that day measured 0.547 ms for a GET and 1.181 ms for a list page, measured
1.164 and 1.274 ms for a GET and 4.959 and 5.502 ms for a list page on 2026-11-30 (at least 8 warm-up rounds),
alternating with that day's code: 1.270 and 1.279 ms, and 3.383 and 3.328 ms. Within one hour, too: on
2026-11-30, a GET whose code did not change measured 0.734 ms at 18:30, 1.010 to 1.208 ms in five runs at
18:38-18:41 (the floor 0.406 ms), and 0.696 ms at 19:18 (\`npx tsx bench/cpu.ts --only=GET\`). Compare runs made
side by side, not runs of different days or hours.`;

/** The floor's paragraph: the same measure of a bare Node server, against the GET's and the list page's figures. */
function renderCpuFloor(cpu: BenchResults['cpu'], floor: BenchResults['cpuFloor']): string {
  const named = (results: CpuResult[] | undefined, name: string | undefined) =>
    results?.find((c) => c.operation === name);
  const alone = named(floor, 'HTTP alone');
  const [get, list] = ['GET one ticket', 'list page of 25'].map((name) => named(cpu, name));
  const [getFloor, listFloor] = [get, list].map((c) => named(floor, FLOOR_OF[c?.operation ?? '']));
  if (!alone || !get || !getFloor) return '';
  const ms = (c: CpuResult) => c.cpuMs.toFixed(3);
  const above = (c: CpuResult, under: CpuResult) => (c.cpuMs - under.cpuMs).toFixed(3);
  const listed =
    list && listFloor
      ? `
The list page's floor, the server sending the DynamoDB calls the real route makes for each page (recorded from it
before measuring: \`bench/cpu-floor-server.ts\`), one after another, parsing their answers and answering the items
of the page's 25 tickets as JSON, took ${ms(listFloor)} ms (load ${listFloor.load.toFixed(1)}): of the list page's
${ms(list)} ms, ${above(list, listFloor)} ms are this API's own layers above it. The list's floor is larger than the
GET's mostly by the JSON of its answers: measured apart on 2026-12-01, page 2's Query answered 46 KB (104 items),
which \`JSON.parse\` alone took 370 µs to read, against 21 µs for the GET's 1.7 KB.`
      : '';
  return `

The floor under these figures on this machine, measured the same way (the same client, warm-up and
requests, in the same run): a bare Node HTTP server (\`bench/cpu-floor-server.ts\`: no routing, auth,
middleware, logging, signing or marshalling) took ${ms(alone)} ms a request to answer a fixed body
(load ${alone.load.toFixed(1)}), and ${ms(getFloor)} ms to send the GET's one Query to DynamoDB Local and answer
its items (load ${getFloor.load.toFixed(1)}). So of the GET's ${ms(get)} ms, about ${ms(getFloor)} ms is what any
server pays here for its two HTTP exchanges and DynamoDB's JSON, and ${above(get, getFloor)} ms
this API's own layers above them.${listed}`;
}

export function renderReport(r: BenchResults): string {
  const ops = Object.entries(r.operations);
  const opRows = ops
    .map(
      ([name, o]) =>
        `| ${[name, o.status, o.dynamodb, o.s3, o.readUnits, o.writeUnits, o.cpuMs].join(' | ')} ` +
        `| ${[o.c1.p50, o.c1.p95, o.c1.rps, o.c8.p50, o.c8.p95, o.c8.rps].join(' | ')} |`,
    )
    .join('\n');
  const commandRows = ops
    .map(
      ([name, o]) =>
        `| ${name} | ${
          Object.entries(o.commands)
            .map(([c, n]) => `${c} ×${n}`)
            .join(', ') || '–'
        } |`,
    )
    .join('\n');
  const bundleRows = r.bundles.map((b) => `| ${b.handler} | ${kib(b.bytes)} | ${b.importMs} |`).join('\n');
  const maxBundle = r.bundles.length ? Math.max(...r.bundles.map((b) => b.bytes)) : 0;
  const maxImport = r.bundles.length ? Math.max(...r.bundles.map((b) => b.importMs)) : 0;
  const o = r.operations;
  const mark = (ok: boolean) => (ok ? 'met' : '**not met**');
  const sizes = [r.scale.small, r.scale.large, r.scale.huge];
  const maxRequests = Math.max(...sizes.flatMap((size) => Object.values(size.pages).map((p) => p.requests)));
  const pageNames = [...new Set(sizes.flatMap((size) => Object.keys(size.pages)))];
  const pageRows = pageNames
    .map((name) => {
      const costs = sizes.map((size) => size.pages[name]);
      const cells = costs.map((p) => (p ? `${p.requests} / ${p.readUnits} / ${p.p50}` : '–'));
      return `| ${name} | ${cells.join(' | ')} |`;
    })
    .join('\n');
  const filteredNames = [...new Set([...Object.keys(r.scale.small.filtered), ...Object.keys(r.scale.large.filtered)])];
  const cell = (c: ListCosts[string] | undefined) => (c ? `${c.requests} / ${c.readUnits} / ${c.p50}` : '–');
  const filteredRows = filteredNames
    .map((name) => `| ${name} | ${cell(r.scale.small.filtered[name])} | ${cell(r.scale.large.filtered[name])} |`)
    .join('\n');
  const checkRows = Object.entries(r.scale.large.filterChecks)
    .map(
      ([name, c]) =>
        `| ${name} | ${c.expected.toLocaleString('en')} | ${c.listed.toLocaleString('en')} | ` +
        `${c.exact ? 'yes' : '**no**'} | ${c.pages} | ${c.requests.toLocaleString('en')} |`,
    )
    .join('\n');
  const checks = Object.values(r.scale.large.filterChecks);
  const targets: Target[] = [
    ...filteredFloors({ ...r.scale.small.filtered, ...r.scale.large.filtered }),
    [
      `filters: each lists exactly the matching tickets, in order, ` +
        `at ${r.scale.large.tickets.toLocaleString('en')} tickets`,
      `${checks.filter((c) => c.exact).length} of ${checks.length}`,
      checks.length > 0 && checks.every((c) => c.exact),
    ],
    ...requestFloors(
      o,
      `at most ${maxRequests} (at ${r.scale.huge.tickets.toLocaleString('en')} simulated tickets: ` +
        `${Math.max(...Object.values(r.scale.huge.pages).map((p) => p.requests))})`,
      maxRequests,
    ),
    [
      `list page: read units flat from ${r.scale.small.tickets} ` +
        `to ${r.scale.huge.tickets.toLocaleString('en')} tickets (same page, within 0.5)`,
      Object.entries(r.scale.small.pages)
        .map(([name, p]) => `${name} ${p.readUnits} → ${r.scale.huge.pages[name]?.readUnits}`)
        .join('; '),
      Object.entries(r.scale.small.pages).every(
        ([name, p]) => (r.scale.huge.pages[name]?.readUnits ?? 99) <= p.readUnits + 0.5,
      ),
    ],
    [
      `list page p50 at ${r.scale.large.tickets} ≤ 1.2 × at ${r.scale.small.tickets}`,
      `× ${r.scale.ratio}`,
      r.scale.ratio <= 1.2,
    ],
    ...Object.entries(CPU_TARGETS).map(([operation, ms]): Target => {
      const measured = r.cpu.find((c) => c.operation === operation)?.cpuMs;
      const floor = r.cpuFloor?.find((c) => c.operation === FLOOR_OF[operation])?.cpuMs;
      return [
        `CPU per request, ${operation} ≤ ${ms} ms`,
        measured === undefined
          ? 'not measured'
          : `${measured} ms${floor === undefined ? '' : ` (its floor on this machine: ${floor} ms)`}`,
        measured !== undefined && measured <= ms,
      ];
    }),
    [
      `every bundle ≤ ${BUNDLE_TARGET_BYTES / 1024} KiB`,
      `${kib(maxBundle)} ` +
        `(${r.bundles.filter((b) => b.bytes > BUNDLE_TARGET_BYTES).length} of ${r.bundles.length} above)`,
      maxBundle <= BUNDLE_TARGET_BYTES,
    ],
    [`every median import ≤ ${IMPORT_TARGET_MS} ms`, `${maxImport} ms`, maxImport <= IMPORT_TARGET_MS],
  ];
  const targetRows = targets.map(([what, value, ok]) => `| ${what} | ${value} | ${mark(ok)} |`).join('\n');
  return (
    `# Benchmarks

Measured by \`npm run bench\` (code in \`bench/\`) on ${r.date.slice(0, 10)}: ${r.machine.cpus} × ${r.machine.cpu},
${r.machine.memoryGiB} GiB, Node ${r.machine.node}. The local runtime runs in memory on DynamoDB Local and s3rver
on loopback, seeded with ${r.tickets} tickets (each with an opening followup and a reply; every fifth reply
has an attachment). Latencies include the local engines, which are slower than DynamoDB and S3 per
request but add no network: read them as relative figures. The request counts and capacity units
are what the same handlers send on AWS. The whole run took ${r.seconds} s.

## Targets

| Target | Measured | |
|---|---|---|
${targetRows}

## Per operation

Requests and capacity units (read and write request units, as on-demand ` +
    `billing counts them) of one warm request ` +
    `(credentials and custom ` +
    `field definitions cached,
as in a warm Lambda; the least of three in a row, so that a cache running out between them, as the 5-second one of
the caller's user record does, does not decide a floor), counted on the wire: an interceptor on the store's DynamoDB
client and a wrapper of \`fetch\` for S3. CPU is the benchmark process's user+system time while that one request ran
(the server's, the client's and the stream reader's if it ran meanwhile: the least of the three; per request without the
client or the reader: [CPU per request](#cpu-per-request)). Latency in
milliseconds over ${r.iterations} sequential requests (1 in flight) and ${r.iterations * 2} requests with 8 in flight.

| Operation | Status | DynamoDB requests | S3 requests | Read units | Write ` +
    `units | CPU ms | p50 @1 | p95 @1 | ` +
    `req/s @1 | p50 @8 | p95 ` +
    `@8 | req/s @8 |
|---|---|---|---|---|---|---|---|---|---|---|---|---|
${opRows}

Which DynamoDB calls those are:

| Operation | Calls |
|---|---|
${commandRows}

Floors the design sets (issues 5 and 12) and where they stand: get = 1 DynamoDB request with cached
credentials; a list page ≤ 3 whatever the page and table size; create ≤ 3 plus 1 S3 PUT per file
(a create with files adds one PutItem, the cleanup record that must exist before any upload so that
no crash can leave a file without its record: docs/security.md, issue 6); ` +
    `PATCH ≤ 2; a denied request 0 after the ` +
    `first. The first request ` +
    `of a credential costs ` +
    `one GetItem
and one scrypt hash (the CPU of \`user create\` above is almost all its one hash:
${r.operations['user create']?.cpuMs} ms of one core here); later ones within 60 s cost a SHA-256 and a map
lookup (the \`denied (403)\` row: well under a millisecond of CPU).

Write units, where they come from (docs/data-model.md, "Write units"). Measured directly on
DynamoDB Local: a plain write of a small item bills 1 unit plus 1 per index entry, and the same write
in a transaction bills twice that. A ticket item has three index entries (gsi1, gsi2, gsi3), a ref
one. A JSON create is one conditional \`PutItem\` of the ticket item, which holds its opening
followup (1 + 3), then the followup's ref (1 + 1), the id counter's \`ADD\` (1) and the reservation in
its queue (1, an \`ADD\` on the queue item: docs/data-model.md, "Deleting a queue"): 8. A DELETE of a
ticket as the API stores it removes the same two items, 6. A PATCH of the ticket's fields is one
plain conditional \`UpdateItem\`, (1 + 3) = 4; one that moves the ticket to another queue adds the
reservation there (1). Before, a create wrote the ticket, the opening followup
as its own item and the ref in one transaction, 2 · (4 + 3 + 2) + 1 = 19, and a DELETE removed them
in one, 18. A create reads nothing before it writes when its queue and assignee are known to the
function (kept 60 s, as the custom field definitions are).

Server memory (RSS of the Node process serving all functions, engines excluded): ${r.serverRssMb} MB.

## CPU per request

${renderCpu(r.cpu, r.cpuFloor)}

## Scale

List page (25 tickets with followups and attachments), p50 over ${r.iterations} requests, in one run:

| Tickets | p50 ms |
|---|---|
| ${r.scale.small.tickets} | ${r.scale.small.listPageP50} |
| ${r.scale.large.tickets} | ${r.scale.large.listPageP50} |

Ratio ${r.scale.ratio}.

Each list page measured at each size: DynamoDB requests / read units / p50 ms. The last size is
simulated (\`simulateTickets\` in bench/seed.ts): the counts partition holds what the stream consumer
would hold for that many tickets, and real tickets exist where these pages read (the first ones and
the last ones), so every page reads exactly what it would in a table of that size. A cursor page
appears once the list is deeper than page numbers reach (10,000 tickets from each end).

| Page | ${sizes.map((size) => `${size.tickets.toLocaleString('en')} tickets`).join(' | ')} |
|---|${sizes.map(() => '---').join('|')}|
${pageRows}

A page costs one Query of the counts partition from its nearer end (the totals, and for a numbered
page past the first the blocks up to it) and one Query of gsi1 (or of gsi2 per status asked for)
from at most 24 tickets before the page; a cursor page reads no block. Nothing of it grows with the
table (docs/data-model.md, "List pages at any size").

### Filtered lists

The filtered and reordered list pages (25 tickets; \`… next\`: the page after it, by its cursor),
DynamoDB requests / read units / p50 ms at each size. A filtered page is one Query of the filter's
index partition for the page's ids (the listings table's indexes; gsi3 for \`submitter_email\`), one Query
per ticket of its collection, and the totals item where the list keeps a count; \`-id\` reads as the
upstream list does (docs/data-model.md, "Filtered lists"). A page with fewer matches reads fewer
collections.

| Page | ${r.scale.small.tickets.toLocaleString('en')} tickets | ${r.scale.large.tickets.toLocaleString('en')} tickets |
|---|---|---|
${filteredRows}

Each filter's whole list at ${r.scale.large.tickets.toLocaleString('en')} tickets, followed page by page (100 a ` +
    `page), against the
tickets the table holds (read whole for the check only), compared in order:

| Filter | Matching | Listed | Exactly, in order | Pages | DynamoDB requests |
|---|---|---|---|---|---|
${checkRows}

## Cold start: bundles

Each function bundled as the CDK stack bundles it (\`infra/bundling.ts\`: esbuild, ESM, minified,
everything bundled, the SDK's credential chain reduced to the environment provider), and the median
time a fresh Node process takes to import it (10 runs). Largest bundle ${kib(maxBundle)}; slowest median
import ${maxImport} ms.

| Function | Bundle | Import ms (median) |
|---|---|---|
${bundleRows}

${BUNDLE_DECISIONS}

## Lambda settings

Every function runs on arm64 (Graviton: about 20% cheaper per GB-second than x86 at equal or
better speed for this kind of I/O-bound work). Memory: ${renderSizing(r)}
512 MB also leaves ample room for the largest body (4 MiB, held twice while parsing) and for scrypt's
32 MiB, in a process measured above at ${r.serverRssMb} MB serving every function at once.
`
  );
}

/**
 * Prices (USD, us-east-1, on-demand, as published in 2026): the cost model multiplies the counts
 * measured above by these. Change them here when AWS changes them.
 */
export const PRICES = {
  apiGatewayPerMillion: 1.0, // HTTP API, first 300 million a month
  lambdaPerMillionRequests: 0.2,
  lambdaArmPerGbSecond: 0.0000133334,
  dynamoPerMillionReadUnits: 0.125,
  dynamoPerMillionWriteUnits: 0.625,
  s3PutPerThousand: 0.005,
  s3GetPerThousand: 0.0004,
  s3StoragePerGbMonth: 0.023,
  dynamoStoragePerGbMonth: 0.25,
  // The optional edge (infra/edge.ts).
  wafWebAclPerMonth: 5.0,
  wafRulePerMonth: 1.0, // each rule, a managed rule group counting as one
  wafPerMillionRequests: 0.6,
  cloudFrontPerMillionHttpsRequests: 1.0, // price class 100 (North America, Europe)
  cloudFrontPerGbOut: 0.085, // first 10 TB a month
};

/** The edge's rules: the rate rule and three managed rule groups (infra/edge.ts). */
const EDGE_RULES = 4;

export const LAMBDA_MEMORY_GB = 0.5;

/**
 * Lambda memory sizing, as Lambda Power Tuning does it, from the CPU measured per request: at m MB a
 * function gets m / 1769 of a vCPU (AWS: 1,769 MB is one full vCPU), so a request takes its CPU time
 * divided by that share, plus the time it waits on DynamoDB and S3, which memory does not change.
 * The waits are AWS's typical in-region latencies (not measurable here): a DynamoDB request ~4 ms, an
 * S3 PUT ~20 ms. CPU time on a Graviton vCPU is taken as equal to this machine's.
 */
export const SIZING = {
  memories: [128, 256, 512, 1024],
  mbPerVcpu: 1769,
  dynamoWaitMs: 4,
  s3WaitMs: 20,
  /** The first request of a credential hashes its password (scrypt): its wait should stay under this. */
  hashBudgetMs: 400,
  /** An operation may take at most this many times its duration at 1,024 MB. */
  slowdown: 1.5,
};

export interface Sizing {
  rows: { memory: number; durations: Record<string, number>; costs: Record<string, number>; hashMs: number }[];
  chosen: number;
}

/** The duration and Lambda cost per million of each CPU-measured operation at each memory size, and the size chosen. */
export function sizeMemory(r: BenchResults): Sizing {
  const hashCpu = r.operations['user create']?.cpuMs ?? 0;
  const measured = r.cpu.map((c) => {
    const o = r.operations[CPU_TO_OPERATION[c.operation] ?? ''];
    return {
      name: c.operation,
      cpuMs: c.cpuMs,
      waitMs: (o?.dynamodb ?? 0) * SIZING.dynamoWaitMs + (o?.s3 ?? 0) * SIZING.s3WaitMs,
    };
  });
  const rows = SIZING.memories.map((memory) => {
    const share = Math.min(1, memory / SIZING.mbPerVcpu);
    const durations = Object.fromEntries(measured.map((m) => [m.name, m.cpuMs / share + m.waitMs]));
    const costs = Object.fromEntries(
      measured.map((m) => [
        m.name,
        PRICES.lambdaPerMillionRequests +
          (Math.ceil(durations[m.name]!) / 1000) * (memory / 1024) * 1e6 * PRICES.lambdaArmPerGbSecond,
      ]),
    );
    return { memory, durations, costs, hashMs: hashCpu / share };
  });
  const fastest = rows.at(-1)!;
  const fits = rows.find(
    (row) =>
      row.hashMs <= SIZING.hashBudgetMs &&
      measured.every((m) => row.durations[m.name]! <= SIZING.slowdown * fastest.durations[m.name]!),
  );
  return { rows, chosen: (fits ?? fastest).memory };
}

/** Which per-operation row (DynamoDB and S3 requests) each CPU-measured operation is. */
const CPU_TO_OPERATION: Record<string, string> = {
  'GET one ticket': 'get',
  'list page of 25': 'list page',
  'create (JSON)': 'create (JSON)',
  PATCH: 'PATCH',
};

const usd = (n: number) => (n === 0 ? '$0' : n < 0.01 ? `$${n.toFixed(4)}` : `$${n.toFixed(2)}`);

/** The price of one million requests of an operation, from its measured counts. */
function perMillion(o: BenchResults['operations'][string]) {
  // Lambda bills the function's duration: the local p50 is an upper estimate (DynamoDB and S3 answer
  // faster than the local engines), and at least 1 ms is billed.
  const seconds = Math.max(o.c1.p50, 1) / 1000;
  const lambda = PRICES.lambdaPerMillionRequests + seconds * LAMBDA_MEMORY_GB * 1e6 * PRICES.lambdaArmPerGbSecond;
  const dynamo = o.readUnits * PRICES.dynamoPerMillionReadUnits + o.writeUnits * PRICES.dynamoPerMillionWriteUnits;
  const s3 = o.s3 * 1000 * PRICES.s3PutPerThousand; // the S3 requests counted are PUTs (uploads)
  return {
    api: PRICES.apiGatewayPerMillion,
    lambda,
    dynamo,
    s3,
    total: PRICES.apiGatewayPerMillion + lambda + dynamo + s3,
  };
}

/** A month of a helpdesk with 1,000 new tickets a day: what each ticket brings, on average. */
const PER_TICKET: [string, number][] = [
  ['create (JSON)', 0.8],
  ['create with attachment', 0.2],
  ['followup with 2 files', 0.5],
  ['PATCH', 2],
  ['PUT', 0.2],
  ['get', 10],
  ['list page', 5],
  ['list by status', 3],
];

export function renderCost(r: BenchResults): string {
  const rows = Object.entries(r.operations)
    .map(([name, o]) => {
      const c = perMillion(o);
      return `| ${name} | ${usd(c.api)} | ${usd(c.lambda)} | ${usd(c.dynamo)} | ${usd(c.s3)} | **${usd(c.total)}** |`;
    })
    .join('\n');
  const ticketsPerMonth = 1000 * 30;
  let monthly = 0;
  let monthlyRequests = 0;
  const lines = PER_TICKET.map(([name, perTicket]) => {
    const o = r.operations[name]!;
    const requests = ticketsPerMonth * perTicket;
    const cost = (perMillion(o).total * requests) / 1e6;
    monthly += cost;
    monthlyRequests += requests;
    return `| ${name} | ${perTicket} | ${requests.toLocaleString('en')} | ${usd(cost)} |`;
  }).join('\n');
  // The stream consumer's writes per change (counts, listing items, page snapshots, change events): DynamoDB only
  // (its Lambda runs once per batch of up to 100 records: a share of a cent per million changes).
  const consumerDollars = (c: { readUnits: number; writeUnits: number }) =>
    c.readUnits * PRICES.dynamoPerMillionReadUnits + c.writeUnits * PRICES.dynamoPerMillionWriteUnits;
  const consumerRows = Object.entries(r.consumer)
    .map(([name, c]) => {
      const request = perMillion(r.operations[name]!).total;
      const together = `**${usd(request + consumerDollars(c))}**`;
      const cells = [name, c.requests, c.readUnits, c.writeUnits, usd(consumerDollars(c)), usd(request), together];
      return `| ${cells.join(' | ')} |`;
    })
    .join('\n');
  const consumerMonthly =
    (ticketsPerMonth * (consumerDollars(r.consumer['create (JSON)']) + 2.2 * consumerDollars(r.consumer.PATCH))) / 1e6;
  monthly += consumerMonthly;
  // Storage after a year: ~4 KB of items per ticket (ticket, followups, index share), 20% with a 200 KB file.
  const tableGb = (ticketsPerMonth * 12 * 4 * 1024) / 1024 ** 3;
  const filesGb = (ticketsPerMonth * 12 * 0.2 * 200 * 1024) / 1024 ** 3;
  const storage = tableGb * PRICES.dynamoStoragePerGbMonth + filesGb * PRICES.s3StoragePerGbMonth;
  const lambdaPrices =
    `$${PRICES.lambdaPerMillionRequests} per million requests ` + `and $${PRICES.lambdaArmPerGbSecond} per GB-second`;
  const dynamoPrices =
    `$${PRICES.dynamoPerMillionReadUnits} per million read ` +
    `and $${PRICES.dynamoPerMillionWriteUnits} per million write`;
  const edgeFixed = PRICES.wafWebAclPerMonth + EDGE_RULES * PRICES.wafRulePerMonth;
  const edgeMonthly = edgeFixed + (monthlyRequests / 1e6) * PRICES.wafPerMillionRequests;
  const monthlyMillions = (monthlyRequests / 1e6).toFixed(2);
  return (
    `# Cost model

Generated by \`npm run bench\` (bench/report.ts) on ${r.date.slice(0, 10)} from the counts it measured
(docs/benchmarks.md), at the on-demand prices of us-east-1: API Gateway HTTP API $${PRICES.apiGatewayPerMillion} per
million requests; Lambda arm64 ${lambdaPrices} at
${LAMBDA_MEMORY_GB * 1024} MB; DynamoDB ${dynamoPrices} request ` +
    `units;
S3 $${PRICES.s3PutPerThousand} per thousand PUTs. Lambda time is the local p50 latency, an upper estimate (the
local engines answer slower than DynamoDB and S3). Free tiers are ignored; log ingestion, data
transfer out and the 1% of requests that pay a password hash are not included.

## One million requests

| Operation | API Gateway | Lambda | DynamoDB | S3 | Total |
|---|---|---|---|---|---|
${rows}

## A helpdesk with 1,000 new tickets a day

Assumed per ticket over its life: the requests below (most tickets are read several times; one in
five is created with a file).

| Operation | Per ticket | Requests a month | Cost a month |
|---|---|---|---|
${lines}
| stream consumer (each create and PATCH/PUT above: its counts, listing ` +
    `items, page snapshots, change events) ` +
    `| | | ${usd(consumerMonthly)} |
| **Requests** | | | **${usd(monthly)}** |

Storage after a year (360,000 tickets: about ${tableGb.toFixed(1)} GB of items, ` +
    `${filesGb.toFixed(1)} GB of files): ${usd(storage)} a
month. So a helpdesk of this size costs about **${usd(monthly + storage)} a month** on AWS; point-in-time
recovery of the table adds about $0.20 per GB-month. Writes are the dearest requests: a transaction
bills two write units per KB of each item, and a request's transaction holds only the items of its
own record (docs/data-model.md). The ticket counts are kept off the request path by the CountTickets
function on the table's stream: per ticket write it adds one Lambda invocation share (batches of up
to 100 records) and under 1 write unit in bursts, about 12 for a lone write (its transaction rewrites
its counted state, the count block, the totals item and its agent views' three count items, each
under 1 KB whatever the number of queues and agents: bench/counts.ts); ` +
    `stream reads by Lambda are free. A list ` +
    `page's read units do
not grow with the table (docs/benchmarks.md, "Scale").

## What the stream consumer writes per change

Off the request path, the table's stream consumer (CountTickets on AWS) keeps, per change, the
counts, the listing item the filtered lists read (one per ticket since issue 33, in the listings
table, an index per dimension: queue, assignee, modified, created, every ticket by priority and by
due date, and the two agent views in id order, whose entries carry the ticket's sort values, then the
other view's value; a change rewrites the item, and DynamoDB writes only the index entries it moves or
whose carried values change: \`modified\` and the two agent views' at least), each ticket's
page snapshot (one put, after a Query of its collection; a create without a file puts it from its INSERT's image,
no Query: docs/data-model.md, "Decision: page snapshots") and the change events. Why the records are
worth their writes: every agent view in every ordering is then a page of 3–5 requests with an exact
count, an agent view in another order than id sorted from its id-order partition read whole (up to
2,000 tickets, about 42 read units; past that the whole table in that order, its filters checked:
docs/data-model.md, "Filtered lists"). Measured by the bench for ` +
    `one change alone (the ` +
    `stream drained
before and after it), so a lone write pays the whole counts transaction (the block, the totals
item and the agent view count items it leaves and enters); in a burst the tickets of a batch share
it (docs/data-model.md, "The stream consumer"). DynamoDB Local, which the bench runs on, reports
fewer units for a transaction than DynamoDB bills: 2 for the counts transaction of a lone create or
status change, which DynamoDB bills 12 (2 per KB of each of its 6 items, as bench/counts.ts computes
from their sizes), so the write units below are about 10 low per create, status, queue or
assignee change and DELETE. The request path's transactions (a create with a file, a followup with
files) go the other way: DynamoDB Local reports more than 2 per KB of their items (23 for a create
with a file, whose items' sizes bill 13; it seems to count their index writes too, which DynamoDB
bills apart at 1 per KB per index entry). Until a deployed stack's ConsumedWriteCapacityUnits settle
it, those rows are DynamoDB Local's figures.

| Change | Consumer requests | Read units | Write units | DynamoDB per ` +
    `million | The request itself, per million ` +
    `| Together |
|---|---|---|---|---|---|---|
${consumerRows}

**Before and after issue 33** (the consumer's write units per change, counted by the bench on DynamoDB
Local, one change alone; \`npm run bench -- --burst\` counts the same four): create 51 → 14, PATCH of
\`priority\` 32 → 11, PATCH of \`status\` 55 → 12, DELETE 49 → 13. What went: the twelve \`<view>@<order>\`
listing records (an agent view in another order is sorted from its id-order entries, which now carry
the sort values: 24 units a create, most of a PATCH of \`priority\` or \`status\`), the
\`status-queue-assigned\` records (either other view's records carry the value it lacks: 2 units a
create and delete, 3 a PATCH), the \`LIST#priority\`
records (the same tickets as \`all@priority\`'s range of each priority) and the second totals item
(\`~TOTALS\`: 2 billed units a counts transaction, which DynamoDB Local does not show); and, in the local
count only, a late mark per event (DynamoDB Local's stream named the minute of a write: every event was
late; infra/local/table-stream.ts now names the second); and the 8 listing records a ticket became one
listing item in a table of its own (each record paid for its item and its index entry: 21 → 14 a
create, 16 → 11 a PATCH of \`priority\`, 14 → 12 a status change, 20 → 13 a DELETE). Per record kind,
what is left and why it
stays: docs/data-model.md, "What each derived record serves". For the helpdesk above (1,000 new
tickets a day, 2.2 PATCHes each) the consumer's DynamoDB went from $2.30 a month to the table's
figure above.

<!-- search:start -->
<!-- search:end -->

## The optional edge

CloudFront with AWS WAF in front of the API (\`-c edgeDomainName=... -c edgeCertificateArn=...\`,
infra/edge.ts) costs, as published in 2026: the web ACL ${usd(PRICES.wafWebAclPerMonth)} a month and ` +
    `${usd(PRICES.wafRulePerMonth)} per rule (${EDGE_RULES} rules:
the rate rule and three managed groups, none of the paid ones), so ${usd(edgeFixed)} a month before any request; ` +
    `then
per million requests ${usd(PRICES.wafPerMillionRequests)} for WAF and ` +
    `${usd(PRICES.cloudFrontPerMillionHttpsRequests)} for CloudFront's HTTPS ` +
    `requests, and ${usd(PRICES.cloudFrontPerGbOut)} per GB of answers
out (CloudFront's always-free tier covers the first 10 million requests and 1 TB a month). For the
helpdesk above (${monthlyMillions} million requests a month) that is about **${usd(edgeMonthly)} a month**, more than
the API itself: worth it for an API exposed to the internet at large, less so for one only
integrations call. The API Gateway, Lambda and DynamoDB costs stay as they are (CloudFront to the API
is data transfer AWS does not charge).

## Sizing, and why

- **Lambda memory: ${environments.prod.memorySize} MB** for every API function, from the CPU measured per request
  (docs/benchmarks.md, "Lambda settings", where the sizes are compared).
- **Reserved concurrency of each table-writing function in prod: 25** (\`infra/environments.ts\`). Not
  set by write conflicts any more (no two requests' transactions share an item), but by the tightest
  downstream limit: every ticket write lands in the gsi1 partition \`TICKETS\` (about 1,000 write units
  a second, one entry per create, so ~1,000 creates a second sustained); at ~50 ms a write, 25
  executions serve ~500 writes a second of one operation, which DynamoDB's burst capacity absorbs
  for a burst while a runaway client is still stopped well before the table's maximum. Reserved
  concurrency costs nothing itself; 20 writers × 25 = 500 need an account limit of at least 600.
- **Table maximum throughput in prod: 40,000 read and 20,000 write units a second**, a cap on the
  bill that no client or bug can pass (beyond it DynamoDB throttles and the API answers 503).

## Importing from django-helpdesk (estimate)

An estimate from the items \`import-django\` writes, not a measurement on AWS (the local figure:
benchmarks.md, "Importing from django-helpdesk"). A ticket with 3 followups and a tenth of an
attachment is about 7.2 items (the ticket, 3 followups and their 3 refs, the attachment and its ref),
written new in transactions of up to 100 (2 write units an item: 14.4), plus their index entries
(gsi1 and gsi2 of the collection items, gsi3 of the ticket, gsi1 of the refs: about 12.5 units), plus
the stream consumer's counts, listing item and page snapshot of a created ticket (about 14 units,
"Per change" above) and its followups' snapshot refreshes: about **53 write units and 8 read units a
ticket**. The 20,000 tickets, 60,000 followups and 2,000 attachments of \`npm run bench -- --import\`:
about 1.1 million write units, **about $0.66** of DynamoDB, $0.01 of S3 PUTs, and a few cents of
the consumer's Lambda (one invocation per batch of up to 100 records). The rate is bounded by the
gsi1 partition \`TICKETS\`, which every collection item enters (about 1,000 entries a second, 4 a
ticket here): about 250 tickets a second, so **about 1.5 minutes** for the 20,000 from a machine in
the region (8 transactions in flight at ~50 ms each would allow more), and the consumer's listing
partitions (one entry a ticket in each whole-table ordering) follow at the same pace, so the derived
state is exact a minute or two after the import ends. From outside the region each round trip adds
its latency: at 80 ms, about 4 minutes.
`
  );
}

/** The Search section's markers (written by bench/search.ts, kept by the full run). */
export const SEARCH_START = '<!-- search:start -->';
export const SEARCH_END = '<!-- search:end -->';
export const MAIL_IN_START = '<!-- mail-in:start -->';
export const MAIL_IN_END = '<!-- mail-in:end -->';

export interface MailInResult {
  message: string;
  bytes: number;
  messages: number;
  cpuMs: number;
  ms: number;
}

/** The "Mail in" section (bench/mail-in.ts): the ingest's CPU and time per message. */
export function renderMailIn(results: MailInResult[], date: string): string {
  const rows = results
    .map((r) => `| ${r.message} | ${(r.bytes / 1024).toFixed(0)} KiB | ${r.messages} | ${r.cpuMs} | ${r.ms} |`)
    .join('\n');
  return `${MAIL_IN_START}
## Mail in

Measured by \`npx tsx bench/mail-in.ts\` on ${date.slice(0, 10)}: the mail ingest (shared/mail-in/ingest.ts) run
in-process on messages that each open a ticket, one after another, after as many to warm up; the
engines run in another process, so the CPU is the ingest's own (parse, rules, its DynamoDB and S3
calls' client side), as the AWS function would spend it. The hostile rows are messages a probe over
SMTP found slow, before the fixes of 2026-11-29: 20,000 blank lines took 11 s, a 100 KB line 2.5 s,
a header repeated 50,000 times 20 s, and one folded over 100,000 lines ran into the 20 s budget (the
header rows are at the header-line limit, 5,000, past which a message is refused). A 7bit or 8bit
body's lines are copied as they come since 2026-11-30, not kept as the parts of a Blob (postal-mime's
way, about 10 µs a line): measured alternating with the code before, the 200,000-line log took 4,328
and 4,402 ms of CPU before, 358 and 302 after, and the 20,000 blank lines 256 and 246 before, 20 and
22 after. A body's reply is read from the text's first 200,000 characters since 2026-11-30 (twice what a
stored text holds; shared/domain/mail-in.ts, REPLY_WINDOW), not from all of it, and at most 5 DKIM
signatures are checked, the From domain's first (shared/mail-in/verify.ts, MAX_DKIM_SIGNATURES). The
code before, in two runs of this benchmark that evening: the 10 MB log took 4,825 and 4,183 ms of CPU a
message, the 1,000 signatures 9,627. The window is read a line at a time and undecodable characters are counted in
place since then too. The parse alone (in-process, the RSS after it), before and after: the 20 MB that Shift JIS
cannot read 19.4 s and 3.5 GB (a match object per character), then 1.4 s and 249 MB; the 39 MB of short lines
31.4 s and 2.2 GB (the text split whole: past the 20 s budget), then 1.9 s and 276 MB; 39 MB of blank lines ran
the blank-run expression out of stack (RangeError, from 10 MB), then 2.3 s and 252 MB.

| Message | Size | Messages | CPU ms per message | ms per message |
|---|---|---|---|---|
${rows}
${MAIL_IN_END}`;
}

// --- DynamoDB Local's write-ahead log (bench/wal.ts: its own run, on fresh runtimes on disk) ---------------

export const WAL_START = '<!-- wal:start -->';
export const WAL_END = '<!-- wal:end -->';

// --- Mail out (bench/mail.ts: its own run, on a fresh runtime) ------------------------------------

export const MAIL_START = '<!-- mail:start -->';
export const MAIL_END = '<!-- mail:end -->';

export interface MailLatencyResult {
  creates: number;
  /** Mails captured: one per create (its submitter's). */
  captured: number;
  /** Milliseconds from a ticket's commit (its `created`) to its mail's .eml file written. */
  p50: number;
  p99: number;
  max: number;
  /** Milliseconds from the last create's answer until the last mail was captured. */
  drainedAfterMs: number;
  /** DynamoDB requests per mail, by function (mail/queue, mail/send) and operation. */
  requestsPerMail: Record<string, Record<string, number>>;
  /** The machine's 1-minute load average and cores when measured (the engines share them). */
  load: number;
  cores: number;
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/** Per function: its requests per mail, and by operation. */
function mailRequestRows(r: MailLatencyResult): string {
  return Object.entries(r.requestsPerMail)
    .map(([name, byOperation]) => {
      const operations = Object.entries(byOperation).sort(([a], [b]) => a.localeCompare(b));
      const total = Math.round(sum(operations.map(([, n]) => n)) * 100) / 100;
      return `| ${name} | ${total} | ${operations.map(([operation, n]) => `${operation} ${n}`).join(', ')} |`;
    })
    .join('\n');
}

export function renderMailSection(r: MailLatencyResult, date: string): string {
  return `${MAIL_START}
## Mail out: from commit to mailbox

Measured by \`npx tsx bench/mail.ts\` on ${date.slice(0, 10)}: ${r.creates} ticket creates sent at once to a
freshly started local runtime whose mail goes to its mailbox (one .eml file per message), each
ticket mailing its submitter once. The time is from the ticket's \`created\` to its mail's file
being written: the rest of the create's request, the table's stream read (every 50 ms), the mail
consumer's queued mail, then the sender's claim, render, compose and write. A create takes its
\`created\` as it begins, so these times hold the creates' own time in the burst; and while requests wait
for a function's slot the stream's poller holds off (docs/local.md, "Concurrency and timeouts"), so the
mail follows the burst. The last column, the last mail against the last create's answer, is what says
whether mail keeps up with the writes.

| Creates | Mails captured | p50 ms | p99 ms | max ms | last mail after the last answer, ms |
|---|---|---|---|---|---|
| ${r.creates} | ${r.captured} | ${r.p50} | ${r.p99} | ${r.max} | ${r.drainedAfterMs} |

Load average ${r.load} on ${r.cores} cores when measured. The mail's DynamoDB requests, counted in the same run
by the function that makes them, per mail:

| Function | Requests per mail | By operation |
|---|---|---|
${mailRequestRows(r)}

The consumer reads the ticket's CC list and puts the mail in the log (conditional); the sender claims it (one
conditional update that answers the mail), reads the ticket, the suppression list and the ticket's earlier mail,
records the Message-ID and the outcome. Both keep the queue they read for 60 s per process, as mail in keeps the
queues. Against a create's own requests (the request path's in the per-operation table, the stream consumer's
under "Bursts"), mail is most of a create's DynamoDB work on \`npm start\`, and the local engine serves it one
machine's worth at a time: on a loaded machine the burst's mails finish together, at the engine's pace.

The request path is unchanged by mail: a create writes what it wrote before (the mail log is the
stream consumer's write), and the runtime \`npm run bench\` measures has mail off (its data directory is
\`memory\`). On AWS the consumer runs on the stream's batches and the sender on SQS, so the figure
there adds Lambda's stream polling (about 4 a second) and SQS's receive; SES's own latency is not
in it.
${MAIL_END}`;
}

const MARKED_SECTION = /<!-- ([\w-]+):start -->[^]*?<!-- \1:end -->/g;

/**
 * `rendered` with each marked section (`<!-- name:start -->` … `<!-- name:end -->`) of `previous`
 * that it renders empty or not at all: in place where it has the empty markers, else appended in
 * the previous order. So a full run keeps what other modes (or hands) wrote.
 */
export function withKeptSections(rendered: string, previous: string): string {
  let report = rendered;
  for (const [section, name] of previous.matchAll(MARKED_SECTION)) {
    const start = `<!-- ${name}:start -->`;
    const end = `<!-- ${name}:end -->`;
    const from = report.indexOf(start);
    const to = report.indexOf(end);
    const empty = from >= 0 && to > from && report.slice(from + start.length, to).trim() === '';
    if (from < 0 || empty) report = withSection(report, start, end, section);
  }
  return report;
}

/** Replaces a marked section of the report, or appends it. */
export function withSection(report: string, start: string, end: string, section: string): string {
  const from = report.indexOf(start);
  const to = report.indexOf(end);
  if (from >= 0 && to > from) return report.slice(0, from) + section + report.slice(to + end.length);
  return `${report.trimEnd()}\n\n${section}\n`;
}
