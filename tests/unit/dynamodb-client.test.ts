/**
 * The store's DynamoDB client (shared/aws/dynamodb.ts) against a loopback server that answers as
 * DynamoDB's JSON protocol does: the request DynamoDB expects (target, content type, SigV4,
 * marshalled attribute values), outputs unmarshalled, the SDK's retry rules and error shapes, and
 * the interceptors. The integration tests run every store call against DynamoDB Local itself.
 */
import { Agent, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { StandardRetryStrategy } from '@smithy/util-retry';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { DYNAMODB_RETRIES } from '../../shared/aws/clients';
import * as Sdk from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DynamoDB,
  DynamoDBServiceError,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '../../shared/aws/dynamodb';
import { serviceEndpoint } from '../../shared/aws/aws-request';
import { startAwsStandIn, type Seen } from './aws-stand-in';

process.env.AWS_REGION = 'eu-west-1';
process.env.AWS_ACCESS_KEY_ID = 'AKIDEXAMPLE';
process.env.AWS_SECRET_ACCESS_KEY = 'secret';
process.env.AWS_SESSION_TOKEN = 'session';
// As in Lambda: the function's name and runtime, and the invocation's trace (set per test below).
process.env.AWS_LAMBDA_FUNCTION_NAME = 'helpdesk-tickets-get';
process.env.AWS_EXECUTION_ENV = 'AWS_Lambda_nodejs22.x';

const aws = await startAwsStandIn();
const { seen } = aws;

let dynamo: DynamoDB;
beforeAll(() => {
  dynamo = new DynamoDB(() => ({
    endpoint: aws.endpoint,
    region: 'eu-west-1',
    retryStrategy: new StandardRetryStrategy(DYNAMODB_RETRIES),
    maxAttempts: DYNAMODB_RETRIES.maxAttempts,
    transport: {
      attemptMs: 2_000,
      agents: { http: new Agent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) },
    },
  }));
});
afterAll(() => aws.close());
beforeEach(() => {
  seen.length = 0;
  aws.replies = [];
});

const failure = (call: Promise<unknown>) =>
  call.then(
    () => expect.fail('the call succeeded'),
    (error: unknown) => error as DynamoDBServiceError,
  );

describe('a call', () => {
  it("posts the operation to DynamoDB's JSON protocol, signed for the region with the session token", async () => {
    aws.replies = [
      {
        status: 200,
        body: { Item: { PK: { S: 'TICKET#1' }, n: { N: '7' }, tags: { L: [{ S: 'a' }] }, open: { BOOL: true } } },
      },
    ];
    const out = await dynamo.send(
      new GetCommand({ TableName: 'helpdesk', Key: { PK: 'TICKET#1', SK: 'TICKET' }, ConsistentRead: true }),
    );
    expect(out.Item).toEqual({ PK: 'TICKET#1', n: 7, tags: ['a'], open: true });
    const [{ headers, body }] = seen as [Seen];
    expect(headers['x-amz-target']).toBe('DynamoDB_20120810.GetItem');
    expect(headers['content-type']).toBe('application/x-amz-json-1.0');
    const credential = String.raw`Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/dynamodb\/aws4_request`;
    expect(headers.authorization).toMatch(
      new RegExp(String.raw`^AWS4-HMAC-SHA256 ${credential}, SignedHeaders=.*x-amz-target.*, Signature=[0-9a-f]{64}$`),
    );
    expect(headers['x-amz-security-token']).toBe('session');
    expect(body).toEqual({
      TableName: 'helpdesk',
      Key: { PK: { S: 'TICKET#1' }, SK: { S: 'TICKET' } },
      ConsistentRead: true,
    });
  });

  it(
    'marshals values, keys and items wherever the document client would, and ' + 'leaves out undefined values',
    async () => {
      await dynamo.send(
        new UpdateCommand({
          TableName: 't',
          Key: { PK: 'A', SK: 'B' },
          UpdateExpression: 'SET #s = :s, f = :f',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: { ':s': 2, ':f': { x: [1, 'y'], gone: undefined } },
        }),
      );
      await dynamo.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: 't', Item: { PK: 'A', n: 1 } } },
            {
              ConditionCheck: {
                TableName: 't',
                Key: { PK: 'B' },
                ConditionExpression: 'v = :v',
                ExpressionAttributeValues: { ':v': 'x' },
              },
            },
          ],
          ClientRequestToken: 'token-1',
        }),
      );
      await dynamo.send(
        new BatchWriteCommand({
          RequestItems: { t: [{ PutRequest: { Item: { PK: 'A' } } }, { DeleteRequest: { Key: { PK: 'B' } } }] },
        }),
      );
      await dynamo.send(new BatchGetCommand({ RequestItems: { t: { Keys: [{ PK: 'A' }], ConsistentRead: true } } }));
      await dynamo.send(
        new QueryCommand({
          TableName: 't',
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: { ':pk': 'A' },
          ExclusiveStartKey: { PK: 'A', SK: 'C' },
        }),
      );
      expect(seen.map((s) => s.body)).toEqual([
        {
          TableName: 't',
          Key: { PK: { S: 'A' }, SK: { S: 'B' } },
          UpdateExpression: 'SET #s = :s, f = :f',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: { ':s': { N: '2' }, ':f': { M: { x: { L: [{ N: '1' }, { S: 'y' }] } } } },
        },
        {
          TransactItems: [
            { Put: { TableName: 't', Item: { PK: { S: 'A' }, n: { N: '1' } } } },
            {
              ConditionCheck: {
                TableName: 't',
                Key: { PK: { S: 'B' } },
                ConditionExpression: 'v = :v',
                ExpressionAttributeValues: { ':v': { S: 'x' } },
              },
            },
          ],
          ClientRequestToken: 'token-1',
        },
        {
          RequestItems: {
            t: [{ PutRequest: { Item: { PK: { S: 'A' } } } }, { DeleteRequest: { Key: { PK: { S: 'B' } } } }],
          },
        },
        { RequestItems: { t: { Keys: [{ PK: { S: 'A' } }], ConsistentRead: true } } },
        {
          TableName: 't',
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: { ':pk': { S: 'A' } },
          ExclusiveStartKey: { PK: { S: 'A' }, SK: { S: 'C' } },
        },
      ]);
    },
  );

  it('unmarshals items, pages, batch answers and what a batch left unprocessed', async () => {
    aws.replies = [
      {
        status: 200,
        body: {
          Items: [{ PK: { S: 'A' } }],
          Count: 1,
          LastEvaluatedKey: { PK: { S: 'A' }, SK: { S: 'Z' } },
          ConsumedCapacity: { CapacityUnits: 0.5 },
        },
      },
      {
        status: 200,
        body: {
          Responses: { t: [{ PK: { S: 'A' }, n: { N: '1' } }] },
          UnprocessedKeys: { t: { Keys: [{ PK: { S: 'B' } }], ConsistentRead: true } },
        },
      },
      { status: 200, body: { UnprocessedItems: { t: [{ PutRequest: { Item: { PK: { S: 'C' } } } }] } } },
    ];
    expect(await dynamo.send(new QueryCommand({ TableName: 't' }))).toEqual({
      Items: [{ PK: 'A' }],
      Count: 1,
      LastEvaluatedKey: { PK: 'A', SK: 'Z' },
      ConsumedCapacity: { CapacityUnits: 0.5 },
    });
    expect(await dynamo.send(new BatchGetCommand({ RequestItems: {} }))).toEqual({
      Responses: { t: [{ PK: 'A', n: 1 }] },
      UnprocessedKeys: { t: { Keys: [{ PK: 'B' }], ConsistentRead: true } },
    });
    expect(await dynamo.send(new BatchWriteCommand({ RequestItems: {} }))).toEqual({
      UnprocessedItems: { t: [{ PutRequest: { Item: { PK: 'C' } } }] },
    });
  });
});

describe('binary attributes', () => {
  it(
    "are sent as base64, as the SDK's JSON protocol sends blobs, wherever they are (Buffer, Uint8Array, a set, " +
      'nested)',
    async () => {
      const bytes = new Uint8Array([0, 1, 254, 255]);
      await dynamo.send(
        new PutCommand({
          TableName: 't',
          Item: {
            PK: 'A',
            raw: bytes,
            buffer: Buffer.from('hi'),
            set: new Set([bytes, new Uint8Array([7])]),
            nested: { list: [bytes.subarray(2)] },
          },
          ConditionExpression: 'raw <> :b',
          ExpressionAttributeValues: { ':b': new Uint8Array([9]) },
        }),
      );
      expect(seen[0]!.body).toEqual({
        TableName: 't',
        Item: {
          PK: { S: 'A' },
          raw: { B: 'AAH+/w==' },
          buffer: { B: 'aGk=' },
          set: { BS: ['AAH+/w==', 'Bw=='] },
          nested: { M: { list: { L: [{ B: '/v8=' }] } } },
        },
        ConditionExpression: 'raw <> :b',
        ExpressionAttributeValues: { ':b': { B: 'CQ==' } },
      });
    },
  );

  it('come back as Uint8Array, as from the SDK client, in items, keys and nested values', async () => {
    aws.replies = [
      {
        status: 200,
        body: {
          Items: [
            {
              PK: { B: 'AAH+/w==' },
              set: { BS: ['Bw=='] },
              nested: { M: { B: { L: [{ B: '/v8=' }] } } },
              text: { S: 'B' },
            },
          ],
          LastEvaluatedKey: { PK: { B: 'AAH+/w==' } },
        },
      },
    ];
    const out = await dynamo.send(new QueryCommand({ TableName: 't' }));
    expect(out.Items).toEqual([
      {
        PK: new Uint8Array([0, 1, 254, 255]),
        set: new Set([new Uint8Array([7])]),
        nested: { B: [new Uint8Array([254, 255])] },
        text: 'B',
      },
    ]);
    expect(out.LastEvaluatedKey).toEqual({ PK: new Uint8Array([0, 1, 254, 255]) });
  });

  it('come back decoded whatever the answer holds besides: a set alone, white space, a "B" in a string', async () => {
    aws.replies = [
      {
        status: 200,
        body: '{ "Item" : { "note" : { "S" : "say \\"B\\": \\"x\\"" }, "set" : { "BS" : [ "Bw==" ] } } }',
      },
      { status: 200, body: { Item: { note: { S: 'say "B": "x"' }, list: { L: [{ S: '{"BS":["Bw=="]}' }] } } } },
    ];
    const decoded = await dynamo.send(new GetCommand({ TableName: 't', Key: { PK: 'A' } }));
    expect(decoded.Item).toEqual({ note: 'say "B": "x"', set: new Set([new Uint8Array([7])]) });
    const textOnly = await dynamo.send(new GetCommand({ TableName: 't', Key: { PK: 'A' } }));
    expect(textOnly.Item).toEqual({ note: 'say "B": "x"', list: ['{"BS":["Bw=="]}'] });
  });

  it('a Blob (which cannot be read at once) is refused before anything is sent', async () => {
    await expect(
      dynamo.send(new PutCommand({ TableName: 't', Item: { PK: 'A', file: new Blob(['x']) } })),
    ).rejects.toThrow(/A Blob cannot be sent as a DynamoDB binary attribute/);
    expect(seen).toEqual([]);
  });
});

describe('headers for AWS support and X-Ray', () => {
  it(
    "a User-Agent in the SDK's format, the SDK's invocation id and attempt, and in Lambda the invocation's trace " +
      'header',
    async () => {
      process.env._X_AMZN_TRACE_ID = 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1';
      aws.replies = [
        { status: 500, body: {} },
        { status: 200, body: {} },
      ];
      await dynamo.send(new GetCommand({ TableName: 't', Key: { PK: 'A' } }));
      process.env._X_AMZN_TRACE_ID = 'Root=1-00000000-000000000000000000000001;Sampled=0';
      await dynamo.send(new GetCommand({ TableName: 't', Key: { PK: 'A' } }));
      delete process.env._X_AMZN_TRACE_ID;

      const [first, retry, next] = seen.map((s) => s.headers) as [
        IncomingHttpHeaders,
        IncomingHttpHeaders,
        IncomingHttpHeaders,
      ];
      const runtime = String.raw`lang\/js md\/nodejs#\d+\.\d+\.\d+`;
      expect(first['user-agent']).toMatch(
        new RegExp(
          String.raw`^helpdesk-api ua\/2\.1 os\/\S+ ${runtime} api\/dynamodb exec-env\/AWS_Lambda_nodejs22\.x$`,
        ),
      );
      expect(first['x-amzn-trace-id']).toBe(
        'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1',
      );
      expect(retry['x-amzn-trace-id']).toBe(first['x-amzn-trace-id']);
      expect(next['x-amzn-trace-id']).toBe('Root=1-00000000-000000000000000000000001;Sampled=0');
      expect([first, retry, next].map((h) => h['amz-sdk-request'])).toEqual([
        'attempt=1; max=4',
        'attempt=2; max=4',
        'attempt=1; max=4',
      ]);
      expect(retry['amz-sdk-invocation-id']).toBe(first['amz-sdk-invocation-id']);
      expect(next['amz-sdk-invocation-id']).not.toBe(first['amz-sdk-invocation-id']);
      // Neither is signed (the SDK's signer leaves both out: X-Ray may rewrite the trace header on the way).
      expect(first.authorization).not.toMatch(/user-agent|x-amzn-trace-id/);
    },
  );
});

describe('endpoints', () => {
  const sdkEndpoint = (region: string) =>
    new Sdk.DynamoDBClient({ region }).config.endpointProvider({ Region: region, UseFIPS: false, UseDualStack: false })
      .url.href;
  const standard = { useFipsEndpoint: false, useDualstackEndpoint: false };

  it("is the SDK client's regional endpoint in the aws, aws-cn and aws-us-gov partitions", () => {
    for (const region of [
      'us-east-1',
      'eu-west-1',
      'ap-southeast-5',
      'me-central-1',
      'il-central-1',
      'mx-central-1',
      'ca-west-1',
      'cn-north-1',
      'cn-northwest-1',
      'us-gov-west-1',
      'us-gov-east-1',
    ]) {
      expect(serviceEndpoint('dynamodb', region, undefined, standard).href, region).toBe(sdkEndpoint(region));
    }
  });

  it(
    'refuses other partitions, FIPS and dual-stack with a message that names the way out; an explicit endpoint ' +
      'always works',
    () => {
      for (const region of ['us-iso-east-1', 'us-isob-east-1', 'eu-isoe-west-1', 'us-isof-south-1', 'mars-1']) {
        expect(() => serviceEndpoint('dynamodb', region, undefined, standard), region).toThrow(
          /not in a partition .* set AWS_ENDPOINT_URL_DYNAMODB to the endpoint instead/,
        );
      }
      expect(() => serviceEndpoint('dynamodb', 'us-east-1', undefined, { ...standard, useFipsEndpoint: true })).toThrow(
        "AWS_USE_FIPS_ENDPOINT=true is not supported by the store's dynamodb client (it has no endpoint rules); " +
          'set AWS_ENDPOINT_URL_DYNAMODB to the endpoint instead.',
      );
      expect(() =>
        serviceEndpoint('secretsmanager', 'us-east-1', undefined, { ...standard, useDualstackEndpoint: true }),
      ).toThrow(/AWS_USE_DUALSTACK_ENDPOINT=true .* set AWS_ENDPOINT_URL_SECRETS_MANAGER/);
      expect(
        serviceEndpoint('dynamodb', 'us-east-1', 'https://dynamodb-fips.us-east-1.amazonaws.com', {
          useFipsEndpoint: true,
          useDualstackEndpoint: true,
        }).href,
      ).toBe('https://dynamodb-fips.us-east-1.amazonaws.com/');
    },
  );

  it("in Lambda, such a setting fails the function's init (the store's import), not its first request", async () => {
    const saved = { ...process.env };
    vi.resetModules();
    try {
      Object.assign(process.env, { AWS_USE_FIPS_ENDPOINT: 'true', AWS_REGION: 'us-east-1' });
      delete process.env.AWS_ENDPOINT_URL_DYNAMODB;
      await expect(import('../../shared/aws/clients')).rejects.toThrow(/AWS_USE_FIPS_ENDPOINT=true is not supported/);
      vi.resetModules();
      process.env.AWS_USE_FIPS_ENDPOINT = 'false';
      await expect(import('../../shared/aws/clients')).resolves.toHaveProperty('dynamo');
    } finally {
      process.env = saved;
      vi.resetModules();
    }
  });
});

describe('errors and retries', () => {
  it(
    "throws DynamoDB's error by name, with its message, status, request id and " + 'fields, without retrying it',
    async () => {
      aws.replies = [
        {
          status: 400,
          body: {
            __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
            Message:
              'Transaction cancelled, please refer cancellation reasons for specific reasons [None, ' +
              'ConditionalCheckFailed]',
            CancellationReasons: [
              { Code: 'None' },
              { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' },
            ],
          },
        },
      ];
      const error = await failure(dynamo.send(new TransactWriteCommand({ TransactItems: [] })));
      expect(error).toBeInstanceOf(DynamoDBServiceError);
      expect(error).toMatchObject({
        name: 'TransactionCanceledException',
        message: expect.stringContaining('[None, ConditionalCheckFailed]'),
        $fault: 'client',
        $metadata: { httpStatusCode: 400, requestId: 'req-1', attempts: 1, totalRetryDelay: 0 },
        CancellationReasons: [
          { Code: 'None' },
          { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' },
        ],
      });
      expect(seen).toHaveLength(1);
    },
  );

  it('tries a 5xx, a throttled call and a dropped connection again, up to 4 attempts in all', async () => {
    aws.replies = [
      { status: 500, body: { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'boom' } },
      {
        status: 400,
        body: {
          __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
          message: 'slow down',
        },
      },
      'hang up',
      { status: 200, body: { Item: { PK: { S: 'A' } } } },
    ];
    expect((await dynamo.send(new GetCommand({ TableName: 't', Key: { PK: 'A' } }))).Item).toEqual({ PK: 'A' });
    expect(seen).toHaveLength(4);

    seen.length = 0;
    aws.replies = Array.from({ length: 4 }, () => ({ status: 503, body: {} }));
    const error = await failure(dynamo.send(new GetCommand({ TableName: 't', Key: { PK: 'A' } })));
    expect(error).toMatchObject({ name: 'HTTP503', $fault: 'server', $metadata: { httpStatusCode: 503, attempts: 4 } });
    expect(seen).toHaveLength(4);
  });

  it(
    "a transaction's attempts carry one idempotency token (as the SDK's), so a retry after a lost answer is not " +
      'applied twice',
    async () => {
      aws.replies = ['hang up', { status: 200, body: {} }];
      await dynamo.send(new TransactWriteCommand({ TransactItems: [{ Put: { TableName: 't', Item: { PK: 'A' } } }] }));
      const tokens = seen.map((s) => s.body.ClientRequestToken);
      expect(tokens).toHaveLength(2);
      expect(tokens[0]).toMatch(/^[0-9a-f-]{36}$/);
      expect(tokens[1]).toBe(tokens[0]);

      await dynamo.send(new TransactWriteCommand({ TransactItems: [] }));
      expect(seen[2]!.body.ClientRequestToken).not.toBe(tokens[0]);
      await dynamo.send(new TransactWriteCommand({ TransactItems: [], ClientRequestToken: 'given' }));
      expect(seen[3]!.body.ClientRequestToken).toBe('given');
    },
  );

  it('a conditional write that fails is not tried again', async () => {
    aws.replies = [
      {
        status: 400,
        body: {
          __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException',
          message: 'The conditional request failed',
        },
      },
    ];
    const error = await failure(
      dynamo.send(
        new UpdateCommand({
          TableName: 't',
          Key: { PK: 'A' },
          UpdateExpression: 'SET a = :a',
          ExpressionAttributeValues: { ':a': 1 },
        }),
      ),
    );
    expect(error).toMatchObject({ name: 'ConditionalCheckFailedException', message: 'The conditional request failed' });
    expect(seen).toHaveLength(1);
  });
});

describe('interceptors', () => {
  it('wrap every call outside its retries, or every attempt, first added outermost, and come off again', async () => {
    const order: string[] = [];
    const removals = [
      dynamo.intercept(async ({ operation }, next) => {
        order.push(`call ${operation}`);
        return next();
      }),
      dynamo.intercept(
        async (_call, next) => {
          order.push('attempt');
          return next();
        },
        { eachAttempt: true },
      ),
      dynamo.intercept(async ({ input }, next) => {
        input.ReturnConsumedCapacity = 'TOTAL'; // before the input is marshalled and sent
        const out = await next();
        return { ...out, seen: true };
      }),
    ];
    aws.replies = [
      { status: 500, body: {} },
      { status: 200, body: {} },
    ];
    expect(await dynamo.send(new GetCommand({ TableName: 't', Key: { PK: 'A' } }))).toEqual({ seen: true });
    expect(order).toEqual(['call GetItem', 'attempt', 'attempt']);
    expect(seen.map((s) => s.body.ReturnConsumedCapacity)).toEqual(['TOTAL', 'TOTAL']);

    // One taken off (twice: nothing else comes off with it), then the others.
    removals[2]!();
    removals[2]!();
    order.length = 0;
    expect(await dynamo.send(new GetCommand({ TableName: 't', Key: { PK: 'A' } }))).toEqual({});
    expect(order).toEqual(['call GetItem', 'attempt']);
    removals[0]!();
    removals[1]!();
    order.length = 0;
    expect(await dynamo.send(new GetCommand({ TableName: 't', Key: { PK: 'A' } }))).toEqual({});
    expect(order).toEqual([]);
  });

  it('an interceptor that throws answers for the call, and nothing is sent', async () => {
    const remove = dynamo.intercept(() => {
      throw new DynamoDBServiceError('AccessDeniedException', 'not granted', { httpStatusCode: 400 });
    });
    try {
      await expect(dynamo.send(new GetCommand({ TableName: 't', Key: { PK: 'A' } }))).rejects.toMatchObject({
        name: 'AccessDeniedException',
      });
      expect(seen).toEqual([]);
    } finally {
      remove();
    }
  });
});
