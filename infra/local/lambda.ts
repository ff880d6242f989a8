/**
 * The local runtime's Lambda endpoint (docs/local.md): what a function invokes on AWS through Lambda's `Invoke`
 * (shared/aws/lambda.ts), here a loopback HTTP server that answers the same request by running the same handler in
 * this process, held to that function's table grants as the SMTP server's ingest is (table-access.ts). One function
 * so far: the mail release function (infra/mail-release.ts), which the mail problems' release route invokes.
 * AWS_ENDPOINT_URL_LAMBDA and HELPDESK_MAIL_RELEASE_FUNCTION point the route at it.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MAIL_IN_GRANTS, type TableGrant } from '../../shared/api/table-access';
import { asFunction } from './table-access';
import { asInvocation } from './invocations';

/** The local name of the mail release function. */
export const LOCAL_MAIL_RELEASE_FUNCTION = 'helpdesk-local-mail-release';

interface LocalFunction {
  handler: string;
  grants: readonly TableGrant[];
  run: (event: never) => Promise<unknown>;
}

const FUNCTIONS: Record<string, () => Promise<LocalFunction>> = {
  [LOCAL_MAIL_RELEASE_FUNCTION]: async () => ({
    handler: 'mail-in/release',
    grants: MAIL_IN_GRANTS,
    run: (await import('../../functions/mail-in/release')).handler,
  }),
};

/** Lambda's path of a synchronous invocation: /2015-03-31/functions/<name>/invocations. */
const INVOKE_PATH = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;

export interface LocalLambda {
  url: string;
  stop(): Promise<void>;
}

async function read(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Answers as Lambda does: 200 with the result, or 200 with the error's type and message (a function error). */
async function invoke(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const name = decodeURIComponent(INVOKE_PATH.exec(new URL(req.url ?? '/', 'http://local').pathname)?.[1] ?? '');
  const load = req.method === 'POST' ? FUNCTIONS[name] : undefined;
  const body = await read(req);
  if (!load) {
    res.writeHead(404, { 'content-type': 'application/json', 'x-amzn-errortype': 'ResourceNotFoundException' });
    res.end(JSON.stringify({ message: `Function not found: ${name}` }));
    return;
  }
  const fn = await load();
  let answer: unknown;
  let headers: Record<string, string> = {};
  try {
    const run = () => fn.run(JSON.parse(body || 'null') as never);
    answer = await asInvocation(randomUUID(), () => asFunction(fn.handler, fn.grants, run));
  } catch (error) {
    headers = { 'x-amz-function-error': 'Unhandled' };
    answer = { errorType: (error as Error).name, errorMessage: (error as Error).message };
  }
  res.writeHead(200, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(answer ?? null));
}

/** Starts the endpoint on a free loopback port and points the process's invocations at it. */
export async function startLocalLambda(): Promise<LocalLambda> {
  const server = createServer((req, res) => {
    invoke(req, res).catch((error: Error) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: error.message }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  process.env.AWS_ENDPOINT_URL_LAMBDA = url;
  process.env.HELPDESK_MAIL_RELEASE_FUNCTION = LOCAL_MAIL_RELEASE_FUNCTION;
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
