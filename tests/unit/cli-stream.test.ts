/** replay-stream's input (cli/stream.ts): the failed batches that the failure queue's messages name. */
import { describe, expect, it } from 'vitest';
import { failedBatches } from '../../cli/stream';

const info = {
  shardId: 'shardId-1',
  startSequenceNumber: '100',
  endSequenceNumber: '140',
  streamArn: 'arn:aws:dynamodb:eu-west-1:1:table/t/stream/x',
};
const body = {
  requestContext: { condition: 'RetryAttemptsExhausted' },
  version: '1.0',
  DDBStreamBatchInfo: { ...info, batchSize: 3, approximateArrivalOfFirstRecord: '2026-11-27T08:00:00Z' },
};

describe('failedBatches', () => {
  it(
    "reads `aws sqs receive-message` output, an array of message bodies, or one body: each batch's shard, range " +
      'and stream',
    () => {
      const other = { ...info, shardId: 'shardId-2' };
      expect(
        failedBatches(
          JSON.stringify({
            Messages: [
              { MessageId: 'a', ReceiptHandle: 'r', Body: JSON.stringify(body) },
              { Body: JSON.stringify({ DDBStreamBatchInfo: other }) },
            ],
          }),
        ),
      ).toEqual([info, other]);
      expect(failedBatches(JSON.stringify([body, body]))).toEqual([info, info]);
      expect(failedBatches(JSON.stringify(body))).toEqual([info]);
    },
  );

  it(
    'refuses a file that is not JSON, a message without a JSON body, and an entry that names no batch, saying ' +
      'which',
    () => {
      expect(() => failedBatches('Messages:')).toThrow(/not JSON/);
      expect(() =>
        failedBatches(JSON.stringify({ Messages: [{ Body: JSON.stringify(body) }, { Body: 'oops' }] })),
      ).toThrow('Message 2 of the batches file has no JSON body.');
      expect(() =>
        failedBatches(JSON.stringify([body, { DDBStreamBatchInfo: { ...info, endSequenceNumber: 140 } }])),
      ).toThrow(/^Entry 2 of the batches file names no stream batch/);
      expect(() => failedBatches('null')).toThrow(/^Entry 1 /);
      expect(() =>
        failedBatches(JSON.stringify({ DDBStreamBatchInfo: { ...info, startSequenceNumber: '12abc' } })),
      ).toThrow(/^Entry 1 .*sequence numbers in digits/);
    },
  );
});
