import { describe, expect, it } from 'vitest';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { errorResponse } from '../../shared/middleware';
import { MissingTicket } from '../../shared/store/tickets';
import { MissingQueue } from '../../shared/store/queues';

const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: { httpStatusCode: 400 },
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

describe('errorResponse: failing dependencies are a retryable 503', () => {
  it.each([
    ['a transaction cancelled by throttling', cancelled('None', 'ThrottlingError')],
    ['a transaction in conflict with another', cancelled('TransactionConflict', 'None')],
    [
      'a network failure on S3',
      Object.assign(new Error('S3 PutObject failed: fetch failed'), { name: 'S3NetworkError' }),
    ],
    ['a dropped DynamoDB connection', Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })],
    [
      'S3 throttling',
      Object.assign(new Error('S3 PutObject failed: SlowDown'), {
        name: 'SlowDown',
        $metadata: { httpStatusCode: 503 },
      }),
    ],
    [
      'a 5xx after the retries',
      Object.assign(new Error('internal'), { name: 'InternalServerError', $metadata: { httpStatusCode: 500 } }),
    ],
    // DNS and routing failures, which the SDK retries (these were a 500).
    ...['EAI_AGAIN', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH'].map((code): [string, Error] => [
      code,
      Object.assign(new Error(`getaddrinfo ${code}`), { code }),
    ]),
    [
      'a failure whose cause is a dropped connection',
      new Error('secretsmanager GetSecretValue failed', {
        cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
      }),
    ],
    [
      'a plain write meeting a transaction',
      Object.assign(new Error('Transaction is ongoing for the item'), {
        name: 'TransactionConflictException',
        $metadata: { httpStatusCode: 400 },
      }),
    ],
  ])('%s', (_, error) => {
    const reply = errorResponse(error);
    expect(reply.statusCode).toBe(503);
    expect(reply.headers?.['Retry-After']).toBe('1');
  });

  it('a transaction refused for another reason is not retryable', () => {
    const quiet = console.error;
    console.error = () => undefined;
    try {
      expect(errorResponse(cancelled('ValidationError')).statusCode).toBe(500);
    } finally {
      console.error = quiet;
    }
  });
});

describe('errorResponse: a record gone between the read and the write', () => {
  it.each([
    ['a ticket', new MissingTicket()],
    ['a queue', new MissingQueue()],
  ])('%s is 404 Not found, in one place for every handler', (_, error) => {
    const reply = errorResponse(error);
    expect(reply.statusCode).toBe(404);
    expect(JSON.parse(reply.body!)).toEqual({ detail: 'Not found.' });
  });
});
