/**
 * The RDS Data API without the SDK (shared/aws/rds-data.ts), held to the SDK's client it replaces:
 * both send the same calls to a loopback server standing in for the Data API, which must see the
 * same requests (method, path, content type, signing scope, JSON body) and whose answers both must
 * read the same way (records, a transaction id, an error's name). Then the search engine's driver on
 * it (shared/search/data-api.ts): a resuming cluster is SearchEngineUnavailable, never another error.
 */
import {
  BeginTransactionCommand,
  CommitTransactionCommand,
  ExecuteStatementCommand,
  RDSDataClient,
  RollbackTransactionCommand,
} from '@aws-sdk/client-rds-data';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startAwsStandIn, type Reply, type Seen } from './aws-stand-in';

const stand = await startAwsStandIn();
process.env.AWS_REGION = 'eu-west-1';
process.env.AWS_ACCESS_KEY_ID = 'AKIDEXAMPLE';
process.env.AWS_SECRET_ACCESS_KEY = 'secret';
process.env.AWS_ENDPOINT_URL_RDS_DATA = stand.endpoint;
const { rdsData } = await import('../../shared/aws/rds-data');
const { dataApiDriver, RESUME_SECONDS } = await import('../../shared/search/data-api');
const { SearchEngineUnavailable } = await import('../../shared/search/driver');

const sdk = new RDSDataClient({
  region: 'eu-west-1',
  endpoint: stand.endpoint,
  credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
  maxAttempts: 1,
});
afterEach(() => {
  stand.seen.length = 0;
  stand.replies = [];
  stand.always = undefined;
});
afterAll(async () => {
  sdk.destroy();
  await stand.close();
});

const target = {
  resourceArn: 'arn:aws:rds:eu-west-1:123456789012:cluster:helpdesk-search',
  secretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:helpdesk-search-abc',
};
/** What of a request both clients must agree on (the SDK's own headers, user agent and signature aside). */
const wire = ({ path, headers, body }: Seen) => ({
  path,
  contentType: headers['content-type'],
  scope: /Credential=AKIDEXAMPLE\/\d{8}\/([^/]+\/[^/]+)\/aws4_request/.exec(String(headers.authorization))?.[1],
  body,
});
/** Sends the same call through both clients, each answered `reply`; the two requests and the two outcomes. */
async function both<T>(reply: Reply, ours: () => Promise<T>, theirs: () => Promise<T>) {
  const outcome = (call: () => Promise<T>) =>
    call().then(
      (value) => ({ value }),
      (error: Error) => ({ error: error.name }),
    );
  stand.replies = [reply];
  const mine = await outcome(ours);
  stand.replies = [reply];
  const sdks = await outcome(theirs);
  const [a, b] = stand.seen.map(wire);
  return { requests: [a, b], outcomes: [mine, sdks] };
}

describe('the Data API client, beside the SDK', () => {
  it('sends ExecuteStatement as the SDK does, and reads its records the same', async () => {
    const input = {
      ...target,
      database: 'helpdesk',
      sql: 'SELECT id FROM search_tickets WHERE id = CAST(:id AS bigint) AND NOT CAST(:merged AS boolean)',
      parameters: [
        { name: 'id', value: { stringValue: '42' } },
        { name: 'merged', value: { booleanValue: false } },
        { name: 'email', value: { isNull: true as const } },
      ],
      formatRecordsAs: 'JSON' as const,
      transactionId: 'tx-1',
    };
    const reply = { status: 200, body: { formattedRecords: '[{"id":42}]', numberOfRecordsUpdated: 0 } };
    const { requests, outcomes } = await both(
      reply,
      async () => (await rdsData('ExecuteStatement', input)).formattedRecords,
      async () => (await sdk.send(new ExecuteStatementCommand(input))).formattedRecords,
    );
    expect(requests[0]).toEqual(requests[1]);
    expect(requests[0]).toMatchObject({
      path: '/Execute',
      contentType: 'application/json',
      scope: 'eu-west-1/rds-data',
    });
    expect(outcomes).toEqual([{ value: '[{"id":42}]' }, { value: '[{"id":42}]' }]);
  });

  it('begins, commits and rolls back a transaction as the SDK does', async () => {
    const begin = await both(
      { status: 200, body: { transactionId: 'tx-9' } },
      async () => (await rdsData('BeginTransaction', { ...target, database: 'helpdesk' })).transactionId,
      async () => (await sdk.send(new BeginTransactionCommand({ ...target, database: 'helpdesk' }))).transactionId,
    );
    expect(begin.requests[0]).toEqual(begin.requests[1]);
    expect(begin.requests[0]!.path).toBe('/BeginTransaction');
    expect(begin.outcomes).toEqual([{ value: 'tx-9' }, { value: 'tx-9' }]);
    stand.seen.length = 0;
    const ends = { ...target, transactionId: 'tx-9' };
    const commit = await both(
      { status: 200, body: { transactionStatus: 'Transaction Committed' } },
      async () => (await rdsData('CommitTransaction', ends)).transactionStatus,
      async () => (await sdk.send(new CommitTransactionCommand(ends))).transactionStatus,
    );
    expect(commit.requests[0]).toEqual(commit.requests[1]);
    expect(commit.requests[0]!.path).toBe('/CommitTransaction');
    expect(commit.outcomes[0]).toEqual(commit.outcomes[1]);
    stand.seen.length = 0;
    const rollback = await both(
      { status: 200, body: { transactionStatus: 'Rollback Complete' } },
      async () => (await rdsData('RollbackTransaction', ends)).transactionStatus,
      async () => (await sdk.send(new RollbackTransactionCommand(ends))).transactionStatus,
    );
    expect(rollback.requests[0]).toEqual(rollback.requests[1]);
    expect(rollback.requests[0]!.path).toBe('/RollbackTransaction');
  });

  it.each([
    [
      'the error type header',
      { 'x-amzn-errortype': 'DatabaseResumingException:http://internal.amazon.com/coral/com.amazon.rdsdataservice/' },
      { message: 'The database is resuming' },
    ],
    ['the body', {}, { code: 'DatabaseResumingException', message: 'The database is resuming' }],
  ])('names an error the Data API answers as the SDK does, from %s', async (_, headers, body) => {
    const { outcomes } = await both(
      { status: 400, headers, body },
      () => rdsData('ExecuteStatement', { ...target, sql: 'SELECT 1' }),
      () => sdk.send(new ExecuteStatementCommand({ ...target, sql: 'SELECT 1' })),
    );
    expect(outcomes).toEqual([{ error: 'DatabaseResumingException' }, { error: 'DatabaseResumingException' }]);
  });
});

describe('the search engine on the Data API', () => {
  const driver = dataApiDriver({ clusterArn: target.resourceArn, secretArn: target.secretArn, database: 'helpdesk' });
  const resuming: Reply = {
    status: 400,
    headers: { 'x-amzn-errortype': 'DatabaseResumingException' },
    body: { message: 'The database is resuming' },
  };

  it('binds named parameters, and reads the JSON records', async () => {
    stand.replies = [{ status: 200, body: { formattedRecords: '[{"total":3,"id":7}]' } }];
    const rows = await driver.query({ sql: 'SELECT :a AS a, :b AS b', params: { a: 'x', b: true } });
    expect(rows).toEqual([{ total: 3, id: 7 }]);
    expect(stand.seen[0]!.body).toMatchObject({
      sql: 'SELECT CAST(:a AS text) AS a, CAST(:b AS boolean) AS b',
      parameters: [
        { name: 'a', value: { stringValue: 'x' } },
        { name: 'b', value: { booleanValue: true } },
      ],
      formatRecordsAs: 'JSON',
      database: 'helpdesk',
    });
  });

  it('meets a resuming cluster with SearchEngineUnavailable (a 503 with Retry-After), tried once', async () => {
    stand.always = resuming;
    const failure = await driver.query({ sql: 'SELECT 1' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SearchEngineUnavailable);
    expect((failure as InstanceType<typeof SearchEngineUnavailable>).retryAfterSeconds).toBe(RESUME_SECONDS);
    expect(stand.seen).toHaveLength(1);
    await expect(driver.transaction([{ sql: 'SELECT 1' }])).rejects.toBeInstanceOf(SearchEngineUnavailable);
  });

  it('rolls a transaction back when one of its statements fails', async () => {
    stand.replies = [
      { status: 200, body: { transactionId: 'tx-3' } },
      { status: 200, body: {} },
      { status: 400, body: { code: 'BadRequestException', message: 'syntax error' } },
      { status: 200, body: { transactionStatus: 'Rollback Complete' } },
    ];
    await expect(driver.transaction([{ sql: 'SELECT 1' }, { sql: 'SELEC 2' }])).rejects.toMatchObject({
      name: 'BadRequestException',
    });
    expect(stand.seen.map((s) => s.path)).toEqual([
      '/BeginTransaction',
      '/Execute',
      '/Execute',
      '/RollbackTransaction',
    ]);
    expect(stand.seen[2]!.body).toMatchObject({ transactionId: 'tx-3' });
  });
});
