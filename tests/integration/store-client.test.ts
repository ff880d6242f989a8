/**
 * The store's DynamoDB client (shared/aws/dynamodb.ts) on a real DynamoDB Local, beside the SDK's
 * document client it stands in for: binary attributes (base64 on the wire, Uint8Array in items)
 * written by one are read back the same by the other, in keys, sets, nested values and conditions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand as SdkGet, PutCommand as SdkPut } from '@aws-sdk/lib-dynamodb';
import { startInProcessRuntime } from './in-process-runtime';

let runtime: { stop(): Promise<void> };
let ours: typeof import('../../shared/aws/clients').dynamo;
let sdk: DynamoDBDocumentClient;
let store: typeof import('../../shared/aws/dynamodb');
const table = () => process.env.TABLE_NAME!;

beforeAll(async () => {
  runtime = await startInProcessRuntime();
  ({ dynamo: ours } = await import('../../shared/aws/clients'));
  store = await import('../../shared/aws/dynamodb');
  sdk = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      region: process.env.AWS_REGION!,
      endpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB!,
      credentials: { accessKeyId: process.env.AWS_ACCESS_KEY_ID!, secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY! },
    }),
  );
}, 120_000);

afterAll(async () => {
  sdk?.destroy();
  await runtime?.stop();
});

const bytes = new Uint8Array([0, 1, 2, 127, 128, 254, 255]);
const item = (pk: string) => ({
  PK: `BINARY#${pk}`,
  SK: 'ITEM',
  raw: bytes,
  buffer: Buffer.from('hello'),
  set: new Set([bytes, new Uint8Array([42])]),
  nested: { list: [bytes.subarray(1, 3), { deeper: new Uint8Array([9]) }] },
});

describe('binary attributes on DynamoDB Local', () => {
  it("what the store's client writes, the SDK reads as the same bytes, and the other way round", async () => {
    await ours.send(new store.PutCommand({ TableName: table(), Item: item('ours') }));
    await sdk.send(new SdkPut({ TableName: table(), Item: item('sdk') }));

    for (const pk of ['ours', 'sdk']) {
      const key = { PK: `BINARY#${pk}`, SK: 'ITEM' };
      const bySdk = (await sdk.send(new SdkGet({ TableName: table(), Key: key, ConsistentRead: true }))).Item;
      const byOurs = (await ours.send(new store.GetCommand({ TableName: table(), Key: key, ConsistentRead: true })))
        .Item;
      expect(byOurs, pk).toEqual(bySdk);
      expect(byOurs?.raw, pk).toBeInstanceOf(Uint8Array);
      expect(byOurs?.raw, pk).toEqual(bytes);
      expect(Buffer.from(byOurs?.buffer as Uint8Array).toString(), pk).toBe('hello');
      expect(byOurs?.set, pk).toEqual(new Set([bytes, new Uint8Array([42])]));
      expect(byOurs?.nested, pk).toEqual({ list: [new Uint8Array([1, 2]), { deeper: new Uint8Array([9]) }] });
    }
  });

  it('a binary compared in a condition, and updated in place', async () => {
    const key = { PK: 'BINARY#cond', SK: 'ITEM' };
    await ours.send(new store.PutCommand({ TableName: table(), Item: { ...key, raw: bytes } }));
    await expect(
      ours.send(
        new store.UpdateCommand({
          TableName: table(),
          Key: key,
          UpdateExpression: 'SET #raw = :new',
          ConditionExpression: '#raw = :old',
          ExpressionAttributeNames: { '#raw': 'raw' },
          ExpressionAttributeValues: { ':old': new Uint8Array([1]), ':new': new Uint8Array([2]) },
        }),
      ),
    ).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    const out = await ours.send(
      new store.UpdateCommand({
        TableName: table(),
        Key: key,
        UpdateExpression: 'SET #raw = :new',
        ConditionExpression: '#raw = :old',
        ExpressionAttributeNames: { '#raw': 'raw' },
        ExpressionAttributeValues: { ':old': bytes, ':new': new Uint8Array([2]) },
        ReturnValues: 'ALL_OLD',
      }),
    );
    expect(out.Attributes?.raw).toEqual(bytes);
    expect((await sdk.send(new SdkGet({ TableName: table(), Key: key, ConsistentRead: true }))).Item?.raw).toEqual(
      new Uint8Array([2]),
    );
  });
});
