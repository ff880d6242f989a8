/**
 * Least privilege in the local runtime (infra/local/table-access.ts): while a route's handler runs,
 * every DynamoDB call must be allowed by that route's grants (routes.ts), as IAM would decide on
 * AWS, or it fails with AccessDeniedException before anything is sent. Here on the runtime's own
 * client and real engine: a route's calls inside its grants go through, calls outside them
 * (another partition, another action, an index, one item of a batch or a transaction) are refused
 * and write nothing. Every other integration test runs under the same rule, so a grant a handler
 * needs and its route lacks fails them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BatchGetCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  type DynamoDB,
} from '../../shared/aws/dynamodb';
import { routeByHandler } from '../../shared/api/routes';
import { startInProcessRuntime, type InProcessRuntime } from './in-process-runtime';

let runtime: InProcessRuntime;
let dynamo: DynamoDB;
let asRoute: typeof import('../../infra/local/table-access').asRoute;
const TableName = () => process.env.TABLE_NAME!;

beforeAll(async () => {
  runtime = await startInProcessRuntime();
  ({ dynamo } = await import('../../shared/aws/clients'));
  ({ asRoute } = await import('../../infra/local/table-access'));
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
});

const as = <T>(handler: string, call: () => Promise<T>) => asRoute(routeByHandler(handler), call);
const denied = (handler: string, call: () => Promise<unknown>) =>
  expect(as(handler, call)).rejects.toMatchObject({
    name: 'AccessDeniedException',
    message: expect.stringContaining(handler),
  });

describe('a route may make the calls its grants allow, and no other', () => {
  it('a read route reads its partitions and its authentication items, and writes nothing else', async () => {
    await as('tickets/get', () =>
      dynamo.send(
        new QueryCommand({
          TableName: TableName(),
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: { ':pk': 'TICKET#1' },
        }),
      ),
    );
    await as('tickets/get', () =>
      dynamo.send(new GetCommand({ TableName: TableName(), Key: { PK: 'USER#admin', SK: 'USER' } })),
    );
    await denied('tickets/get', () =>
      dynamo.send(new PutCommand({ TableName: TableName(), Item: { PK: 'TICKET#999999', SK: 'TICKET' } })),
    );
    await denied('tickets/get', () =>
      dynamo.send(new GetCommand({ TableName: TableName(), Key: { PK: 'COUNTER', SK: 'COUNTER' } })),
    );
    await denied('tickets/get', () =>
      dynamo.send(
        new QueryCommand({
          TableName: TableName(),
          IndexName: 'gsi1',
          KeyConditionExpression: 'GSI1PK = :pk',
          ExpressionAttributeValues: { ':pk': 'TICKETS' },
        }),
      ),
    );
    // A pattern is not a prefix: `TICKET#*` does not cover `TICKETS`.
    await denied('tickets/get', () =>
      dynamo.send(
        new QueryCommand({
          TableName: TableName(),
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: { ':pk': 'TICKETS' },
        }),
      ),
    );
    const written = await dynamo.send(
      new GetCommand({ TableName: TableName(), Key: { PK: 'TICKET#999999', SK: 'TICKET' }, ConsistentRead: true }),
    );
    expect(written.Item).toBeUndefined();
  });

  it('a batch or a transaction is refused whole when one of its items is outside the grants', async () => {
    await denied('tickets/get', () =>
      dynamo.send(
        new BatchGetCommand({
          RequestItems: {
            [TableName()]: {
              Keys: [
                { PK: 'TICKET#1', SK: 'TICKET' },
                { PK: 'QUEUES', SK: 'QUEUE#000000000001' },
              ],
            },
          },
        }),
      ),
    );
    // tickets/create writes its ticket's items, never the counts (the stream consumer's).
    await denied('tickets/create', () =>
      dynamo.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: TableName(), Item: { PK: 'TICKET#999998', SK: 'TICKET' } } },
            { Put: { TableName: TableName(), Item: { PK: 'COUNTS#ticket', SK: '!TOTALS' } } },
          ],
        }),
      ),
    );
    const written = await dynamo.send(
      new GetCommand({ TableName: TableName(), Key: { PK: 'TICKET#999998', SK: 'TICKET' }, ConsistentRead: true }),
    );
    expect(written.Item).toBeUndefined();
  });

  it('only a POST may keep an Idempotency-Key', async () => {
    const key = { PK: 'IDEMPOTENCY#grants-test', SK: 'IDEMPOTENCY' };
    await as('users/create', () => dynamo.send(new GetCommand({ TableName: TableName(), Key: key })));
    await denied('tickets/update', () => dynamo.send(new GetCommand({ TableName: TableName(), Key: key })));
  });

  it('calls outside any route (the workers, the CLI) are not the routes’ to judge', async () => {
    await dynamo.send(new GetCommand({ TableName: TableName(), Key: { PK: 'COUNTER', SK: 'COUNTER' } }));
  });
});
