/**
 * The ticket list with a filter or an ordering other than upstream's (domain/ticket-list-query.ts):
 * a named access pattern per filter (docs/data-model.md, "Filtered lists"), never a Scan and never a
 * page set filtered in memory. A filtered page is one Query of the filter's index partition for
 * the page's ticket ids (gsi4 listing records, or gsi3 for a submitter) and one Query per ticket of
 * its collection, all at once; paged by cursor (a position in the index's order).
 */
import { HttpError, NotFound } from '../domain/errors';
import { isIdCursor, type PageLinks, type PageRequest } from '../domain/pagination';
import { stillMatches, type TicketListQuery } from '../domain/ticket-list-query';
import { totalOf } from '../domain/ticket-counts';
import type { TicketCollection } from '../domain/records';
import { queryAll } from './query';
import { collectionsFrom, type ReadCollection } from './items';
import { keys, IN_PARTITION } from './keys';
import { readListing, type ListingQuery } from './listings';
import { readCounts } from './ticket-counts';
import { listTickets, listTicketsDescending, type TicketPage } from './tickets';

/** A page of a list whose `count` is not kept (a filter without a count of its own: null). */
export interface FilteredPage {
  count: number | null;
  links: PageLinks;
  tickets: TicketCollection[];
}

/** 400: page numbers on a list paged by cursor. */
export class CursorPagedList extends HttpError {
  constructor() {
    super(400, { detail: 'This list (a filter or an ordering other than id) is paged by cursor: follow the next and previous links; page numbers are not served.' });
  }
}

/** The ticket list `query` asks for, one page of it. */
export async function listTicketsBy(query: TicketListQuery, request: PageRequest): Promise<TicketPage | FilteredPage> {
  if (query.kind === 'ids' && query.ascending) return listTickets(query.statuses, request);
  if (request.page !== 1) throw new CursorPagedList();
  if (query.kind === 'ids') {
    if (request.cursor && !isIdCursor(request.cursor)) throw new NotFound('Invalid cursor');
    return listTicketsDescending(query.statuses, request.pageSize, request.cursor);
  }
  const cursor = request.cursor;
  const dimension = query.kind === 'submitter' ? 'submitter' : query.dimension;
  if (cursor && (isIdCursor(cursor) || !keys.isListingSortKey(dimension, 'afterKey' in cursor ? cursor.afterKey : cursor.beforeKey))) {
    throw new NotFound('Invalid cursor');
  }
  const listing: ListingQuery = {
    ...(query.kind === 'submitter'
      ? { index: 'gsi3', partition: keys.submitterPartition(query.email) }
      : { index: 'gsi4', partition: keys.listingPartition(query.dimension, query.value), ...(query.since ? { from: query.since } : {}) }),
    ascending: query.ascending,
    ...(cursor && 'afterKey' in cursor ? { after: cursor.afterKey } : {}),
    ...(cursor && 'beforeKey' in cursor ? { before: cursor.beforeKey } : {}),
  };
  const [entries, count] = await Promise.all([readListing(listing, request.pageSize + 1), countOf(query)]);
  const backwards = cursor !== undefined && 'beforeKey' in cursor;
  const more = entries.length > request.pageSize;
  const shown = backwards ? entries.slice(-request.pageSize) : entries.slice(0, request.pageSize);
  const first = shown[0]?.key;
  const last = shown.at(-1)?.key;
  const collections = await readCollections(shown.map((e) => e.ticket));
  const tickets = shown.flatMap(({ ticket, key }) => {
    const c = collections.get(ticket);
    // The index follows the stream: an entry of a ticket deleted or changed a moment ago is left out
    // (a changed time shows under its new entry).
    if (!c || !stillMatches(query, c.ticket)) return [];
    if (query.kind === 'listing' && (query.dimension === 'modified' || query.dimension === 'created') && key !== keys.listingSortKey(ticket, c.ticket[query.dimension])) return [];
    return [c];
  });
  return {
    count,
    links: {
      next: backwards ? (last === undefined ? null : { afterKey: last }) : more ? { afterKey: last! } : null,
      previous: backwards ? (more ? { beforeKey: first! } : null) : cursor === undefined || first === undefined ? null : { beforeKey: first },
    },
    tickets,
  };
}

/** The list's `count` where the totals keep it (every ticket, one queue); null where they do not. */
async function countOf(query: TicketListQuery): Promise<number | null> {
  if (query.kind !== 'listing' || query.since !== undefined || query.dimension === 'assigned' || query.dimension === 'priority') return null;
  const { items } = await readCounts('first', 1);
  const totals = items[0]?.SK === keys.countsTotalsFirst.SK ? items[0] : undefined;
  return query.dimension === 'queue' ? Math.max(0, Number(totals?.[`q${query.value}`] ?? 0)) : totalOf(totals, undefined);
}

/** The tickets' collections: one Query each (eventually consistent), at once. */
async function readCollections(tickets: number[]): Promise<Map<number, ReadCollection>> {
  const pages = await Promise.all(tickets.map((ticket) => queryAll({ KeyConditionExpression: IN_PARTITION, ExpressionAttributeValues: { ':pk': keys.ticketPartition(ticket) } })));
  return collectionsFrom(pages.flat());
}
