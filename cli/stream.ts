/**
 * The table stream command: replay-stream. On AWS, a batch of the table's stream that failed in the
 * CountTickets function on every retry goes to its failure queue as a message that names the batch
 * (shard, first and last sequence number), not its records. While the stream still holds them (24
 * hours), this reads those records again and applies them as the function would: counts, listing
 * records, and the change events the feed and the webhook subscriptions would otherwise never get.
 * Applying a record twice changes nothing (consumer/table-changes.ts), so a batch may be replayed again.
 */
import { readFileSync } from 'node:fs';
import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import { command, Failure, UsageError } from './command';

/** Empty pages in a row after which a shard is taken to hold nothing more of a batch. */
const EMPTY_PAGES = 5;

/** What the failure queue's message says of a failed batch (Lambda's `DDBStreamBatchInfo`). */
export interface FailedBatch {
  shardId: string;
  startSequenceNumber: string;
  endSequenceNumber: string;
  streamArn: string;
}

const BATCH_FIELDS = ['shardId', 'startSequenceNumber', 'endSequenceNumber', 'streamArn'] as const;
const SEQUENCE_NUMBER = /^\d{1,40}$/;
const isBatch = (value: unknown): value is FailedBatch => {
  const fields = value as Record<string, unknown> | null;
  return (
    !!fields &&
    typeof fields === 'object' &&
    BATCH_FIELDS.every((k) => typeof fields[k] === 'string') &&
    SEQUENCE_NUMBER.test(fields.startSequenceNumber as string) &&
    SEQUENCE_NUMBER.test(fields.endSequenceNumber as string)
  );
};

/**
 * The failed batches a file names: the output of `aws sqs receive-message` on the failure queue
 * (`{"Messages": [{"Body": ...}]}`), or the messages' bodies (one, or an array of them).
 */
export function failedBatches(text: string): FailedBatch[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Failure(`The batches file is not JSON: ${(error as Error).message}`);
  }
  const messages = (parsed as { Messages?: { Body?: string }[] } | null)?.Messages;
  const bodies: unknown[] = Array.isArray(messages)
    ? messages.map((message, i) => {
        try {
          return JSON.parse(String(message.Body)) as unknown;
        } catch {
          throw new Failure(`Message ${i + 1} of the batches file has no JSON body.`);
        }
      })
    : Array.isArray(parsed)
      ? parsed
      : [parsed];
  return bodies.map((body, i) => {
    const info = (body as { DDBStreamBatchInfo?: unknown } | null)?.DDBStreamBatchInfo;
    if (!isBatch(info)) {
      throw new Failure(
        `Entry ${i + 1} of the batches file names no stream batch ` +
          `(DDBStreamBatchInfo with ${BATCH_FIELDS.join(', ')}, the sequence numbers in digits).`,
      );
    }
    return {
      shardId: info.shardId,
      startSequenceNumber: info.startSequenceNumber,
      endSequenceNumber: info.endSequenceNumber,
      streamArn: info.streamArn,
    };
  });
}

/** Reads the records of `batch` from the stream and applies them; how many there were. */
export async function replayBatch(batch: FailedBatch): Promise<number> {
  const [
    { DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand },
    { tableChangeOf },
    { applyTableChanges },
  ] = await Promise.all([
    import('@aws-sdk/client-dynamodb-streams'),
    import('../shared/consumer/stream-records'),
    import('../shared/consumer/table-changes'),
  ]);
  // Locally the stream is DynamoDB Local's; on AWS the Streams endpoint of the region.
  const streams = new DynamoDBStreamsClient(
    process.env.AWS_ENDPOINT_URL_DYNAMODB ? { endpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB } : {},
  );
  const last = BigInt(batch.endSequenceNumber);
  const records: _Record[] = [];
  try {
    let iterator = (
      await streams.send(
        new GetShardIteratorCommand({
          StreamArn: batch.streamArn,
          ShardId: batch.shardId,
          ShardIteratorType: 'AT_SEQUENCE_NUMBER',
          SequenceNumber: batch.startSequenceNumber,
        }),
      )
    ).ShardIterator;
    // Until the batch's last record; an open shard may answer empty pages before it, so a few are allowed.
    let reachedLast = false;
    let emptyPages = 0;
    while (iterator && !reachedLast && emptyPages < EMPTY_PAGES) {
      const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
      for (const record of page.Records ?? []) {
        const sequence = BigInt(record.dynamodb!.SequenceNumber!);
        if (sequence <= last) records.push(record);
        if (sequence >= last) reachedLast = true;
      }
      emptyPages = page.Records?.length ? 0 : emptyPages + 1;
      iterator = page.NextShardIterator;
    }
  } catch (error) {
    if ((error as Error).name === 'TrimmedDataAccessException') {
      throw new Failure(
        `The records of batch ${batch.startSequenceNumber}–${batch.endSequenceNumber} are no longer in the stream ` +
          `(it keeps 24 hours).`,
      );
    }
    throw error;
  } finally {
    streams.destroy();
  }
  if (records.length) await applyTableChanges(records.map(tableChangeOf));
  return records.length;
}

export const replayStream = command({
  name: 'replay-stream',
  summary: "apply again the table stream's batches that failed in CountTickets (from its failure queue)",
  description:
    'Reads the stream records of each failed batch the file names and applies them as the CountTickets function ' +
    'does: the ticket counts, the listing records and the change events (which the feed and the webhook ' +
    'subscriptions then get, late). FILE is the output of `aws sqs receive-message` on the ' +
    "TicketCountsCountFailures queue, or the messages' bodies. The stream keeps records 24 hours. Replaying a " +
    'batch twice changes nothing; delete the messages once it has run (docs/operations.md, "Runbook: ticket ' +
    'counts").',
  options: {
    batches: {
      type: 'string',
      value: 'FILE',
      help: 'the failure queue messages, as `aws sqs receive-message` prints them (required)',
    },
  },
  required: ['batches'],
  examples: [
    'aws sqs receive-message --queue-url "$FAILURES_URL" --max-number-of-messages 10 > failed.json',
    'npm run helpdesk -- replay-stream --batches failed.json --stack-outputs outputs.json',
  ],
  prepare(ctx) {
    const file = String(ctx.options.batches);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new UsageError(`Cannot read ${file}: ${(error as Error).message}`);
    }
    const batches = failedBatches(text);
    return async () => {
      const replayed = [];
      for (const batch of batches) {
        const records = await replayBatch(batch);
        replayed.push({ ...batch, records });
        if (!ctx.json)
          ctx.out(
            `${batch.shardId} ${batch.startSequenceNumber}–${batch.endSequenceNumber}: ${records} records applied`,
          );
      }
      if (ctx.json) ctx.out(JSON.stringify(replayed));
    };
  },
});
