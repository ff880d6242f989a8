/**
 * Calls to AWS JSON protocols without the SDK (shared/store/aws-json.ts, and SQS through it): the
 * request as the service expects it (endpoint, target, content type, SigV4), retries of 5xx and
 * network failures, and the service's error by name.
 */
import { AwsClient } from 'aws4fetch';
import { afterEach, describe, expect, it, vi } from 'vitest';

process.env.AWS_REGION = 'eu-west-1';
process.env.AWS_ACCESS_KEY_ID = 'AKIDEXAMPLE';
process.env.AWS_SECRET_ACCESS_KEY = 'secret';
process.env.AWS_SESSION_TOKEN = 'session';
const { awsJsonCall, AwsServiceError } = await import('../../shared/store/aws-json');
const { sendMessage } = await import('../../shared/store/sqs');

const seen: Request[] = [];
function answer(...replies: (Response | Error)[]) {
  vi.stubGlobal('fetch', (input: URL, init: RequestInit) => {
    seen.push(new Request(input, init));
    const reply = replies.shift()!;
    return reply instanceof Error ? Promise.reject(reply) : Promise.resolve(reply);
  });
}
afterEach(() => {
  seen.length = 0;
  vi.unstubAllGlobals();
});

describe('awsJsonCall', () => {
  it('posts the input to the service of the region, signed, with its target and JSON version', async () => {
    answer(new Response('{"SecretString":"s3cret"}'));
    expect(await awsJsonCall('secretsmanager', 'GetSecretValue', { SecretId: 'arn' })).toEqual({ SecretString: 's3cret' });
    const [request] = seen;
    expect(request!.url).toBe('https://secretsmanager.eu-west-1.amazonaws.com/');
    expect(request!.method).toBe('POST');
    expect(request!.headers.get('x-amz-target')).toBe('secretsmanager.GetSecretValue');
    expect(request!.headers.get('content-type')).toBe('application/x-amz-json-1.1');
    expect(request!.headers.get('authorization')).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/secretsmanager\/aws4_request, /);
    expect(request!.headers.get('x-amz-security-token')).toBe('session');
    expect(await request!.json()).toEqual({ SecretId: 'arn' });
  });

  it('signs as aws4fetch does (signing every header, as this signer does): the same Authorization at the same time', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-11-25T18:00:00Z') });
    try {
      answer(new Response('{}'));
      await awsJsonCall('sqs', 'SendMessage', { QueueUrl: 'q', MessageBody: 'm' });
      const aws4 = new AwsClient({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'session', service: 'sqs', region: 'eu-west-1' });
      const expected = await aws4.sign('https://sqs.eu-west-1.amazonaws.com/', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': 'AmazonSQS.SendMessage' },
        body: JSON.stringify({ QueueUrl: 'q', MessageBody: 'm' }),
        aws: { allHeaders: true },
      });
      expect(seen[0]!.headers.get('x-amz-date')).toBe(expected.headers.get('x-amz-date'));
      expect(seen[0]!.headers.get('authorization')).toBe(expected.headers.get('authorization'));
    } finally {
      vi.useRealTimers();
    }
  });

  it('tries again after a 5xx or a failed connection, up to 3 attempts', async () => {
    answer(new Response('', { status: 503 }), new TypeError('fetch failed'), new Response('{}'));
    expect(await awsJsonCall('sqs', 'SendMessage', {})).toEqual({});
    expect(seen).toHaveLength(3);

    answer(new Response('', { status: 500 }), new Response('', { status: 500 }), new Response('', { status: 500 }));
    await expect(awsJsonCall('sqs', 'SendMessage', {})).rejects.toMatchObject({ name: 'HTTP500', $metadata: { httpStatusCode: 500 } });
    expect(seen).toHaveLength(6);
  });

  it("throws the service's error by name, without retrying a 4xx; one attempt when asked", async () => {
    answer(new Response(JSON.stringify({ __type: 'com.amazonaws.sqs#QueueDoesNotExist', message: 'The specified queue does not exist.' }), { status: 400 }));
    const error = await awsJsonCall('sqs', 'SendMessage', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AwsServiceError);
    expect(error).toMatchObject({ name: 'QueueDoesNotExist', message: 'sqs SendMessage failed: QueueDoesNotExist: The specified queue does not exist.' });
    expect(seen).toHaveLength(1);

    answer(new TypeError('fetch failed'));
    await expect(awsJsonCall('secretsmanager', 'GetSecretValue', {}, { attempts: 1 })).rejects.toMatchObject({ name: 'NetworkingError' });
    expect(seen).toHaveLength(2);
  });
});

describe('SQS', () => {
  it("sends to the queue's own region, with the SQS JSON protocol", async () => {
    answer(new Response('{"MessageId":"1"}'));
    await sendMessage('https://sqs.us-east-2.amazonaws.com/123456789012/deliveries', '{"delivery":"d1"}', 60);
    const [request] = seen;
    expect(request!.url).toBe('https://sqs.us-east-2.amazonaws.com/');
    expect(request!.headers.get('x-amz-target')).toBe('AmazonSQS.SendMessage');
    expect(request!.headers.get('content-type')).toBe('application/x-amz-json-1.0');
    expect(request!.headers.get('authorization')).toContain('/us-east-2/sqs/aws4_request');
    expect(await request!.json()).toEqual({ QueueUrl: 'https://sqs.us-east-2.amazonaws.com/123456789012/deliveries', MessageBody: '{"delivery":"d1"}', DelaySeconds: 60 });
  });
});
