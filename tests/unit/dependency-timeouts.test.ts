/**
 * A dependency that hangs: the store's real DynamoDB, S3, SQS and Secrets Manager clients (SQS and
 * Secrets Manager through aws/aws-json.ts, on DynamoDB's sockets), pointed at a loopback server
 * that accepts connections and never answers, give up (with the error names the error middleware
 * maps to 503) after their attempts, each on a connection of its own, in no less than the attempts'
 * timeouts; and with AWS's timeouts, the attempts and backoffs at their longest end before the function's.
 *
 * The calls run on short timeouts (HELPDESK_DEPENDENCY_TIMEOUT_MS), and nothing is held to a
 * wall-clock ceiling a loaded machine could miss: how long the calls may take on AWS is computed
 * from the settings the clients use, not timed. A timer that never fired would hang the test.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { StandardRetryStrategy } from '@smithy/util-retry';
import { afterAll, beforeAll, describe, expect, it, vi, type ExpectStatic } from 'vitest';

/** A server that accepts connections and never answers; it counts them, and those the client closed. */
function silentServer() {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    seen.accepted++;
    sockets.add(socket);
    socket.resume(); // read what comes, or the client's close would not be seen
    socket.on('close', () => {
      seen.closed++;
      sockets.delete(socket);
    });
  });
  const seen = { accepted: 0, closed: 0, server, sockets };
  return seen;
}
/** One per service, so that each test counts its own connections (the tests run at once). */
const silent = { dynamodb: silentServer(), s3: silentServer(), sqs: silentServer(), secrets: silentServer() };

/** The timeout the calls run on: each attempt's (DynamoDB, SQS, Secrets Manager), and S3's whole call. */
const ATTEMPT_MS = 300;
/** What the function has, less a margin to answer its 503 (API_FUNCTION_TIMEOUT is 15 s). */
const BUDGET_MS = 9_500;

const env = {
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
  TABLE_NAME: 'helpdesk',
  BUCKET_NAME: 'helpdesk-attachments',
  HELPDESK_WEBHOOK_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:webhooks-AbCdEf',
  HELPDESK_S3_FORCE_PATH_STYLE: 'true',
};

beforeAll(async () => {
  const endpoint = async ({ server }: { server: Server }) => {
    await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
    return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  };
  Object.assign(process.env, env, {
    AWS_ENDPOINT_URL_DYNAMODB: await endpoint(silent.dynamodb),
    AWS_ENDPOINT_URL_S3: await endpoint(silent.s3),
    AWS_ENDPOINT_URL_SQS: await endpoint(silent.sqs),
    AWS_ENDPOINT_URL_SECRETS_MANAGER: await endpoint(silent.secrets),
  });
});

afterAll(async () => {
  for (const { server, sockets } of Object.values(silent)) {
    for (const socket of sockets) socket.destroy();
    await new Promise((closed) => server.close(closed));
  }
});

/** The longest the strategy waits between `attempts` attempts that time out (its jitter at its top). */
async function longestBackoff(strategy: StandardRetryStrategy, attempts: number): Promise<number> {
  const random = vi.spyOn(Math, 'random').mockReturnValue(0.999_999);
  try {
    let token = await strategy.acquireInitialRetryToken('');
    let total = 0;
    for (let n = 1; n < attempts; n++) {
      token = await strategy.refreshRetryTokenForRetry(token, { errorType: 'TRANSIENT' });
      total += token.getRetryDelay();
    }
    return total;
  } finally {
    random.mockRestore();
  }
}

describe("AWS's timeouts", () => {
  it('a hung call gives up before the function times out: the attempts and backoffs at their longest', async () => {
    // The modules as a function on AWS loads them: without HELPDESK_DEPENDENCY_TIMEOUT_MS.
    delete process.env.HELPDESK_DEPENDENCY_TIMEOUT_MS;
    vi.resetModules();
    const { DYNAMODB_RETRIES, transport } = await import('../../shared/aws/clients');
    const { S3_CALL_TIMEOUT_MS } = await import('../../shared/aws/s3');
    const { DEFAULT_MAX_ATTEMPTS, StandardRetryStrategy } = await import('@smithy/util-retry');
    vi.resetModules();
    expect(transport.attemptMs).toBe(2_000);
    // An attempt: the connection timer (half the attempt's time), then the inactivity timer.
    const attemptAtMost = transport.attemptMs * 1.5;
    const dynamo =
      DYNAMODB_RETRIES.maxAttempts * attemptAtMost +
      (await longestBackoff(new StandardRetryStrategy(DYNAMODB_RETRIES), DYNAMODB_RETRIES.maxAttempts));
    const awsJson =
      DEFAULT_MAX_ATTEMPTS * attemptAtMost +
      (await longestBackoff(new StandardRetryStrategy({ maxAttempts: DEFAULT_MAX_ATTEMPTS }), DEFAULT_MAX_ATTEMPTS));
    // Connected at once, as to a hung endpoint (the common case): the comment in clients.ts says 8 s.
    const dynamoConnected =
      DYNAMODB_RETRIES.maxAttempts * transport.attemptMs +
      (await longestBackoff(new StandardRetryStrategy(DYNAMODB_RETRIES), DYNAMODB_RETRIES.maxAttempts));
    expect(dynamoConnected).toBeLessThan(BUDGET_MS);
    expect(awsJson).toBeLessThan(BUDGET_MS);
    expect(S3_CALL_TIMEOUT_MS).toBeLessThan(BUDGET_MS);
    // Even with every connection slow to open, the function's own 15 s is not reached.
    expect(dynamo).toBeLessThan(15_000);
  });
});

async function failure(call: () => Promise<unknown>): Promise<{ error: Error; ms: number }> {
  const started = performance.now();
  try {
    await call();
  } catch (error) {
    return { error: error as Error, ms: performance.now() - started };
  }
  throw new Error('the call to a silent server succeeded');
}

/**
 * Expects `count` connections to the service's server, each closed by the client when `closed` (the
 * server never closes one; fetch, which S3's calls use, may keep an aborted one). `expect` is the
 * test's own, as concurrent tests need for expect.poll.
 */
async function expectConnections(
  service: keyof typeof silent,
  count: number,
  expect: ExpectStatic,
  { closed = true } = {},
): Promise<void> {
  const seen = silent[service];
  await expect
    .poll(() => seen.accepted >= count && (!closed || seen.closed === seen.accepted), { timeout: 10_000 })
    .toBe(true);
  expect(seen.accepted).toBe(count);
}

// Concurrent: each hang is waited out in real time (the clients' socket timers), and they do not meet.
describe.concurrent('a dependency that never answers', () => {
  beforeAll(() => {
    process.env.HELPDESK_DEPENDENCY_TIMEOUT_MS = String(ATTEMPT_MS);
  });

  it('DynamoDB: a TimeoutError after 4 attempts, each on a connection of its own', async ({ expect }) => {
    const { dynamo } = await import('../../shared/aws/clients');
    const { GetCommand } = await import('../../shared/aws/dynamodb');
    const { error, ms } = await failure(() =>
      dynamo.send(new GetCommand({ TableName: 'helpdesk', Key: { PK: 'x', SK: 'y' } })),
    );
    expect(error.name).toBe('TimeoutError');
    expect((error as { $metadata?: { attempts?: number } }).$metadata?.attempts).toBe(4);
    expect(ms).toBeGreaterThanOrEqual(4 * ATTEMPT_MS - 5);
    await expectConnections('dynamodb', 4, expect);
  });

  it('S3: an S3NetworkError once the whole call has taken its timeout', async ({ expect }) => {
    const { putFile } = await import('../../shared/aws/s3');
    const { error, ms } = await failure(() => putFile('attachments/1/x', Buffer.from('data'), 'text/plain'));
    expect(error.name).toBe('S3NetworkError');
    expect(ms).toBeGreaterThanOrEqual(ATTEMPT_MS - 5);
    await expectConnections('s3', 1, expect, { closed: false });
  });

  it("SQS: a TimeoutError after 3 attempts (the SDK's default), on the same timeouts as DynamoDB", async ({
    expect,
  }) => {
    const { sendMessage } = await import('../../shared/aws/sqs');
    const { error, ms } = await failure(() =>
      sendMessage('https://sqs.us-east-1.amazonaws.com/123456789012/deliveries', '{}'),
    );
    expect(error.name).toBe('TimeoutError');
    expect((error as { $metadata?: { attempts?: number } }).$metadata?.attempts).toBe(3);
    expect(ms).toBeGreaterThanOrEqual(3 * ATTEMPT_MS - 5);
    await expectConnections('sqs', 3, expect);
  });

  it(
    'Secrets Manager (the webhook secret): a TimeoutError after 3 attempts, on the same sockets and timeouts as ' +
      'DynamoDB',
    async ({ expect }) => {
      const { webhookSecret } = await import('../../shared/webhooks/settings');
      const { error, ms } = await failure(() => webhookSecret());
      expect(error.name).toBe('TimeoutError');
      expect(error.message).toMatch(/^secretsmanager GetSecretValue failed: /);
      expect((error as { $metadata?: { attempts?: number } }).$metadata?.attempts).toBe(3);
      expect(ms).toBeGreaterThanOrEqual(3 * ATTEMPT_MS - 5);
      await expectConnections('secrets', 3, expect);
    },
  );

  it('both are answered as a retryable 503', async () => {
    const { errorResponse } = await import('../../shared/middleware');
    for (const name of ['TimeoutError', 'S3NetworkError']) {
      const reply = errorResponse(Object.assign(new Error('hung'), { name }));
      expect(reply.statusCode, name).toBe(503);
      expect(reply.headers?.['Retry-After'], name).toBe('1');
    }
  });
});
