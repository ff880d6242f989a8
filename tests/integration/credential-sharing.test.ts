/**
 * Concurrent requests with one credential share one verification (shared/middleware/auth.ts): one
 * password hash and one set of reads, not one each. A burst from one client (or every request of a
 * cold runtime) once spent a minute of CPU on hashes. Counted on the wire, on an in-process runtime.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DynamoDB } from '../../shared/aws/dynamodb';
import { basic, clientFor } from './client';
import { startInProcessRuntime, type InProcessRuntime } from './in-process-runtime';

let runtime: InProcessRuntime;
let dynamo: DynamoDB;

beforeAll(async () => {
  runtime = await startInProcessRuntime();
  ({ dynamo } = await import('../../shared/aws/clients'));
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
});

it('20 concurrent requests with a credential not verified yet read its user once', async () => {
  const user = await clientFor(runtime.url).createUser();
  const userReads: string[] = [];
  const stopCounting = dynamo.intercept(({ operation, input }, next) => {
    const key = (input as { Key?: { PK?: unknown } }).Key?.PK;
    if (operation === 'GetItem' && JSON.stringify(key).includes(`USER#${user.username}`)) userReads.push(String(key));
    return next();
  });
  try {
    const replies = await Promise.all(
      Array.from({ length: 20 }, () =>
        fetch(`${runtime.url}/api/user_tickets/`, { headers: { authorization: basic(user.username, 'a-password-1') } }),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(userReads).toHaveLength(1);
  } finally {
    stopCounting();
  }
});
