/**
 * A burst is not a hang: more concurrent calls than the client has sockets wait for one, and that
 * wait must not count against the dependency timeouts (a local runtime serves every function through
 * one client). A loopback server holds the first wave of DynamoDB calls, every socket the client
 * has, for more than twice the inactivity timeout, keeping each alive with a byte every 50 ms (so
 * no call on the wire is ever silent for long), then answers every call at once; the calls queued
 * meanwhile all succeed. Before, the SDK's timers started with each request: the queued ones failed
 * with TimeoutError. Nothing here depends on how fast the machine is: the held calls are never quiet
 * for more than 50 ms of the 1,000 allowed, and the queued ones are answered as they arrive.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';

const TIMEOUT_MS = 1_000;
/** How long the first wave is held: the calls behind it queue for longer than this. */
const HOLD_MS = 2.5 * TIMEOUT_MS;
let server: Server;
let open = 0;
let mostOpen = 0;
let released = false;
let arrivedAfterRelease = 0;
const held: (() => void)[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    open++;
    mostOpen = Math.max(mostOpen, open);
    request.resume();
    request.on('end', () => {
      const answer = () => {
        open--;
        response.end('{}');
      };
      if (released) {
        arrivedAfterRelease++;
        return answer();
      }
      // Answered now in part (JSON allows the leading spaces), the rest once released.
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
      const alive = setInterval(() => response.write(' '), 50);
      held.push(() => {
        clearInterval(alive);
        answer();
      });
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    HELPDESK_DEPENDENCY_TIMEOUT_MS: String(TIMEOUT_MS),
  });
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((closed) => server.close(closed));
});

it(
  'calls queued for sockets longer than the timeout all succeed: only time on the wire counts',
  { timeout: 30_000 },
  async () => {
    const { dynamo } = await import('../../shared/aws/clients');
    const { GetCommand } = await import('../../shared/aws/dynamodb');
    const calls = 300; // six times the client's sockets
    const results = Promise.allSettled(
      Array.from({ length: calls }, (_, i) =>
        dynamo.send(new GetCommand({ TableName: 'helpdesk', Key: { PK: `k${i}`, SK: 'x' } })),
      ),
    );
    // Every socket busy with a held call; the rest queue behind them.
    await expect.poll(() => held.length, { timeout: 10_000 }).toBe(50);
    const full = performance.now();
    await expect.poll(() => performance.now() - full, { timeout: 2 * HOLD_MS, interval: 100 }).toBeGreaterThan(HOLD_MS);
    released = true;
    held.forEach((answer) => answer());

    const failed = (await results).filter((r) => r.status === 'rejected').map((r) => (r.reason as Error).name);
    expect(failed).toEqual([]);
    // They did wait: the sockets were all busy, and the other 250 reached the server only after the
    // hold, over twice the timeout after they were sent.
    expect(mostOpen).toBe(50);
    expect(arrivedAfterRelease).toBe(calls - 50);
  },
);
