/**
 * The floor under the CPU benchmark's figures (bench/cpu.ts): a Node HTTP server that does, for each
 * request, only what any server of a ticket GET must do on this machine, and nothing of this API's:
 * no routing, auth, middleware, logging, signing or marshalling.
 * - `/http/`: reads the request and answers a fixed JSON body of a ticket's size.
 * - `/api/tickets/<id>/`: besides, one POST to DynamoDB Local over a keep-alive socket, the Query the
 *   real GET sends for that ticket's items (headers signed once ahead: DynamoDB Local checks no
 *   signature), its JSON answer parsed, and the items answered as JSON.
 *
 * In a process of its own on the same seeded runtime as bench/cpu-server.ts, driven over the same
 * IPC messages (no profile: the layers are the point of the real one).
 */
import http from 'node:http';
import type { CpuServerMessage, CpuServerReply } from './cpu-server';
import { seededCpuRuntime } from './cpu-runtime';

const { runtime, tickets } = await seededCpuRuntime();
const { config } = await import('../shared/config');
const { keys, IN_PARTITION } = await import('../shared/store/keys');
const { COLLECTION_PROJECTION } = await import('../shared/store/items');
const { awsSigner } = await import('../shared/aws/sigv4');

const endpoint = new URL(process.env.AWS_ENDPOINT_URL_DYNAMODB!);
const queryOf = (ticket: number) =>
  JSON.stringify({
    TableName: config.tableName,
    KeyConditionExpression: IN_PARTITION,
    ExpressionAttributeValues: { ':pk': { S: keys.ticketPartition(ticket) } },
    ConsistentRead: true,
    ...COLLECTION_PROJECTION,
  });
const signed = await awsSigner('dynamodb', config.aws.region).sign({
  method: 'POST',
  protocol: endpoint.protocol,
  hostname: endpoint.hostname,
  port: Number(endpoint.port),
  path: '/',
  query: {},
  headers: {
    host: endpoint.host,
    'content-type': 'application/x-amz-json-1.0',
    'x-amz-target': 'DynamoDB_20120810.Query',
  },
  body: queryOf(tickets[0]!),
});
const agent = new http.Agent({ keepAlive: true });
/** A ticket's answer as the API gives it, about: the fixed body of `/http/`. */
const FIXED = JSON.stringify({ id: 1, title: 'x'.repeat(1200) });

function answer(res: http.ServerResponse, body: string): void {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const server = http.createServer((req, res) => {
  req.resume();
  const ticket = /^\/api\/tickets\/(\d+)\/$/.exec(req.url ?? '')?.[1];
  if (!ticket) return answer(res, FIXED);
  const body = queryOf(Number(ticket));
  const call = http.request(
    {
      method: 'POST',
      hostname: endpoint.hostname,
      port: endpoint.port,
      path: '/',
      agent,
      headers: { ...signed.headers, 'content-length': Buffer.byteLength(body) },
    },
    (reply) => {
      const chunks: Buffer[] = [];
      reply.on('data', (chunk: Buffer) => chunks.push(chunk));
      reply.on('end', () => {
        const { Items } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { Items: unknown[] };
        answer(res, JSON.stringify(Items));
      });
    },
  );
  call.end(body);
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
