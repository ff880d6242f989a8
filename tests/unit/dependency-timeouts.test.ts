/**
 * A dependency that hangs: the store's real DynamoDB, S3, SQS and Secrets Manager clients (SQS and
 * Secrets Manager through aws/aws-json.ts, on DynamoDB's sockets), pointed at a loopback server
 * that accepts connections and never answers, give up in time for the function to answer its JSON
 * 503 before its own 10 s timeout (and with the error names the error middleware maps to 503).
 */
import { createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const sockets = new Set<Socket>();
const silent = createServer((socket) => {
  sockets.add(socket);
  socket.on('close', () => sockets.delete(socket));
});

beforeAll(async () => {
  await new Promise<void>((ready) => silent.listen(0, '127.0.0.1', ready));
  const endpoint = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
  delete process.env.HELPDESK_DEPENDENCY_TIMEOUT_MS; // AWS's timeouts, not the local runtime's
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_DYNAMODB: endpoint,
    AWS_ENDPOINT_URL_S3: endpoint,
    AWS_ENDPOINT_URL_SQS: endpoint,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoint,
    HELPDESK_WEBHOOK_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:webhooks-AbCdEf',
    HELPDESK_S3_FORCE_PATH_STYLE: 'true',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    TABLE_NAME: 'helpdesk',
    BUCKET_NAME: 'helpdesk-attachments',
  });
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((closed) => silent.close(closed));
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

// Concurrent: each hang is waited out in real time (the SDK's socket timers), and they do not meet.
describe.concurrent('a dependency that never answers', () => {
  it('DynamoDB: a TimeoutError after the SDK attempts, well within the function timeout', { timeout: 20_000 }, async () => {
    const { dynamo } = await import('../../shared/aws/clients');
    const { GetCommand } = await import('../../shared/aws/dynamodb');
    const { error, ms } = await failure(() => dynamo.send(new GetCommand({ TableName: 'helpdesk', Key: { PK: 'x', SK: 'y' } })));
    expect(error.name).toBe('TimeoutError');
    expect((error as { $metadata?: { attempts?: number } }).$metadata?.attempts).toBe(4);
    expect(ms).toBeGreaterThanOrEqual(4 * 2_000);
    expect(ms).toBeLessThan(9_500);
  });

  it('S3: an S3NetworkError within S3_CALL_TIMEOUT_MS', { timeout: 20_000 }, async () => {
    const { putFile, S3_CALL_TIMEOUT_MS } = await import('../../shared/aws/s3');
    const { error, ms } = await failure(() => putFile('attachments/1/x', Buffer.from('data'), 'text/plain'));
    expect(error.name).toBe('S3NetworkError');
    expect(ms).toBeGreaterThanOrEqual(S3_CALL_TIMEOUT_MS - 50);
    expect(ms).toBeLessThan(S3_CALL_TIMEOUT_MS + 1_500);
  });

  it("SQS: a TimeoutError after 3 attempts (the SDK's default), on the same timeouts as DynamoDB", { timeout: 20_000 }, async () => {
    const { sendMessage } = await import('../../shared/aws/sqs');
    const { error, ms } = await failure(() => sendMessage('https://sqs.us-east-1.amazonaws.com/123456789012/deliveries', '{}'));
    expect(error.name).toBe('TimeoutError');
    expect((error as { $metadata?: { attempts?: number } }).$metadata?.attempts).toBe(3);
    expect(ms).toBeGreaterThanOrEqual(3 * 2_000);
    expect(ms).toBeLessThan(8_000);
  });

  it("Secrets Manager (the webhook secret): a TimeoutError after 3 attempts, on the same sockets and timeouts as DynamoDB", { timeout: 20_000 }, async () => {
    const { webhookSecret } = await import('../../shared/webhooks/settings');
    const { error, ms } = await failure(() => webhookSecret());
    expect(error.name).toBe('TimeoutError');
    expect(error.message).toMatch(/^secretsmanager GetSecretValue failed: /);
    expect((error as { $metadata?: { attempts?: number } }).$metadata?.attempts).toBe(3);
    expect(ms).toBeGreaterThanOrEqual(3 * 2_000);
    expect(ms).toBeLessThan(8_000);
  });

  it('both are answered as a retryable 503', async () => {
    const { errorResponse } = await import('../../shared/middleware');
    for (const name of ['TimeoutError', 'S3NetworkError']) {
      const reply = errorResponse(Object.assign(new Error('hung'), { name }));
      expect(reply.statusCode, name).toBe(503);
      expect(reply.headers?.['Retry-After'], name).toBe('1');
    }
  });
});
