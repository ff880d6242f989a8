/**
 * The store's DynamoDB client (shared/aws/dynamodb.ts, aws-request.ts) held to the SDK's client it
 * stands in for (@aws-sdk/client-dynamodb, installed for this and the local runtime), both sending to
 * one loopback server: on a table of answered errors (every error class of DynamoDB's model among
 * them) and of network failures, the retry strategy is told the same kind of error by both; the
 * retry settings are the ones the SDK's client resolves; a brownout costs the same number of
 * requests (the retry budget); a clock that is off is corrected from the answer's Date and the call
 * signed again, as by the SDK. A change of the SDK's rules (a new retryable error, other delays) or
 * of ours fails here.
 */
import { createServer, Agent, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import * as Sdk from '@aws-sdk/client-dynamodb';
import { StandardRetryStrategy } from '@smithy/util-retry';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { DYNAMODB_RETRIES } from '../../shared/aws/clients';
import type { RetryErrorType, RetryStrategy } from '../../shared/aws/aws-request';
import { DynamoDB, GetCommand } from '../../shared/aws/dynamodb';
import { startAwsStandIn, type Reply } from './aws-stand-in';

process.env.AWS_REGION = 'eu-west-1';
process.env.AWS_ACCESS_KEY_ID = 'AKIDEXAMPLE';
process.env.AWS_SECRET_ACCESS_KEY = 'secret';
delete process.env.AWS_SESSION_TOKEN;
const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' };

const aws = await startAwsStandIn();
const { seen } = aws;
const transport = {
  attemptMs: 2_000,
  agents: { http: new Agent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) },
};

const endpoint = aws.endpoint;
afterAll(() => aws.close());
beforeEach(() => {
  seen.length = 0;
  aws.replies = [];
  aws.always = undefined;
});

/** A strategy that records what it is told of each failure and never retries. */
function recording(): { strategy: RetryStrategy; told: RetryErrorType[] } {
  const told: RetryErrorType[] = [];
  const token: Awaited<ReturnType<RetryStrategy['acquireInitialRetryToken']>> = {
    getRetryCount: () => 0,
    getRetryDelay: () => 0,
    getRetryCost: () => undefined,
  };
  const strategy: RetryStrategy = {
    acquireInitialRetryToken: () => Promise.resolve(token),
    refreshRetryTokenForRetry: (_token, info) => {
      told.push(info.errorType);
      return Promise.reject(new Error('no retry'));
    },
    recordSuccess: () => undefined,
  };
  return { strategy, told };
}

/** Each client's GetItem, its retries decided by `strategy`; `fail` (when given) throws in place of the network. */
const clients = {
  sdk(strategy?: RetryStrategy, fail?: () => Error, url = endpoint) {
    const client = new Sdk.DynamoDBClient({
      region: 'eu-west-1',
      endpoint: url,
      credentials,
      ...(strategy ? { retryStrategy: strategy } : {}),
      ...(fail ? { requestHandler: { handle: () => Promise.reject(fail()) } } : {}),
    });
    return () => client.send(new Sdk.GetItemCommand({ TableName: 't', Key: { PK: { S: 'a' } } }));
  },
  ours(strategy: RetryStrategy = new StandardRetryStrategy(DYNAMODB_RETRIES), fail?: () => Error, url = endpoint) {
    const client = new DynamoDB(() => ({
      endpoint: url,
      region: 'eu-west-1',
      retryStrategy: strategy,
      maxAttempts: DYNAMODB_RETRIES.maxAttempts,
      transport,
    }));
    if (fail) client.intercept(() => Promise.reject(fail()), { eachAttempt: true });
    return () => client.send(new GetCommand({ TableName: 't', Key: { PK: 'a' } }));
  },
};

/** What each client's strategy is told of the failure of one call. */
async function classified(
  answer: Reply | undefined,
  fail?: () => Error,
  url?: string,
): Promise<{ sdk: RetryErrorType[]; ours: RetryErrorType[] }> {
  const result = { sdk: [] as RetryErrorType[], ours: [] as RetryErrorType[] };
  for (const which of ['sdk', 'ours'] as const) {
    const { strategy, told } = recording();
    if (answer) aws.replies = [answer];
    await clients[which](strategy, fail, url)().catch(() => undefined);
    result[which] = told;
  }
  return result;
}

const typed = (name: string, message = 'message') => ({ __type: `com.amazonaws.dynamodb.v20120810#${name}`, message });

/** DynamoDB's modeled errors, by the SDK client's classes. */
const MODELED = Object.entries(Sdk)
  .filter(([, value]) => typeof value === 'function' && value.prototype instanceof Sdk.DynamoDBServiceException)
  .map(([name]) => name);

const ANSWERS: [string, Reply][] = [
  ...MODELED.map((name): [string, Reply] => [
    name,
    { status: name === 'InternalServerError' ? 500 : 400, body: typed(name) },
  ]),
  ['a 500 without a body the service wrote', { status: 500, body: '<html>oops</html>' }],
  ['502', { status: 502, body: '' }],
  ['503', { status: 503, body: typed('ServiceUnavailable') }],
  ['504', { status: 504, body: '' }],
  ['501', { status: 501, body: '' }],
  ['429 without a name', { status: 429, body: '' }],
  [
    'a signature that expired',
    {
      status: 400,
      body: typed('InvalidSignatureException', 'Signature expired: 20260101T000000Z is now earlier than ...'),
    },
  ],
  [
    'a signature that does not match',
    { status: 400, body: typed('InvalidSignatureException', 'The request signature we calculated does not match') },
  ],
  ['AccessDeniedException', { status: 400, body: typed('AccessDeniedException') }],
  ['UnrecognizedClientException', { status: 400, body: typed('UnrecognizedClientException') }],
  ['ValidationException', { status: 400, body: typed('ValidationException') }],
  ['RequestTimeout', { status: 400, body: typed('RequestTimeout') }],
];

const networkError =
  (code: string, message = `connect ${code}`) =>
  () =>
    Object.assign(new Error(message), { code });
const FAILURES: [string, () => Error][] = [
  ...[
    'ECONNRESET',
    'ECONNREFUSED',
    'EPIPE',
    'ETIMEDOUT',
    'EHOSTUNREACH',
    'ENETUNREACH',
    'ENOTFOUND',
    'EAI_AGAIN',
    'ECONNABORTED',
    'EPROTO',
  ].map((code): [string, () => Error] => [code, networkError(code)]),
  ['a TimeoutError', () => Object.assign(new Error('Connection timed out after 2000 ms'), { name: 'TimeoutError' })],
  ['an AbortError', () => Object.assign(new Error('aborted'), { name: 'AbortError' })],
  [
    'an error whose cause is a dropped connection',
    () => new TypeError('fetch failed', { cause: networkError('ECONNRESET')() }),
  ],
  ['an error whose cause is a DNS failure', () => new Error('wrapped', { cause: networkError('EAI_AGAIN')() })],
  ['an error with a retryable trait', () => Object.assign(new Error('x'), { $retryable: {} })],
  [
    'an HTTP/2 stream refused',
    () =>
      Object.assign(new Error('Stream closed with error code NGHTTP2_REFUSED_STREAM'), {
        code: 'ERR_HTTP2_STREAM_ERROR',
      }),
  ],
  ['a plain Error', () => new Error('something else')],
];

describe('error classification, against the SDK client', () => {
  it.each(ANSWERS)('an answered %s', async (_name, answer) => {
    const { sdk, ours } = await classified(answer);
    expect(sdk).toHaveLength(1);
    expect(ours).toEqual(sdk);
  });

  it.each(FAILURES)('%s', async (_name, fail) => {
    const { sdk, ours } = await classified(undefined, fail);
    expect(sdk).toHaveLength(1);
    expect(ours).toEqual(sdk);
  });

  it(
    'a real connection refused (a closed port), and DNS and routing failures are retried (today, not a 500 on ' +
      'the first try)',
    async () => {
      const closed = createServer();
      await new Promise<void>((listening) => closed.listen(0, '127.0.0.1', listening));
      const url = `http://127.0.0.1:${(closed.address() as { port: number }).port}`;
      await new Promise((done) => closed.close(done));
      const { sdk, ours } = await classified(undefined, undefined, url);
      expect(ours).toEqual(sdk);
      expect(ours).toEqual(['TRANSIENT']);
      for (const code of ['EAI_AGAIN', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH']) {
        expect((await classified(undefined, networkError(code))).ours, code).toEqual(['TRANSIENT']);
      }
    },
  );

  it('every modeled error was in the table (a new one in the SDK is compared too)', () => {
    expect(MODELED).toContain('ReplicatedWriteConflictException');
    expect(MODELED.length).toBeGreaterThan(30);
  });
});

describe("the SDK's retry strategy", () => {
  it("has the SDK DynamoDB client's settings: its attempts and backoff base", async () => {
    const config = new Sdk.DynamoDBClient({ region: 'eu-west-1', credentials }).config;
    const strategy = (await config.retryStrategy()) as unknown as { baseDelay: number; mode: string };
    expect(await config.maxAttempts()).toBe(DYNAMODB_RETRIES.maxAttempts);
    expect(strategy.baseDelay).toBe(DYNAMODB_RETRIES.baseDelay);
    expect(strategy.mode).toBe('standard');
    expect(strategy).toBeInstanceOf(StandardRetryStrategy);
  });

  it(
    'a brownout (every answer a 500) costs as many requests as with the SDK ' + 'client: the retry budget runs out',
    async () => {
      aws.always = { status: 500, body: typed('InternalServerError') };
      const calls = 15;
      const requests = { sdk: 0, ours: 0 };
      for (const which of ['sdk', 'ours'] as const) {
        seen.length = 0;
        const call = which === 'sdk' ? clients.sdk() : clients.ours();
        for (let i = 0; i < calls; i++) await call().catch(() => undefined);
        requests[which] = seen.length;
      }
      expect(requests.ours).toBe(requests.sdk);
      // Not 4 attempts each (60): once the budget is spent, a failing call is tried once.
      expect(requests.ours).toBeLessThan(calls * DYNAMODB_RETRIES.maxAttempts);
      expect(requests.ours).toBeGreaterThan(calls);
    },
  );
});

describe('clock skew, against the SDK client', () => {
  const skewMs = 10 * 60_000;
  /** The server's clock is 10 minutes ahead: it refuses a request signed more than 5 minutes off. */
  function skewedReplys() {
    const serverNow = new Date(Date.now() + skewMs).toUTCString();
    aws.replies = [
      {
        status: 400,
        body: typed('InvalidSignatureException', 'Signature not yet current: 20261127T100000Z is still later than ...'),
        headers: { date: serverNow },
      },
      { status: 200, body: {}, headers: { date: serverNow } },
    ];
  }
  const signedAt = (headers: IncomingHttpHeaders) =>
    Date.parse(
      String(headers['x-amz-date']).replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z'),
    );

  it('the offset is taken from Date and the call signed again at the corrected time, by both', async () => {
    const offsets: Record<string, number[]> = {};
    for (const which of ['sdk', 'ours'] as const) {
      seen.length = 0;
      skewedReplys();
      const started = Date.now();
      await clients[which]()();
      offsets[which] = seen.map(({ headers }) => Math.abs(Math.round((signedAt(headers) - started) / 60_000)));
    }
    expect(offsets.sdk).toEqual([0, 10]);
    expect(offsets.ours).toEqual(offsets.sdk);
  });

  it('a signature refused while the clocks agree is not retried, by either', async () => {
    const { ours, sdk } = await classified({
      status: 400,
      body: typed('InvalidSignatureException', 'Signature not yet current'),
    });
    expect(ours).toEqual(sdk);
    expect(ours).toEqual(['CLIENT_ERROR']);
  });
});
