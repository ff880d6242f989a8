/** Renders the benchmark's results as docs/benchmarks.md. */
import type { BenchResults } from './run';

const kib = (bytes: number) => `${Math.round(bytes / 1024)} KiB`;

export function renderReport(r: BenchResults): string {
  const ops = Object.entries(r.operations);
  const opRows = ops
    .map(
      ([name, o]) =>
        `| ${name} | ${o.status} | ${o.dynamodb} | ${o.s3} | ${o.capacityUnits} | ${o.cpuMs} | ${o.c1.p50} | ${o.c1.p95} | ${o.c1.rps} | ${o.c8.p50} | ${o.c8.p95} | ${o.c8.rps} |`,
    )
    .join('\n');
  const commandRows = ops.map(([name, o]) => `| ${name} | ${Object.entries(o.commands).map(([c, n]) => `${c.replace(/Command$/, '')} ×${n}`).join(', ') || '–'} |`).join('\n');
  const bundleRows = r.bundles.map((b) => `| ${b.handler} | ${kib(b.bytes)} | ${b.importMs} |`).join('\n');
  const maxBundle = r.bundles.length ? Math.max(...r.bundles.map((b) => b.bytes)) : 0;
  const maxImport = r.bundles.length ? Math.max(...r.bundles.map((b) => b.importMs)) : 0;
  const o = r.operations;
  const mark = (ok: boolean) => (ok ? 'met' : '**not met**');
  const targets: [string, string, boolean][] = [
    ['get: DynamoDB requests (warm)', `${o['get']?.dynamodb}`, o['get']?.dynamodb === 1],
    ['list page: DynamoDB requests ≤ 2', `${o['list page']?.dynamodb} (at ${r.scale.large.tickets} tickets: ${r.scale.large.dynamodbRequests})`, (o['list page']?.dynamodb ?? 9) <= 2 && r.scale.large.dynamodbRequests <= 2],
    ['create: DynamoDB requests ≤ 3, 1 S3 PUT per file', `${o['create (JSON)']?.dynamodb}, ${o['create with attachment']?.dynamodb} + ${o['create with attachment']?.s3} S3`, (o['create (JSON)']?.dynamodb ?? 9) <= 3 && (o['create with attachment']?.dynamodb ?? 9) <= 3 && o['create with attachment']?.s3 === 1],
    ['PATCH: DynamoDB requests ≤ 2', `${o['PATCH']?.dynamodb}`, (o['PATCH']?.dynamodb ?? 9) <= 2],
    ['denied request: 0 requests after the first', `${o['denied (403)']?.dynamodb}`, o['denied (403)']?.dynamodb === 0],
    [`list page p50 at ${r.scale.large.tickets} ≤ 1.5 × at ${r.scale.small.tickets}`, `× ${r.scale.ratio}`, r.scale.ratio <= 1.5],
    ['every bundle ≤ 300 KB', kib(maxBundle), maxBundle <= 300 * 1000],
    ['every median import ≤ 80 ms', `${maxImport} ms`, maxImport <= 80],
  ];
  const targetRows = targets.map(([what, value, ok]) => `| ${what} | ${value} | ${mark(ok)} |`).join('\n');
  return `# Benchmarks

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

Requests and capacity units of one warm request (credentials and custom field definitions cached,
as in a warm Lambda), counted on the wire: an SDK middleware on the DynamoDB client and a wrapper
of \`fetch\` for S3. CPU is the server process's user+system time for that one request. Latency in
milliseconds over ${r.iterations} sequential requests (1 in flight) and ${r.iterations * 2} requests with 8 in flight.

| Operation | Status | DynamoDB requests | S3 requests | Capacity units | CPU ms | p50 @1 | p95 @1 | req/s @1 | p50 @8 | p95 @8 | req/s @8 |
|---|---|---|---|---|---|---|---|---|---|---|---|
${opRows}

Which DynamoDB calls those are:

| Operation | Calls |
|---|---|
${commandRows}

Floors the design sets (issue 5) and where they stand: get = 1 DynamoDB request with cached
credentials; a list page ≤ 2 whatever the page and table size; create ≤ 3 plus 1 S3 PUT per file;
PATCH ≤ 2; a denied request 0 after the first. The first request of a credential costs one GetItem
and one scrypt hash (the CPU of \`user create\` above is almost all its one hash:
${r.operations['user create']?.cpuMs} ms of one core here); later ones within 60 s cost a SHA-256 and a map
lookup (the \`denied (403)\` row: well under a millisecond of CPU).

Server memory (RSS of the Node process serving all functions, engines excluded): ${r.serverRssMb} MB.

## Scale

List page (25 tickets with followups and attachments), p50 over ${r.iterations} requests, in one run:

| Tickets | p50 ms |
|---|---|
| ${r.scale.small.tickets} | ${r.scale.small.listPageP50} |
| ${r.scale.large.tickets} | ${r.scale.large.listPageP50} |

Ratio ${r.scale.ratio}. A list page at ${r.scale.large.tickets} tickets still costs ${r.scale.large.dynamodbRequests} DynamoDB requests:
one Query of the ticket index (about 1 KB per 100 tickets) and one of gsi1 for the page; \`?status=\`
reads the same index and gsi2, never scanning the table (docs/data-model.md).

## Cold start: bundles

Each function bundled as the CDK stack bundles it (\`infra/bundling.ts\`: esbuild, ESM, minified,
everything bundled, the SDK's credential chain reduced to the environment provider), and the median
time a fresh Node process takes to import it (10 runs). Largest bundle ${kib(maxBundle)}; slowest median
import ${maxImport} ms.

| Function | Bundle | Import ms (median) |
|---|---|---|
${bundleRows}

## Lambda settings

Every function runs on arm64 (Graviton: about 20% cheaper per GB-second than x86 at equal or
better speed for this kind of I/O-bound work). Memory is 512 MB by default
(\`infra/environments.ts\`), chosen from the figures above: per request the functions spend a few
milliseconds of CPU and the rest waiting on DynamoDB and S3, so more memory (and with it more CPU)
would shorten requests by at most those few milliseconds while its price rises linearly. The
exception is the first request of a credential, which hashes a password (${r.operations['user create']?.cpuMs} ms of one
core here, about 3.5 times that at 512 MB, which gives 0.29 vCPU); it happens once per user per
minute per warm function. 512 MB also leaves ample room for the largest body (4 MiB, held twice while parsing) in
a process measured above at ${r.serverRssMb} MB serving every function at once.
`;
}
