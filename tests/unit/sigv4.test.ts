/**
 * signPost (shared/aws/sigv4.ts), the signer of every JSON-protocol POST, gives the headers the SDK's
 * own signer (@smithy/signature-v4, as awsSigner configures it) gives the same request at the same time
 * with the same credentials: this fails when the two drift.
 */
import { afterEach, describe, expect, it } from 'vitest';

process.env.AWS_REGION = 'eu-west-1';
process.env.AWS_ACCESS_KEY_ID = 'AKIDEXAMPLE';
process.env.AWS_SECRET_ACCESS_KEY = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY';
delete process.env.AWS_SESSION_TOKEN;
const { awsSigner, presignS3Get, signPost, useCredentials } = await import('../../shared/aws/sigv4');
type Post = Parameters<typeof signPost>[0];

const QUERY_BODY = JSON.stringify({
  TableName: 'helpdesk',
  KeyConditionExpression: '#pk = :pk',
  ExpressionAttributeValues: { ':pk': { S: 'TICKET#42' } },
});

function post(overrides: Partial<Post> = {}): Post {
  return {
    service: 'dynamodb',
    region: 'eu-west-1',
    path: '/',
    headers: {
      host: 'dynamodb.eu-west-1.amazonaws.com',
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': 'DynamoDB_20120810.Query',
      'amz-sdk-invocation-id': '6f0e8f3a-2a4b-4c0e-9d51-0b6a3c1d2e4f',
      'amz-sdk-request': 'attempt=1; max=3',
      'user-agent': 'helpdesk-api ua/2.1 os/linux#6.1 lang/js md/nodejs#22.23.3 api/dynamodb#3',
    },
    body: QUERY_BODY,
    date: new Date('2026-11-30T23:59:59.999Z'),
    ...overrides,
  };
}

/** The SDK's signer's headers for the same request. */
async function bySdk({ service, region, path, headers, body, date }: Post): Promise<Record<string, string>> {
  const url = new URL(`https://${headers.host}`);
  const signed = await awsSigner(service, region).sign(
    { method: 'POST', protocol: url.protocol, hostname: url.hostname, path, query: {}, headers, body },
    { signingDate: date },
  );
  return signed.headers;
}

afterEach(() => useCredentials(undefined));

describe('signPost, held to the SDK signer', () => {
  const cases: [string, Partial<Post>][] = [
    ['a DynamoDB Query', {}],
    [
      'unsigned headers left unsigned (the trace header, proxy-* and sec-*), whitespace in values folded',
      {
        headers: {
          ...post().headers,
          'x-amzn-trace-id': 'Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1',
          'proxy-authorization': 'Basic abc',
          'sec-fetch-mode': 'cors',
          'x-amz-target': '  DynamoDB_20120810.Query  ',
          'amz-sdk-request': 'attempt=2;    max=3',
        },
      },
    ],
    [
      'an authorization or date header given is replaced, not signed',
      { headers: { ...post().headers, authorization: 'stale', date: 'Mon, 30 Nov 2026 23:00:00 GMT' } },
    ],
    ['a body of non-ASCII text', { body: JSON.stringify({ title: 'Café crème – 10 € ✓' }) }],
    [
      "SES v2's REST path, escaped and with dot segments",
      {
        service: 'ses',
        region: 'us-east-1',
        path: "/v2/email/./identities/../identities/ann+o'brien@example.com/",
        headers: { host: 'email.us-east-1.amazonaws.com', 'content-type': 'application/json' },
      },
    ],
    ['SQS at midnight UTC', { service: 'sqs', date: new Date('2026-12-01T00:00:00.000Z') }],
  ];
  it.each(cases)('%s', async (_, overrides) => {
    const request = post(overrides);
    expect(await signPost(request)).toEqual(await bySdk(request));
  });

  it('signs each day with its own key: the kept key of the day before is not reused', async () => {
    const before = post({ date: new Date('2026-11-30T23:59:59.000Z') });
    const after = post({ date: new Date('2026-12-01T00:00:01.000Z') });
    expect(await signPost(before)).toEqual(await bySdk(before));
    expect(await signPost(after)).toEqual(await bySdk(after));
  });

  it('a session token is sent and signed; credentials that change are signed with, not the kept key', async () => {
    const rotating = [
      { accessKeyId: 'ASIAFIRST', secretAccessKey: 'first-secret', sessionToken: 'token-1' },
      { accessKeyId: 'ASIASECOND', secretAccessKey: 'second-secret', sessionToken: 'token-2' },
    ];
    let current = rotating[0]!;
    useCredentials(() => Promise.resolve(current));
    const first = await signPost(post());
    expect(first['x-amz-security-token']).toBe('token-1');
    expect(first.authorization).toContain('SignedHeaders=amz-sdk-invocation-id;amz-sdk-request;');
    expect(first.authorization).toContain(';x-amz-security-token;x-amz-target,');
    expect(first).toEqual(await bySdk(post()));
    current = rotating[1]!;
    const second = await signPost(post());
    expect(second.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=ASIASECOND\//);
    expect(second).toEqual(await bySdk(post()));
  });
});

describe('presignS3Get, held to the SDK presign', () => {
  type Get = Parameters<typeof presignS3Get>[0];
  const get = (overrides: Partial<Get> = {}): Get => ({
    region: 'eu-west-1',
    host: 'helpdesk-files.s3.eu-west-1.amazonaws.com',
    path: '/attachments/42/6f0e8f3a-2a4b-4c0e-9d51-0b6a3c1d2e4f',
    query: {},
    expiresIn: 300,
    date: new Date('2026-11-30T23:59:59.999Z'),
    ...overrides,
  });
  /** The SDK's presigned query for the same link, configured as s3.ts presigned before presignS3Get. */
  async function bySdk({ region, host, path, query, expiresIn, date }: Get): Promise<Record<string, unknown>> {
    const [hostname, port] = host.split(':');
    const signed = await awsSigner('s3', region).presign(
      {
        method: 'GET',
        protocol: 'https:',
        hostname: hostname!,
        ...(port ? { port: Number(port) } : {}),
        path,
        query,
        headers: { host, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
      },
      {
        expiresIn,
        signingDate: date,
        unsignableHeaders: new Set(['x-amz-content-sha256']),
        unhoistableHeaders: new Set(['x-amz-content-sha256']),
      },
    );
    return signed.query ?? {};
  }

  const cases: [string, Partial<Get>][] = [
    ['an object, no overrides', {}],
    [
      "a download: the file's name (spaces, quotes, non-ASCII) and type in the response overrides",
      {
        query: {
          'response-content-disposition': `attachment; filename="Q3 report (final)_.pdf"; filename*=UTF-8''Q3%20report`,
          'response-content-type': 'application/pdf; charset=utf-8',
        },
      },
    ],
    [
      "a parked answer on the local S3 engine's port, path-style, valid a week",
      {
        host: '127.0.0.1:4569',
        path: '/helpdesk-local/answers/1b4e28ba-2fa1-11d2-883f-0016d3cca427.json',
        query: { 'response-content-type': 'application/json' },
        expiresIn: 604_800,
      },
    ],
    ["a key with S3's escapes (each segment escaped once)", { path: '/attachments/7/na%C3%AFve%20%2B%20more' }],
  ];
  it.each(cases)('%s', async (_, overrides) => {
    expect(await presignS3Get(get(overrides))).toEqual(await bySdk(get(overrides)));
  });

  it('a session token is put in the query and signed', async () => {
    useCredentials({ accessKeyId: 'ASIATEMP', secretAccessKey: 'temp-secret', sessionToken: 'token/with+slash=' });
    const signed = await presignS3Get(get());
    expect(signed['X-Amz-Security-Token']).toBe('token/with+slash=');
    expect(signed).toEqual(await bySdk(get()));
  });
});
