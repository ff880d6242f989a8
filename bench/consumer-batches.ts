/**
 * The stream consumer's time per batch against the batch's size, and what two batches applied at
 * once do (`npx tsx bench/consumer-batches.ts`): the measurement behind the CountTickets event source
 * mapping's batch size and parallelization factor (infra/stream-consumer.ts; docs/data-model.md, "The
 * stream consumer"). On a freshly started local runtime whose stream is not polled, it creates
 * tickets through the API, reads their records from the table's stream, keeps those the AWS
 * filter passes (consumer/table-changes.ts isCountedChange; a create is one record there), and applies
 * them batch by batch with the consumer's code (applyTableChanges), timing each; then two batches
 * at once, with DynamoDB's transaction conflict rule emulated.
 */
import { loadavg } from 'node:os';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { startLocalRuntime } from '../infra/local/runtime';
import { BENCH_ADMIN_AUTH, BENCH_ADMIN_ENV } from './admin';

Object.assign(process.env, BENCH_ADMIN_ENV);
process.env.HELPDESK_ACTIVATE_API_ENDPOINT = 'True';
process.env.HELPDESK_STREAM_POLL_MS = '0';
process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
const runtime = await startLocalRuntime({ dataDir: 'memory', port: 0 });
const { config } = await import('../shared/config');
const { tableChangeOf } = await import('../shared/consumer/stream-records');
const { applyTableChanges, isCountedChange } = await import('../shared/consumer/table-changes');

async function createTickets(count: number, inFlight = 8): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < count) {
        const i = next++;
        const reply = await fetch(`${runtime.url}/api/tickets/`, {
          method: 'POST',
          headers: { authorization: BENCH_ADMIN_AUTH, 'content-type': 'application/json' },
          body: JSON.stringify({
            queue: 1,
            title: `batch-${i}`,
            description: 'Batch',
            submitter_email: 'batch@example.com',
          }),
        });
        if (reply.status !== 201) throw new Error(`create answered ${reply.status}: ${await reply.text()}`);
      }
    }),
  );
}

const streams = new DynamoDBStreamsClient({ endpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB });
const streamArn = (await new DynamoDBClient({}).send(new DescribeTableCommand({ TableName: config.tableName }))).Table!
  .LatestStreamArn!;
const positions = new Map<string, string>();
/** The records written since the last call, as the AWS filter passes them. */
async function newChanges() {
  const shards =
    (await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }))).StreamDescription?.Shards ?? [];
  const changes = [];
  for (const { ShardId } of shards) {
    const after = positions.get(ShardId!);
    let iterator = (
      await streams.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId,
          ...(after
            ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after }
            : { ShardIteratorType: 'TRIM_HORIZON' }),
        }),
      )
    ).ShardIterator;
    while (iterator) {
      const batch = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
      const records = batch.Records ?? [];
      if (!records.length) break;
      positions.set(ShardId!, records.at(-1)!.dynamodb!.SequenceNumber!);
      changes.push(...records.map(tableChangeOf).filter(isCountedChange));
      iterator = batch.NextShardIterator;
    }
  }
  return changes;
}
await createTickets(1);
await applyTableChanges(await newChanges()); // warm-up

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`load average ${loadavg()[0]!.toFixed(1)}`);
for (const [size, batches] of [
  [1, 10],
  [10, 5],
  [100, 3],
  [500, 2],
  [1000, 1],
] as const) {
  await createTickets(size * batches);
  const changes = await newChanges();
  const times: number[] = [];
  for (let i = 0; i < changes.length; i += size) {
    const started = performance.now();
    await applyTableChanges(changes.slice(i, i + size));
    times.push(performance.now() - started);
  }
  const ms = median(times);
  console.log(
    `batch of ${size} creates: ${Math.round(ms)} ms (median of ${times.length}), ` +
      `${((ms / size) * 1000).toFixed(0)} µs a record; load ${loadavg()[0]!.toFixed(1)}`,
  );
}
// Batches of one shard at once (a parallelization factor above 1): their counts transactions share the totals items.
const { dynamo } = await import('../shared/aws/clients');
let conflicts = 0;
dynamo.intercept(async (call, next) => {
  try {
    return await next();
  } catch (error) {
    if (call.operation === 'TransactWriteItems' && /TransactionConflict/.test(String((error as Error).message)))
      conflicts++;
    throw error;
  }
});
for (const [size, together] of [
  [100, 1],
  [100, 2],
  [100, 4],
] as const) {
  await createTickets(size * together);
  const changes = await newChanges();
  conflicts = 0;
  const started = performance.now();
  const outcomes = await Promise.allSettled(
    Array.from({ length: together }, (_, i) => applyTableChanges(changes.slice(i * size, (i + 1) * size))),
  );
  const failed = outcomes.filter((o) => o.status === 'rejected').map((o) => String(o.reason).slice(0, 120));
  const ms = Math.round(performance.now() - started);
  console.log(
    `${together} batches of ${size} at once: ${ms} ms, ${conflicts} transactions cancelled ` +
      `by a conflict (retried), ${failed.length} batches failed ${failed.join(' | ')}; ` +
      `load ${loadavg()[0]!.toFixed(1)}`,
  );
}
await runtime.stop();
process.exit(0);
