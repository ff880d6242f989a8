/**
 * The floor under the CPU benchmark's figures (bench/cpu.ts): a Node HTTP server that does, for each
 * request, only what any server of that request must do on this machine, and nothing of this API's:
 * no routing, auth, middleware, logging, signing or marshalling.
 * - `/http/`: reads the request and answers a fixed JSON body of a ticket's size.
 * - `/api/tickets/<id>/`: besides, one POST to DynamoDB Local over a keep-alive socket, the Query the
 *   real GET sends for that ticket's items (headers signed once ahead: DynamoDB Local checks no
 *   signature), its JSON answer parsed, and the items answered as JSON.
 * - `/api/tickets/?page=<n>`: the DynamoDB calls the real list page makes for that page, one after
 *   another, each answer parsed (and any page snapshot in it), and the items of its 25 tickets answered
 *   as JSON. The calls are recorded once, before any measuring, by asking the real route for
 *   each page (so the floor follows the store's access pattern as it changes).
 *
 * In a process of its own on the same seeded runtime as bench/cpu-server.ts, driven over the same
 * IPC messages (no profile: the layers are the point of the real one).
 */
import http from 'node:http';
import type { CpuServerMessage, CpuServerReply } from './cpu-server';
import { BENCH_ADMIN_AUTH } from './admin';
import { seededCpuRuntime } from './cpu-runtime';

const { runtime, tickets } = await seededCpuRuntime();
const { config } = await import('../shared/config');
const { keys, IN_PARTITION } = await import('../shared/store/keys');
const { COLLECTION_PROJECTION } = await import('../shared/store/items');
const { awsSigner } = await import('../shared/aws/sigv4');
const { dynamo } = await import('../shared/aws/clients');
const { requestBody } = await import('../shared/aws/dynamodb');

interface Call {
  target: string;
  body: string;
}

const endpoint = new URL(process.env.AWS_ENDPOINT_URL_DYNAMODB!);
const queryOf = (ticket: number): Call => ({
  target: 'DynamoDB_20120810.Query',
  body: requestBody('Query', {
    TableName: config.tableName,
    KeyConditionExpression: IN_PARTITION,
    ExpressionAttributeValues: { ':pk': keys.ticketPartition(ticket) },
    ConsistentRead: true,
    ...COLLECTION_PROJECTION,
  }),
});

/** Each operation's headers, signed once ahead with some body of it (DynamoDB Local checks no signature). */
const signedHeaders = new Map<string, Record<string, string>>();
async function signOnce({ target, body }: Call): Promise<void> {
  if (signedHeaders.has(target)) return;
  const signed = await awsSigner('dynamodb', config.aws.region).sign({
    method: 'POST',
    protocol: endpoint.protocol,
    hostname: endpoint.hostname,
    port: Number(endpoint.port),
    path: '/',
    query: {},
    headers: { host: endpoint.host, 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': target },
    body,
  });
  signedHeaders.set(target, signed.headers);
}

/**
 * The list page's calls for each page the benchmark asks for (bench/cpu.ts), as the route makes them: a first
 * request fills the credential and custom-field caches, whose calls are no page's.
 */
async function recordListCalls(): Promise<Map<number, Call[]>> {
  const pages = Math.floor(tickets.length / 25);
  const ask = async (page: number) => {
    const reply = await fetch(`${runtime.url}/api/tickets/?page=${page}`, {
      headers: { authorization: BENCH_ADMIN_AUTH },
    });
    if (!reply.ok) throw new Error(`list page ${page}: ${reply.status} ${await reply.text()}`);
    await reply.arrayBuffer();
  };
  await ask(1);
  const recorded = new Map<number, Call[]>();
  let calls: Call[] = [];
  const stop = dynamo.intercept((call, next) => {
    calls.push({ target: `DynamoDB_20120810.${call.operation}`, body: requestBody(call.operation, call.input) });
    return next();
  });
  try {
    for (let page = 1; page <= pages; page++) {
      calls = [];
      await ask(page);
      recorded.set(page, calls);
    }
  } finally {
    stop();
  }
  return recorded;
}

const listCalls = await recordListCalls();
for (const call of [queryOf(tickets[0]!), ...[...listCalls.values()].flat()]) await signOnce(call);

const agent = new http.Agent({ keepAlive: true });
/** A ticket's answer as the API gives it, about: the fixed body of `/http/`. */
const FIXED = JSON.stringify({ id: 1, title: 'x'.repeat(1200) });

function answer(res: http.ServerResponse, body: string): void {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** One call to DynamoDB Local: its answer, parsed. */
function post({ target, body }: Call): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const call = http.request(
      {
        method: 'POST',
        hostname: endpoint.hostname,
        port: endpoint.port,
        path: '/',
        agent,
        headers: { ...signedHeaders.get(target), 'content-length': Buffer.byteLength(body) },
      },
      (reply) => {
        const chunks: Buffer[] = [];
        reply.on('data', (chunk: Buffer) => chunks.push(chunk));
        reply.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>));
      },
    );
    call.on('error', reject);
    call.end(body);
  });
}

/** An item as it came: attribute values on the wire, or plain values in a page snapshot's JSON. */
type Item = Record<string, unknown>;
const partitionOf = ({ PK }: Item) => (typeof PK === 'string' ? PK : (PK as { S?: string } | undefined)?.S);
const PAGE_SIZE = 25;

/**
 * A list page: its calls one after another, their answers parsed (and any page snapshot in them), and the items of
 * the page's 25 tickets answered (the wire's items as they came: a floor does no marshalling).
 */
async function listPage(res: http.ServerResponse, page: number): Promise<void> {
  const items: Item[] = [];
  for (const call of listCalls.get(page)!) {
    const { Items = [], Responses = {} } = (await post(call)) as { Items?: Item[]; Responses?: Record<string, Item[]> };
    items.push(...Items);
    for (const { items: snapshot } of Object.values(Responses).flat())
      items.push(...(JSON.parse((snapshot as { S: string }).S) as Item[]));
  }
  const shown = new Set<string>();
  const results: Item[] = [];
  for (const item of items) {
    const ticket = partitionOf(item);
    if (!ticket?.startsWith('TICKET#')) continue; // the counts
    if (!shown.has(ticket) && shown.size === PAGE_SIZE) break;
    shown.add(ticket);
    results.push(item);
  }
  answer(res, JSON.stringify({ count: tickets.length, next: null, previous: null, results }));
}

const server = http.createServer((req, res) => {
  req.resume();
  const url = req.url ?? '';
  const page = /^\/api\/tickets\/\?page=(\d+)$/.exec(url)?.[1];
  if (page) return void listPage(res, Number(page));
  const ticket = /^\/api\/tickets\/(\d+)\/$/.exec(url)?.[1];
  if (!ticket) return answer(res, FIXED);
  void post(queryOf(Number(ticket))).then(({ Items }) => answer(res, JSON.stringify(Items)));
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;

let started: NodeJS.CpuUsage | undefined;
async function handle(message: CpuServerMessage): Promise<CpuServerReply> {
  if (message.type === 'measure') {
    started = process.cpuUsage();
    return { type: 'measuring' };
  }
  if (message.type === 'report') {
    const used = process.cpuUsage(started);
    return { type: 'report', cpuMicros: used.user + used.system };
  }
  server.close();
  await runtime.stop();
  process.exit(0);
}

process.on('message', (message: CpuServerMessage) => void handle(message).then((reply) => process.send!(reply)));
process.send!({ type: 'ready', url, tickets } satisfies CpuServerReply);
