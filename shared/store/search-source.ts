/**
 * What the search index is rebuilt from (shared/search/rebuild.ts): every item of every ticket
 * collection in ticket id order (gsi1, from a ticket on: a rebuild resumes where it stopped), the
 * custom field definitions, the queues (their languages), and the ticket count the progress bar measures against.
 */
import { keys, INDEXES, inIndex, IN_PARTITION, SORT_BEGINS_WITH } from './keys';
import { queryAll, queryPages } from './query';
import { readTotals } from './ticket-counts';
import { totalOf } from '../domain/ticket-counts';

type Item = Record<string, unknown>;

/** Pages of the ticket collections' items, from ticket `from` on (its items included). */
export function ticketItemPages(from: number): AsyncGenerator<Item[], void> {
  return queryPages({
    IndexName: INDEXES.gsi1.name,
    KeyConditionExpression: inIndex('gsi1', 'from'),
    ExpressionAttributeValues: { ':pk': keys.listAllPartition, ':from': keys.listAll(from, '').GSI1SK },
  });
}

/** The custom field definitions, as stored (their items, keys included). */
export function customFieldItems(): Promise<Item[]> {
  return queryAll({
    KeyConditionExpression: IN_PARTITION,
    ExpressionAttributeValues: { ':pk': keys.customFieldPartition },
  });
}

/** The queue items, as stored (keys included; not their slug claims). */
export function queueItems(): Promise<Item[]> {
  return queryAll({
    KeyConditionExpression: SORT_BEGINS_WITH,
    ExpressionAttributeValues: { ':pk': keys.queuePartition, ':sk': keys.queueSortPrefix },
  });
}

/** How many tickets the table holds, as the counts say (a moment behind the stream). */
export async function ticketCount(): Promise<number> {
  return totalOf(await readTotals());
}
