/**
 * The ticket counts' read half (domain/ticket-counts.ts): the counts partition, an agent view's
 * count item and the totals item, as the request path reads them. The stream consumer keeps them
 * (consumer/ticket-counts.ts).
 */
import { QueryCommand } from '../aws/dynamodb';
import { config } from '../config';
import type { ViewCountItem } from '../domain/ticket-counts';
import { dynamo } from '../aws/clients';
import { keys, IN_PARTITION, SORT_BEGINS_WITH } from './keys';
import { batchGet } from './query';

type Item = Record<string, unknown>;

/**
 * A page of the counts partition from one end: from the first, the totals item then block items; from the last, block
 * items only (the last first).
 */
export async function readCounts(
  from: 'first' | 'last',
  limit: number,
  startKey?: Item,
): Promise<{ items: Item[]; next?: Item }> {
  const out = await dynamo.send(
    new QueryCommand({
      TableName: config.tableName,
      ...(from === 'first'
        ? { KeyConditionExpression: IN_PARTITION, ExpressionAttributeValues: { ':pk': keys.countsPartition } }
        : {
            // Not an earlier version's `~TOTALS`, which sorts after the blocks.
            KeyConditionExpression: SORT_BEGINS_WITH,
            ExpressionAttributeValues: { ':pk': keys.countsPartition, ':sk': keys.countsBlockPrefix },
          }),
      ScanIndexForward: from === 'first',
      Limit: limit,
      ExclusiveStartKey: startKey,
      ConsistentRead: true,
    }),
  );
  return { items: out.Items ?? [], next: out.LastEvaluatedKey };
}

/**
 * Several agent views' count items at once (one BatchGetItem per 100, strongly consistent), in the
 * order given; undefined for an item no ticket has counted in yet.
 */
export async function readViewCounts(items: ViewCountItem[]): Promise<(Item | undefined)[]> {
  const found = new Map((await batchGet(items.map(keys.countsView))).map((i) => [String(i.SK), i]));
  return items.map((item) => found.get(String(keys.countsView(item).SK)));
}

/** The totals item alone (per status `s<n>`, per queue `q<id>`), strongly consistent: the partition's first item. */
export async function readTotals(): Promise<Item | undefined> {
  const { items } = await readCounts('first', 1);
  return items[0]?.SK === keys.countsTotals.SK ? items[0] : undefined;
}
