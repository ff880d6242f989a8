/**
 * What a ticket's listing records cost to keep, in two layouts, on DynamoDB Local (docs/data-model.md,
 * "What each derived record serves"): write units per create, PATCH of `priority`, status change and
 * delete, as DynamoDB reports them (1 per KB of the item, 1 per index entry written, 2 for an entry
 * whose key moves).
 * - **records** (the versions before the listings table): one item per dimension, each in gsi4 (keys
 *   only), an agent view's sort key carrying the ticket's sort values; a change moves the records whose
 *   key changes, a delete leaves tombstones (the item without its index keys).
 * - **one item** (the listings table's, consumer/listings.ts): one item per ticket with one keys-only index
 *   per dimension, the agent views' indexes keyed by their id alone and projecting (INCLUDE) the carried
 *   values; a change rewrites the item, and DynamoDB writes only the index entries whose keys or
 *   projected values changed.
 *
 * `npx tsx bench/listing-layouts.ts` prints the table; nothing else is written.
 */
import { CreateTableCommand, DynamoDBClient, PutItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { startEngines } from '../infra/local/engines';

interface Listed {
  status: number;
  priority: number;
  modified: string;
}

const DIMENSIONS = ['queue', 'assigned', 'status-queue', 'status-assigned', 'created', 'modified', 'priority', 'due'];
const VIEWS = new Set(['status-queue', 'status-assigned']);
const ID = '000000000042';
const CREATED = '2026-11-29T09:00:00Z';

/** Each dimension's partition and sort key (before the views' carried values), as consumer/listings.ts places them. */
function places(t: Listed): Record<string, [string, string]> {
  return {
    queue: ['1', ID],
    assigned: ['none', ID],
    'status-queue': [`${t.status}#1`, ID],
    'status-assigned': [`${t.status}#none`, ID],
    created: ['', `${CREATED}#${ID}`],
    modified: ['', `${t.modified}#${ID}`],
    priority: ['', `${t.priority}#${ID}`],
    due: ['', `~#${ID}`],
  };
}
const carried = (t: Listed) => `${CREATED}#${t.modified}#${t.priority}#~#none`;
const S = (s: string): AttributeValue => ({ S: s });

const CHANGES: [string, Listed | undefined][] = [
  ['create', { status: 1, priority: 3, modified: '2026-11-29T09:00:00Z' }],
  ['PATCH priority', { status: 1, priority: 4, modified: '2026-11-29T09:01:00Z' }],
  ['status change', { status: 2, priority: 4, modified: '2026-11-29T09:02:00Z' }],
  ['delete', undefined],
];

const engines = await startEngines('memory');
const client = new DynamoDBClient({
  endpoint: engines.dynamoEndpoint,
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
const keyAttributes = (names: string[]) =>
  names.flatMap((n) => [
    { AttributeName: `${n}PK`, AttributeType: 'S' as const },
    { AttributeName: `${n}SK`, AttributeType: 'S' as const },
  ]);
async function createTable(TableName: string, indexes: string[], includes: (index: string) => boolean) {
  await client.send(
    new CreateTableCommand({
      TableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'PK', AttributeType: 'S' },
        { AttributeName: 'SK', AttributeType: 'S' },
        ...keyAttributes(indexes),
      ],
      KeySchema: [
        { AttributeName: 'PK', KeyType: 'HASH' },
        { AttributeName: 'SK', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: indexes.map((index) => ({
        IndexName: `by-${index}`,
        KeySchema: [
          { AttributeName: `${index}PK`, KeyType: 'HASH' },
          { AttributeName: `${index}SK`, KeyType: 'RANGE' },
        ],
        Projection: includes(index)
          ? { ProjectionType: 'INCLUDE', NonKeyAttributes: ['carried'] }
          : { ProjectionType: 'KEYS_ONLY' },
      })),
    }),
  );
}
const put = async (TableName: string, Item: Record<string, AttributeValue>) =>
  (await client.send(new PutItemCommand({ TableName, Item, ReturnConsumedCapacity: 'TOTAL' }))).ConsumedCapacity
    ?.CapacityUnits ?? 0;

await createTable('records', ['gsi4'], () => false);
await createTable('one-item', DIMENSIONS, (d) => VIEWS.has(d));

/** The layout before: the records whose key changed, or every one as a tombstone. */
async function records(next: Listed | undefined, previous: Listed | undefined): Promise<number> {
  let units = 0;
  for (const d of DIMENSIONS) {
    const key = (t: Listed) => {
      const [value, sort] = places(t)[d]!;
      return [`LIST#${d}#${value}`, VIEWS.has(d) ? `${sort}#${carried(t)}` : sort];
    };
    const base = { PK: S(`LISTED#42`), SK: S(d), ticket: { N: '42' } };
    if (!next) units += await put('records', base);
    else if (!previous || key(previous).join() !== key(next).join()) {
      const [pk, sk] = key(next);
      units += await put('records', { ...base, gsi4PK: S(pk!), gsi4SK: S(sk!) });
    }
  }
  return units;
}

/** One item a ticket: rewritten whole (a tombstone without index keys for a delete). */
async function oneItem(next: Listed | undefined): Promise<number> {
  const item: Record<string, AttributeValue> = { PK: S('LISTED#42'), SK: S('LISTING'), ticket: { N: '42' } };
  if (next) {
    for (const [d, [value, sort]] of Object.entries(places(next))) {
      item[`${d}PK`] = S(`LIST#${d}#${value}`);
      item[`${d}SK`] = S(sort);
    }
    item.carried = S(carried(next));
  }
  return put('one-item', item);
}

const rows: string[] = [];
let previous: Listed | undefined;
for (const [change, next] of CHANGES) {
  rows.push(`| ${change} | ${await records(next, previous)} | ${await oneItem(next)} |`);
  previous = next;
}
await engines.stop();
console.log(['| Change | records (before) | one item (now) |', '|---|---|---|', ...rows].join('\n'));
process.exit(0);
