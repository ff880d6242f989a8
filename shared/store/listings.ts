/**
 * Listing records' read half (docs/data-model.md, "Filtered lists"): where a ticket sorts in an
 * order, and the pages of the listing partitions the filtered and time-ordered ticket lists read.
 * The stream consumer writes the records (consumer/listings.ts).
 */
import { QueryCommand } from '../aws/dynamodb';
import { config, listingsTableOf } from '../config';
import type { Ticket } from '../domain/records';
import { dynamo } from '../aws/clients';
import { keys, INDEXES, inIndex, inSortRange, LISTING_INDEXES, type ListingDimension, type ListingOrder } from './keys';
import { LISTING_ORDERS, type AgentView } from '../domain/listing-dimensions';
import { queryAll, queryPages } from './query';

type Item = Record<string, unknown>;

export type ListedTicket = Pick<
  Ticket,
  'id' | 'status' | 'queue' | 'assigned_to' | 'priority' | 'modified' | 'created' | 'due_date'
>;

/**
 * The value a ticket sorts by in an order (`~`, after every date, for no due date: last ascending, first descending, as
 * PostgreSQL puts nulls).
 */
export function sortValue(ticket: Partial<ListedTicket>, order: ListingOrder): string | undefined {
  switch (order) {
    case 'id':
      return undefined;
    case 'created':
    case 'modified':
      return String(ticket[order]);
    case 'priority':
      return String(ticket.priority);
    case 'due':
      return ticket.due_date ? String(ticket.due_date) : '~';
  }
}

/** A ticket's assignee as the listings name it: a user id, or `none`. */
export const assigneeOf = (ticket: Partial<ListedTicket>) =>
  ticket.assigned_to == null ? 'none' : String(ticket.assigned_to);

/** A ticket's sort value in every order but id's (`<created>#<modified>#<priority>#<due or ~>`: LISTING_CARRIED). */
export const sortValuesOf = (ticket: Partial<ListedTicket>) =>
  LISTING_ORDERS.map((order) => sortValue(ticket, order)).join('#');

/**
 * What an agent view's index entry carries (projected: LISTING_INDEXES `carries`): every order's sort value, so that
 * the view sorts in any order from its id-order partition alone, then the value of the dimension its partition does not
 * name (a status × queue entry's assignee, a status × assignee entry's queue), so that status × queue × assignee is
 * either view kept by that value.
 */
export const carriedValues = (ticket: Partial<ListedTicket>, view: AgentView) =>
  `${sortValuesOf(ticket)}#${view === 'status-queue' ? assigneeOf(ticket) : String(ticket.queue)}`;

/** The listings table's Query of one dimension's index (the table named, the index and its key condition). */
const listingIndexQuery = (dimension: ListingDimension) => {
  const index = LISTING_INDEXES[dimension];
  return { TableName: listingsTableOf(config.tableName), IndexName: index.name, index };
};

/**
 * An agent view's entries read whole (its id-order partitions, one Query each, at once; a Query page is 1 MB, about
 * 6,000 entries), each with its sort key in `order` (`<sort value>#<id:12>`, as a whole-table partition of that order
 * has it; the id alone in id order) from the values its entry carries; of a partition with `carrying`, only the
 * entries whose other dimension's value is one of those. Undefined when they are more than `bound`: the caller reads
 * the list another way.
 */
export async function readViewWhole(
  partitions: Pick<ListingQuery, 'dimension' | 'partition' | 'carrying'>[],
  order: ListingOrder,
  bound: number,
): Promise<{ ticket: number; key: string }[] | undefined> {
  const at = order === 'id' ? -1 : LISTING_ORDERS.indexOf(order);
  let total = 0;
  const read = async ({ dimension, partition, carrying }: (typeof partitions)[number]) => {
    const { index, ...table } = listingIndexQuery(dimension as AgentView);
    const found: { ticket: number; key: string }[] = [];
    for await (const page of queryPages({
      ...table,
      KeyConditionExpression: inIndex(index),
      ExpressionAttributeValues: { ':pk': partition },
      Limit: bound + 1,
    })) {
      const [sorts, other] = index.carries!;
      for (const item of page) {
        if (carrying && !carrying.includes(String(item[other]))) continue;
        const ticket = keys.ticketOfSortKey(String(item[index.sortKey]));
        const sort = at < 0 ? undefined : String(item[sorts]).split('#')[at];
        found.push({ ticket, key: keys.listingSortKey(ticket, sort) });
      }
      total += page.length;
      if (total > bound) return undefined;
    }
    return found;
  };
  const pages = await Promise.all(partitions.map(read));
  return pages.every((p) => p !== undefined) ? pages.flat() : undefined;
}

/** Which partition of a listing index (or of gsi3) a filtered list reads, and the bounds of its sort keys. */
export interface ListingQuery {
  /** The listing dimension whose index is read, or `submitter`: gsi3 of the table. */
  dimension: ListingDimension | 'submitter';
  partition: string;
  /**
   * Only the sort keys `<prefix>#…` (a priority's range of `all@priority`), read and given without it: the bounds
   * below and the keys read are the rest of the key.
   */
  prefix?: string;
  /**
   * Only the entries whose record carries one of these values of the dimension its partition does not name (an agent
   * view read whole for status × queue × assignee: store/filtered-lists.ts).
   */
  carrying?: string[];
  /** Sort keys from this one on (included). */
  from?: string;
  /** Sort keys after this one (a cursor). */
  after?: string;
  /** Sort keys before this one (a cursor). */
  before?: string;
  ascending: boolean;
}

/**
 * The ticket ids of one page of a listing index's partition (keys only) or a gsi3 one, eventually consistent, in the
 * order asked for, with the position of each (its sort key): one Query of at most `limit` entries.
 */
export async function readListing(query: ListingQuery, limit: number): Promise<{ ticket: number; key: string }[]> {
  // The Query reads in the list's order, or against it for a page before a cursor (then reversed).
  const backwards = query.before !== undefined;
  const upper = query.ascending ? query.before : query.after;
  const lowerExclusive = query.ascending ? query.after : query.before;
  const lower = lowerExclusive === undefined ? query.from : keys.aboveKey(lowerExclusive);
  const { prefix } = query;
  const bound =
    (lower !== undefined && upper !== undefined) || prefix !== undefined
      ? 'between'
      : lower !== undefined
        ? lowerExclusive !== undefined
          ? 'gt'
          : 'ge'
        : upper !== undefined
          ? 'lt'
          : 'none';
  const values: Item = { ':pk': query.partition };
  if (prefix !== undefined) {
    // The prefix's range, within the bounds (`~` after every key of it).
    values[':lo'] = keys.prefixedSortKey(prefix, lower ?? '');
    values[':hi'] = keys.prefixedSortKey(prefix, upper ?? '~');
  } else {
    if (lower !== undefined) values[':lo'] = lower;
    if (upper !== undefined) values[':hi'] = upper;
  }
  const { index, ...table } =
    query.dimension === 'submitter'
      ? { TableName: config.tableName, IndexName: INDEXES.gsi3.name, index: INDEXES.gsi3 }
      : listingIndexQuery(query.dimension);
  const out = await dynamo.send(
    new QueryCommand({
      ...table,
      KeyConditionExpression: inSortRange(index, bound),
      ExpressionAttributeValues: values,
      ScanIndexForward: query.ascending !== backwards,
      // BETWEEN includes its ends: the cursor's own entry comes back and is left out.
      Limit: limit + (bound === 'between' ? 2 : 0),
    }),
  );
  const { sortKey } = index;
  const found = (out.Items ?? [])
    .map((i) => {
      const sk = prefix === undefined ? String(i[sortKey]) : keys.unprefixedSortKey(prefix, String(i[sortKey]));
      return { ticket: keys.ticketOfSortKey(sk), key: sk };
    })
    .filter((e) => e.key !== upper && e.key !== lowerExclusive)
    .slice(0, limit);
  return backwards ? found.reverse() : found;
}

/**
 * The ticket created last before `time`, by the whole-table `created` partition (newest first, one
 * keys-only entry: half a read unit), as far as the listing items have caught up; undefined when
 * none was. A ticket not listed yet only leaves the answer an earlier one.
 */
export async function lastCreatedBefore(time: string): Promise<number | undefined> {
  // Below `<time>#000000000000` (no ticket has id 0): every ticket created before `time`, none created at it.
  const [entry] = await readListing(
    {
      dimension: 'created',
      partition: keys.listingPartition('created'),
      after: keys.listingSortKey(0, time),
      ascending: false,
    },
    1,
  );
  return entry?.ticket;
}

/**
 * Every ticket listed under the queues and the assignee given (`LIST#queue#<q>`, `LIST#assigned#<a>`),
 * each partition read whole (keys only, about 100 bytes an entry, one Query per 1 MB), at once: what a
 * limited staff member may see, for the lists that are not of tickets (followups, files, the change
 * feed, webhook deliveries). As the listings, it follows the stream.
 */
export async function ticketsListedUnder(queues: Iterable<number>, assignee: number): Promise<Set<number>> {
  const partitions = [
    ...[...queues].map((q) => ['queue', keys.listingPartition('queue', String(q))] as const),
    ['assigned', keys.listingPartition('assigned', String(assignee))] as const,
  ];
  const pages = await Promise.all(
    partitions.map(async ([dimension, partition]) => {
      const { index, ...table } = listingIndexQuery(dimension);
      const items = await queryAll({
        ...table,
        KeyConditionExpression: inIndex(index),
        ExpressionAttributeValues: { ':pk': partition },
      });
      return items.map((i) => keys.ticketOfSortKey(String(i[index.sortKey])));
    }),
  );
  return new Set(pages.flat());
}
