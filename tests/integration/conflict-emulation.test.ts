/**
 * The local runtime's emulation of DynamoDB's transaction conflict rule
 * (infra/local/transaction-conflicts.ts), on a real DynamoDB Local: a transaction held in flight
 * (its answer delayed by a gate in the test, not by sleeping) makes an overlapping transaction and a
 * plain write of its item fail as on AWS, and nothing they carried is written; writes of other
 * items go through; the items are free again once the held transaction answers, success or not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { StandardRetryStrategy } from '@smithy/util-retry';
import { DynamoDB, GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '../../shared/aws/dynamodb';
import { startInProcessRuntime } from './in-process-runtime';

let runtime: { stop(): Promise<void> };
let client: DynamoDB;
let emulation: import('../../infra/local/transaction-conflicts').ConflictEmulation;
const table = () => process.env.TABLE_NAME!;
/** Answers of transactions whose ClientRequestToken is listed wait until released. */
const gates = new Map<string, { release: () => void; released: Promise<void> }>();

beforeAll(async () => {
  runtime = await startInProcessRuntime();
  // A client of its own: the runtime's would also enforce its functions' grants.
  client = new DynamoDB(() => ({
    endpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB,
    region: process.env.AWS_REGION!,
    retryStrategy: new StandardRetryStrategy(1),
    maxAttempts: 1,
    transport: {
      attemptMs: 30_000,
      agents: { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) },
    },
  }));
  const { emulateTransactionConflicts } = await import('../../infra/local/transaction-conflicts');
  emulation = emulateTransactionConflicts(client);
  // Inside the emulation (added later, so inner): the request has been let through and holds its items.
  client.intercept(
    async ({ input }, next) => {
      const gate = gates.get(String(input.ClientRequestToken));
      const answer = await next().catch((error: unknown) => ({ error }));
      if (gate) await gate.released;
      if ('error' in answer) throw answer.error;
      return answer;
    },
    { eachAttempt: true },
  );
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
});

function gate(token: string): () => void {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  gates.set(token, { release, released });
  return release;
}

const key = (name: string) => ({ PK: `EMULATION#${name}`, SK: 'ITEM' });
const update = (name: string) => ({
  Update: {
    TableName: table(),
    Key: key(name),
    UpdateExpression: 'ADD n :one',
    ExpressionAttributeValues: { ':one': 1 },
  },
});
const read = async (name: string) =>
  (await client.send(new GetCommand({ TableName: table(), Key: key(name), ConsistentRead: true }))).Item?.n;
const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (error: Error & { CancellationReasons?: { Code?: string }[] }) => error,
  );

describe('transaction conflicts, emulated', () => {
  it(
    'two overlapping transactions on one item: the second is cancelled with TransactionConflict, and wrote ' +
      'nothing',
    async () => {
      const release = gate('held-1');
      const held = client.send(
        new TransactWriteCommand({ ClientRequestToken: 'held-1', TransactItems: [update('a')] }),
      );
      // In flight, holding its item: DynamoDB Local applied it, its answer is held.
      await expect.poll(() => read('a')).toBe(1);

      const cancelled = await failure(
        client.send(new TransactWriteCommand({ TransactItems: [update('b'), update('a')] })),
      );
      expect(cancelled?.name).toBe('TransactionCanceledException');
      expect(cancelled?.CancellationReasons?.map((r) => r.Code)).toEqual(['None', 'TransactionConflict']);
      expect(await read('b')).toBeUndefined();

      expect(emulation.refused.transactions).toBe(1);
      const plain = await failure(
        client.send(
          new UpdateCommand({
            TableName: table(),
            Key: key('a'),
            UpdateExpression: 'ADD n :one',
            ExpressionAttributeValues: { ':one': 1 },
          }),
        ),
      );
      expect(plain?.name).toBe('TransactionConflictException');
      expect(emulation.refused.writes).toBe(1);

      // Other items are free: a transaction and a plain write of them go through meanwhile.
      await client.send(new TransactWriteCommand({ TransactItems: [update('b')] }));
      await client.send(new PutCommand({ TableName: table(), Item: { ...key('c'), n: 7 } }));
      expect([await read('b'), await read('c')]).toEqual([1, 7]);

      release();
      await held;
      // Free again: the one that was cancelled goes through when sent again.
      await client.send(new TransactWriteCommand({ TransactItems: [update('b'), update('a')] }));
      expect([await read('a'), await read('b')]).toEqual([2, 2]);
    },
  );

  it('a transaction that fails still frees its items', async () => {
    const release = gate('failing');
    const failing = failure(
      client.send(
        new TransactWriteCommand({
          ClientRequestToken: 'failing',
          TransactItems: [
            { ...update('d'), Update: { ...update('d').Update, ConditionExpression: 'attribute_exists(PK)' } },
          ],
        }),
      ),
    );
    release();
    expect((await failing)?.name).toBe('TransactionCanceledException');
    await client.send(new TransactWriteCommand({ TransactItems: [update('d')] }));
    expect(await read('d')).toBe(1);
  });
});
