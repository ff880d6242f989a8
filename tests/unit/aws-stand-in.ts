/**
 * A loopback server standing in for an AWS JSON-protocol service (DynamoDB, SQS, Secrets Manager, SES v2) in
 * the store clients' unit tests: records each request (headers, JSON body) and answers as told, in
 * order (`replies`), or always the same (`always`), or as `answer` computes from the request body
 * (a service holding state), else 200 `{}`.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';

export interface Seen {
  /** The request's path (REST JSON APIs such as SES v2 name the operation there). */
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}
/** An answer: its status, body (a string as it is, anything else as JSON) and headers; or the connection dropped. */
export type Reply = { status: number; body?: unknown; headers?: Record<string, string> } | 'hang up';

export interface AwsStandIn {
  readonly seen: Seen[];
  replies: Reply[];
  always: Reply | undefined;
  answer: ((body: Record<string, unknown>) => Reply) | undefined;
  readonly endpoint: string;
  close(): Promise<void>;
}

export async function startAwsStandIn(): Promise<AwsStandIn> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as Record<string, unknown>;
      stand.seen.push({ path: request.url ?? '', headers: request.headers, body });
      const reply = stand.always ?? stand.replies.shift() ?? stand.answer?.(body) ?? { status: 200, body: {} };
      if (reply === 'hang up') return request.socket.destroy();
      response.writeHead(reply.status, {
        'content-type': 'application/x-amz-json-1.0',
        'x-amzn-requestid': `req-${stand.seen.length}`,
        ...reply.headers,
      });
      response.end(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? {}));
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const stand: AwsStandIn = {
    seen: [],
    replies: [],
    always: undefined,
    answer: undefined,
    endpoint: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((closed) => server.close(closed));
    },
  };
  return stand;
}
