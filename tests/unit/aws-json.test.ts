/**
 * Calls to AWS JSON protocols without the SDK (shared/aws/aws-json.ts, and SQS through it), against
 * a loopback server standing in for the service: the request as the service expects it (target,
 * content type, SigV4 as aws4fetch signs it), the SDK's retries of 5xx and dropped connections, and
 * the service's error by name.
 */
import { AwsClient } from 'aws4fetch';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startAwsStandIn, type Seen } from './aws-stand-in';

const aws = await startAwsStandIn();
const { seen } = aws;
const endpoint = `${aws.endpoint}/`;

Object.assign(process.env, {
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'secret',
  AWS_SESSION_TOKEN: 'session',
  AWS_ENDPOINT_URL_SQS: endpoint,
  AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoint,
});
const { awsJsonCall, AwsServiceError } = await import('../../shared/aws/aws-json');
const { sendMessage } = await import('../../shared/aws/sqs');

beforeEach(() => {
  seen.length = 0;
  aws.replies = [];
});
afterAll(() => aws.close());

describe('awsJsonCall', () => {
  it('posts the input to the service, signed for the region, with its target and JSON version', async () => {
    aws.replies = [{ status: 200, body: '{"SecretString":"s3cret"}' }];
    expect(await awsJsonCall('secretsmanager', 'GetSecretValue', { SecretId: 'arn' })).toEqual({
      SecretString: 's3cret',
    });
    const [{ headers, body }] = seen as [Seen];
    expect(headers['x-amz-target']).toBe('secretsmanager.GetSecretValue');
    expect(headers['content-type']).toBe('application/x-amz-json-1.1');
    expect(headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/secretsmanager\/aws4_request, /,
    );
    expect(headers['x-amz-security-token']).toBe('session');
    expect(headers['user-agent']).toMatch(/^helpdesk-api ua\/2\.1 .* api\/secrets_manager/);
    expect(body).toEqual({ SecretId: 'arn' });
  });

  it('signs as aws4fetch does (every header): the same Authorization at the same time', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-11-25T18:00:00Z') });
    try {
      await awsJsonCall('sqs', 'SendMessage', { QueueUrl: 'q', MessageBody: 'm' });
      const [{ headers }] = seen as [Seen];
      const aws4 = new AwsClient({
        accessKeyId: 'AKIDEXAMPLE',
        secretAccessKey: 'secret',
        sessionToken: 'session',
        service: 'sqs',
        region: 'eu-west-1',
      });
      const expected = await aws4.sign(endpoint, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-amz-json-1.0',
          'X-Amz-Target': 'AmazonSQS.SendMessage',
          'amz-sdk-invocation-id': String(headers['amz-sdk-invocation-id']),
          'amz-sdk-request': 'attempt=1; max=3',
        },
        body: JSON.stringify({ QueueUrl: 'q', MessageBody: 'm' }),
        aws: { allHeaders: true },
      });
      expect(headers['x-amz-date']).toBe(expected.headers.get('x-amz-date'));
      expect(headers.authorization).toBe(expected.headers.get('authorization'));
    } finally {
      vi.useRealTimers();
    }
  });

  it('tries again after a 5xx or a dropped connection, up to 3 attempts, with one invocation id', async () => {
    aws.replies = [{ status: 503 }, 'hang up', { status: 200, body: '{}' }];
    expect(await awsJsonCall('sqs', 'SendMessage', {})).toEqual({});
    expect(seen.map((s) => s.headers['amz-sdk-request'])).toEqual([
      'attempt=1; max=3',
      'attempt=2; max=3',
      'attempt=3; max=3',
    ]);
    expect(new Set(seen.map((s) => s.headers['amz-sdk-invocation-id'])).size).toBe(1);

    seen.length = 0;
    aws.replies = [{ status: 500 }, { status: 500 }, { status: 500 }];
    await expect(awsJsonCall('sqs', 'SendMessage', {})).rejects.toMatchObject({
      name: 'HTTP500',
      $metadata: { httpStatusCode: 500 },
    });
    expect(seen).toHaveLength(3);
  });

  it("throws the service's error by name, without retrying a 4xx; one attempt when asked", async () => {
    aws.replies = [
      {
        status: 400,
        body: JSON.stringify({
          __type: 'com.amazonaws.sqs#QueueDoesNotExist',
          message: 'The specified queue does not exist.',
        }),
      },
    ];
    const error = await awsJsonCall('sqs', 'SendMessage', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AwsServiceError);
    expect(error).toMatchObject({
      name: 'QueueDoesNotExist',
      message: 'sqs SendMessage failed: QueueDoesNotExist: The specified queue does not exist.',
    });
    expect(seen).toHaveLength(1);

    aws.replies = ['hang up'];
    await expect(awsJsonCall('secretsmanager', 'GetSecretValue', {}, { attempts: 1 })).rejects.toMatchObject({
      name: 'NetworkingError',
      code: 'ECONNRESET',
    });
    expect(seen).toHaveLength(2);
  });
});

describe('SQS', () => {
  it("signs for the queue's own region, with the SQS JSON protocol", async () => {
    aws.replies = [{ status: 200, body: '{"MessageId":"1"}' }];
    await sendMessage('https://sqs.us-east-2.amazonaws.com/123456789012/deliveries', '{"delivery":"d1"}', 60);
    const [{ headers, body }] = seen as [Seen];
    expect(headers['x-amz-target']).toBe('AmazonSQS.SendMessage');
    expect(headers['content-type']).toBe('application/x-amz-json-1.0');
    expect(headers.authorization).toContain('/us-east-2/sqs/aws4_request');
    expect(body).toEqual({
      QueueUrl: 'https://sqs.us-east-2.amazonaws.com/123456789012/deliveries',
      MessageBody: '{"delivery":"d1"}',
      DelaySeconds: 60,
    });
  });
});
