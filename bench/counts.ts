/**
 * What the ticket counts cost as a helpdesk grows in queues and agents (`npx tsx bench/counts.ts`):
 * for Q queues × A agents with tickets in every combination (one ticket per queue × assignee, the
 * statuses cycling 1-5), the size of the totals item a list page reads, the write units of one
 * count transaction (a ticket moved to another status: what the stream consumer writes per change)
 * and the read units of a list's count. Runs the consumer's own code (consumer/ticket-counts.ts
 * applyTicketRecords) on a fresh in-memory local runtime, with DynamoDB Local's consumed capacity;
 * writes a section of docs/benchmarks.md.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { startLocalRuntime } from '../infra/local/runtime';
import { itemSize } from './item-size';
import { transactionBilling } from './billed-units';
import { withSection } from './report';

const REPORT = new URL('../docs/benchmarks.md', import.meta.url);
const COUNTS_START = '<!-- counts:start -->';
const COUNTS_END = '<!-- counts:end -->';

interface CountsResult {
  queues: number;
  agents: number;
  tickets: number;
  totalsBytes: number;
  moveWriteUnits?: number;
  moveReadUnits?: number;
  viewCountReadUnits?: number;
  failure?: string;
}
const SIZES: [queues: number, agents: number][] = [
  [5, 10],
  [30, 60],
  [100, 300],
];

process.env.HELPDESK_STREAM_POLL_MS = '0';
process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
const runtime = await startLocalRuntime({ dataDir: 'memory', port: 0 });
const { config } = await import('../shared/config');
const { dynamo } = await import('../shared/aws/clients');
const { GetCommand, DeleteCommand, ScanCommand } = await import('../shared/aws/dynamodb');
const { keys } = await import('../shared/store/keys');
const { applyTicketRecords } = await import('../shared/consumer/ticket-counts');
const { listCount } = await import('../shared/store/filtered-lists');
const { parseTicketListQuery } = await import('../shared/domain/ticket-list-query');

const units = { read: 0, write: 0 };
const READS = new Set(['GetItem', 'Query', 'BatchGetItem', 'TransactGetItems']);
const billing = transactionBilling(dynamo, () => config.tableName);
dynamo.intercept(async (call, next) => {
  if (billing.isOwnRead()) return next();
  call.input.ReturnConsumedCapacity ??= 'TOTAL';
  // DynamoDB Local's units for a transaction are not DynamoDB's: computed from the items' sizes.
  if (call.operation === 'TransactWriteItems') {
    const { out, writeUnits } = await billing.transact(call, next);
    units.write += writeUnits;
    return out;
  }
  const out = await next();
  const consumed = out.ConsumedCapacity as { CapacityUnits?: number } | { CapacityUnits?: number }[] | undefined;
  for (const c of Array.isArray(consumed) ? consumed : consumed ? [consumed] : [])
    units[READS.has(call.operation) ? 'read' : 'write'] += c.CapacityUnits ?? 0;
  return out;
});
const measured = async (run: () => Promise<unknown>) => {
  Object.assign(units, { read: 0, write: 0 });
  await run();
  return { ...units };
};

/** Empties the counts partitions and the counted states (each size starts from nothing). */
async function clearCounts() {
  const doomed: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await dynamo.send(
      new ScanCommand({
        TableName: config.tableName,
        ProjectionExpression: 'PK, SK',
        FilterExpression: 'begins_with(PK, :counts)',
        ExpressionAttributeValues: { ':counts': 'COUNT' },
        ExclusiveStartKey: start,
      }),
    );
    doomed.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < doomed.length)
        await dynamo.send(new DeleteCommand({ TableName: config.tableName, Key: doomed[next++]! }));
    }),
  );
}

const results: CountsResult[] = [];
for (const [queues, agents] of SIZES) {
  await clearCounts();
  const tickets = queues * agents;
  const records = Array.from({ length: tickets }, (_, i) => ({
    ticket: i + 1,
    version: 1,
    state: {
      status: (i % 5) + 1,
      queue: Math.floor(i / agents) + 1,
      assigned: String((i % agents) + 1),
      priority: (i % 5) + 1,
    },
  }));
  let failure: string | undefined;
  try {
    for (let i = 0; i < records.length; i += 1000) await applyTicketRecords(records.slice(i, i + 1000));
  } catch (error) {
    failure = String((error as Error).message).slice(0, 160);
  }
  const totals = (
    await dynamo.send(new GetCommand({ TableName: config.tableName, Key: keys.countsTotals, ConsistentRead: true }))
  ).Item;
  const bytes = totals ? itemSize(totals) : 0;
  // One change: ticket 1 moves from status 1 to 2 (version 2), as a PATCH's stream record would.
  const move = failure
    ? undefined
    : await measured(() => applyTicketRecords([{ ticket: 1, version: 2, state: { ...records[0]!.state, status: 2 } }]));
  const viewCount = failure
    ? undefined
    : await measured(() => listCount(parseTicketListQuery({ status: '2', queue: '1', assigned_to: '1' })));
  results.push({
    queues,
    agents,
    tickets,
    totalsBytes: bytes,
    moveWriteUnits: move?.write,
    moveReadUnits: move?.read,
    viewCountReadUnits: viewCount?.read,
    failure,
  });
  console.log(
    `${queues} queues × ${agents} agents (${tickets} tickets): totals item ${(bytes / 1024).toFixed(1)} KB; ` +
      (failure
        ? `counting FAILED: ${failure}`
        : `one move: ${move!.write} WRU, ${move!.read} RRU; a view's count: ${viewCount!.read} RRU`) +
      `; load ${loadavg()[0]!.toFixed(1)}`,
  );
}
writeFileSync(
  REPORT,
  withSection(
    readFileSync(REPORT, 'utf8'),
    COUNTS_START,
    COUNTS_END,
    renderCounts(results, new Date().toISOString(), loadavg()[0]!),
  ),
);
await runtime.stop();
process.exit(0);

function renderCounts(rows: CountsResult[], date: string, load: number): string {
  const lines = rows.map((r) => {
    const units = r.failure
      ? `counting fails: ${r.failure.replaceAll('|', '/')}`
      : `${r.moveWriteUnits} | ${r.moveReadUnits} | ${r.viewCountReadUnits}`;
    const totals = `${(r.totalsBytes / 1024).toFixed(1)} KB`;
    return `| ${r.queues} × ${r.agents} | ${r.tickets.toLocaleString('en')} | ${totals} | ${units} |`;
  });
  return `${COUNTS_START}
## Counts by queues and agents

Measured by \`npx tsx bench/counts.ts\` on ${date.slice(0, 10)} (load average ${load.toFixed(1)}): for Q queues × A
agents, one ticket in every queue × assignee combination (statuses cycling 1-5), counted by the
stream consumer's own code (consumer/ticket-counts.ts) on DynamoDB Local, with read units as DynamoDB
Local reports them and a transaction's write units computed from its items' sizes as DynamoDB bills
them (2 per KB of each item written, rounded up; DynamoDB Local's own figure for a transaction is
not DynamoDB's). *Totals item*: the size of \`!TOTALS\` (each page of the plain list reads it), as DynamoDB
counts item sizes (limit 400 KB). *One
move*: the consumer's units to count one ticket changing status (its counted state read, one
transaction). *A view's count*: the read units of \`count\` for \`?status=2&queue=1&assigned_to=1\`.
Before the agent views' counts moved out of the totals items into their own (issue 24), the same
run measured a totals item of 0.9, 22.4 and 376.6 KB, one move 8, 98 and 1,514 write units, and a
view's count 1, 6 and 95 read units (load 11).

| Queues × agents | Tickets | Totals item | One move: WRU | One move: RRU | A view's count: RRU |
|---|---|---|---|---|---|
${lines.join('\n')}
${COUNTS_END}`;
}
