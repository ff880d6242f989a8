/**
 * A burst is not a hang: more concurrent calls than the client has sockets wait for one, and that
 * wait must not count against the dependency timeouts (a local runtime serves every function through
 * one client). A loopback server answers every DynamoDB call correctly after a delay shorter than
 * the inactivity timeout; the calls queue behind the sockets for several times the timeout in all,
 * and every one succeeds. Before, the SDK's timers started with each request: the queued ones failed
 * with TimeoutError.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';

const ANSWER_MS = 700;
let server: Server;
let open = 0;
let mostOpen = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    open++;
    mostOpen = Math.max(mostOpen, open);
    request.resume();
    request.on('end', () =>
      setTimeout(() => {
        open--;
        response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end('{}');
      }, ANSWER_MS),
    );
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    HELPDESK_DEPENDENCY_TIMEOUT_MS: '1000',
  });
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((closed) => server.close(closed));
});

it('calls queued for sockets longer than the timeout all succeed: only time on the wire counts', { timeout: 30_000 }, async () => {
  const { dynamo } = await import('../../shared/aws/clients');
  const { GetCommand } = await import('../../shared/aws/dynamodb');
  const calls = 300; // six waves through the client's sockets
  const started = performance.now();
  const results = await Promise.allSettled(
    Array.from({ length: calls }, (_, i) => dynamo.send(new GetCommand({ TableName: 'helpdesk', Key: { PK: `k${i}`, SK: 'x' } }))),
  );
  const elapsed = performance.now() - started;
  const failed = results.filter((r) => r.status === 'rejected').map((r) => (r).reason.name);
  expect(failed).toEqual([]);
  // They did wait: the sockets were all busy, and the burst outlasted the timeout several times over.
  expect(mostOpen).toBeLessThanOrEqual(50);
  expect(elapsed).toBeGreaterThan(2 * 1000);
});
