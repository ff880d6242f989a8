/**
 * The ticket list with a filter or an ordering other than upstream's (domain/ticket-list-query.ts):
 * a named access pattern per filter (docs/data-model.md, "Filtered lists"), never a Scan. A filtered
 * page is one Query of the filter's index partition (per status asked for; per priority, all five,
 * for id order with only time filters) for the page's ticket ids (gsi4 listing records, or gsi3 for a
 * submitter), or for an agent view in another order than id its id-order partitions read whole (at
 * most VIEW_SORT_BOUND entries) and sorted by the values they carry, and one BatchGetItem of their
 * page snapshots (store/page-snapshots.ts); paged by cursor (a position in the list's order). In id
 * order with `created_since`, one Query more finds the list's id floor.
 */
import { HttpError, NotFound } from '../domain/errors';
import { isIdCursor, type PageLinks, type PageRequest } from '../domain/pagination';
import {
  countSourceOf,
  matchesFilters,
  sortedViewOf,
  stillMatches,
  storedDimensionOf,
  unsortedPlan,
  viewSizeTerms,
  type IdFloor,
  type ListingSource,
  type SizeTerm,
  type TicketListQuery,
} from '../domain/ticket-list-query';
import { canAccessTicket } from '../domain/queue-access';
import { totalOf, viewCountId, type ViewCountItem } from '../domain/ticket-counts';
import type { TicketCollection } from '../domain/records';
import { isListingSortKey, keys, orderOf, type ListingOrder } from './keys';
import { lastCreatedBefore, readListing, readViewWhole, sortValue, type ListingQuery } from './listings';
import { readPageCollections } from './page-snapshots';
import { readTotals, readViewCounts } from './ticket-counts';
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
    super(400, {
      detail:
        'This list (a filter or an ordering other than id) is paged by cursor: follow the next and previous ' +
        'links; page numbers are not served.',
    });
  }
}

/**
 * Index entries a page reads at most when filters remain to be checked on the tickets (the list's
 * source does not serve them all): the page shows the matches among them, and its `next` link
 * continues after the last entry read, so a page may be short, never missing a match.
 */
export const CHECK_BUDGET = 100;

/**
 * The entries a sorted agent view (`<view>@<order>`: domain/listing-dimensions.ts) reads at most: its id-order
 * partitions are read whole (keys only, about 170 bytes an entry) and sorted in memory. 2,000 entries are about 340 KB,
 * some 42 read units eventually consistent, so that a page of such a view (with its 25 snapshots) stays within the
 * read budget of a page whose filters are checked (CHECK_BUDGET: about 55); and one Query each (a page is 1 MB). A
 * larger view (every open ticket of a big queue), as its count items say before it is read, reads the whole table in
 * that order instead, its filters checked; so does one whose records are found past the bound while its count items
 * lag (the read stops there).
 */
export const VIEW_SORT_BOUND = 2000;

/**
 * The listing (or gsi3) partitions a source reads: one per value (several statuses: one each, merged in the list's
 * order). A partition named twice (a limited staff member's status × queue × assignee, one branch per queue: the same
 * assignee's partitions) is read once, keeping the entries any of them keeps.
 */
function partitionsOf(source: ListingSource): Omit<ListingQuery, 'ascending'>[] {
  if (source.dimension === 'submitter')
    return [{ dimension: 'submitter', partition: keys.submitterPartition(source.email) }];
  const from = source.since ? { from: source.since } : {};
  if (!source.values)
    return [
      {
        dimension: storedDimensionOf(source.dimension),
        partition: keys.listingPartition(storedDimensionOf(source.dimension)),
        ...from,
      },
    ];
  const parts = [source, ...(source.also ?? [])].flatMap(({ dimension, values = [], carrying }) =>
    values.map((value): Omit<ListingQuery, 'ascending'> => ({
      dimension: storedDimensionOf(dimension),
      // A priority's tickets: its range of the whole table by priority (`<priority>#<id:12>`), in id order.
      ...(dimension === 'priority'
        ? { partition: keys.listingPartition(storedDimensionOf(dimension)), prefix: value }
        : { partition: keys.listingPartition(storedDimensionOf(dimension), value) }),
      ...from,
      ...(carrying ? { carrying } : {}),
    })),
  );
  const once = new Map<string, Omit<ListingQuery, 'ascending'>>();
  for (const part of parts) {
    const key = `${part.partition}|${part.prefix ?? ''}`;
    const seen = once.get(key);
    if (!seen) once.set(key, part);
    // Kept by the values of both; read whole for either (no `carrying`): whole.
    else if (seen.carrying)
      once.set(key, part.carrying ? { ...seen, carrying: [...seen.carrying, ...part.carrying] } : part);
  }
  return [...once.values()];
}

/**
 * A page's worth of a sorted view's entries (read whole: readViewWhole), as readMerged gives them: from `from` on,
 * after or before a cursor, each ticket once, up to `limit`. Undefined past VIEW_SORT_BOUND, or while a record read is
 * in an earlier layout.
 */
async function readSorted(
  listings: ListingQuery[],
  order: ListingOrder,
  limit: number,
  ascending: boolean,
): Promise<{ entries: { ticket: number; key: string }[]; exhausted: boolean } | undefined> {
  const all = await readViewWhole(listings, order, VIEW_SORT_BOUND);
  if (!all) return undefined;
  const { from, after, before } = listings[0]!;
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0) * (ascending ? 1 : -1);
  const seen = new Set<number>();
  const kept = all
    .filter((e) => !seen.has(e.ticket) && !!seen.add(e.ticket))
    .filter(
      (e) =>
        (from === undefined || e.key >= from) &&
        (after === undefined || cmp(e.key, after) > 0) &&
        (before === undefined || cmp(e.key, before) < 0),
    )
    .sort((a, b) => cmp(a.key, b.key));
  const entries = before !== undefined ? kept.slice(-limit) : kept.slice(0, limit);
  return { entries, exhausted: kept.length <= limit };
}

/**
 * Up to `limit` entries of the partitions, merged in the list's order (one Query each, at once), and
 * whether that is all of them. A ticket listed in two partitions (a limited staff member's queue and
 * their own tickets) is one entry; the merge then stops where the first partition read in full stops
 * (past it, another partition's next entries could come before the ones read).
 */
async function readMerged(
  listings: ListingQuery[],
  limit: number,
  ascending: boolean,
  backwards: boolean,
): Promise<{ entries: { ticket: number; key: string }[]; exhausted: boolean }> {
  const pages = await Promise.all(listings.map((l) => readListing(l, limit)));
  if (pages.length === 1) return { entries: pages[0]!, exhausted: pages[0]!.length < limit };
  // Each page is in the list's order; read toward its end, or (backwards) toward its start from the cursor.
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0) * (ascending ? 1 : -1);
  const beyond = (key: string, end: string) => (backwards ? cmp(key, end) < 0 : cmp(key, end) > 0);
  let stop: string | undefined;
  for (const page of pages) {
    if (page.length < limit) continue;
    const end = backwards ? page[0]!.key : page.at(-1)!.key;
    if (stop === undefined || beyond(stop, end)) stop = end;
  }
  const seen = new Set<string>();
  const merged = pages
    .flat()
    .filter((e) => (stop === undefined || !beyond(e.key, stop)) && !seen.has(e.key) && !!seen.add(e.key))
    .sort((a, b) => cmp(a.key, b.key));
  return {
    entries: backwards ? merged.slice(-limit) : merged.slice(0, limit),
    exhausted: stop === undefined && merged.length < limit,
  };
}

/** The ticket list `query` asks for, one page of it. */
export async function listTicketsBy(query: TicketListQuery, request: PageRequest): Promise<TicketPage | FilteredPage> {
  if (query.kind === 'ids' && query.ascending) return listTickets(query.statuses, request);
  if (request.page !== 1) throw new CursorPagedList();
  if (query.kind === 'ids') {
    if (request.cursor && !isIdCursor(request.cursor)) throw new NotFound('Invalid cursor');
    return listTicketsDescending(query.statuses, request.pageSize, request.cursor);
  }
  const { source, ascending } = query;
  const cursor = request.cursor;
  if (cursor && isIdCursor(cursor)) throw new NotFound('Invalid cursor');
  const cursorKey = cursor && ('afterKey' in cursor ? cursor.afterKey : cursor.beforeKey);
  if (cursorKey !== undefined && !isListingSortKey(source.dimension, cursorKey)) throw new NotFound('Invalid cursor');
  const backwards = cursor !== undefined && 'beforeKey' in cursor;
  // The id floor (domain/ticket-list-query.ts idFloorOf): no ticket of the list has an id at or below
  // it. A page read toward lower ids (`-id`, or `id` before its cursor) ends there: the floor's Query
  // runs beside the partitions' and the entries at or below it are dropped. A page read toward higher
  // ids starts after the floor when it is the first (its Query first: one round trip more), else
  // after its cursor without asking: the page that handed out the cursor read above the floor as it
  // was then, and the floor rises past a cursor only by tickets created before the list's time listed
  // since (the stream's delay, or a time still to come), which are read and checked like any other.
  // The floor spares reading; it never decides a match.
  const downward = ascending === backwards;
  const startFloor = query.idFloor && !downward && !cursor ? await floorKeyOf(query.idFloor) : undefined;
  const after = backwards ? undefined : (cursorKey ?? startFloor);
  const listings: ListingQuery[] = partitionsOf(source).map((p) => ({
    ...p,
    ascending,
    ...(after !== undefined ? { after } : {}),
    ...(backwards ? { before: cursorKey } : {}),
  }));
  const checking = Object.keys(query.residual).length > 0;
  const limit = checking ? Math.max(CHECK_BUDGET, request.pageSize + 1) : request.pageSize + 1;
  const order = source.dimension === 'submitter' ? 'id' : orderOf(source.dimension);
  // A sorted view, or an agent view kept by a value its records carry (status × queue × assignee): read whole.
  const whole =
    (source.dimension !== 'submitter' && sortedViewOf(source.dimension) !== undefined) ||
    listings.some((l) => l.carrying);
  // A view read whole from several partitions is sized first, by its count items (read with the list's count: one
  // round trip more, no request more): past its bound it is not read, as its partitions are read at once and each
  // would read up to the bound. One partition alone reads at most the bound and then stops, as it would to size it.
  const sized = whole && listings.length > 1 ? await countAndSize(query, viewSizeTerms(source)) : undefined;
  const fits = !sized || sized.size <= VIEW_SORT_BOUND;
  const [read, count, endFloor] = await Promise.all([
    !fits
      ? undefined
      : whole
        ? readSorted(listings, order, limit, ascending)
        : readMerged(listings, limit, ascending, backwards),
    sized ? sized.count : listCount(query),
    query.idFloor && downward && fits ? floorKeyOf(query.idFloor) : undefined,
  ]);
  // A view read whole past its bound (or not yet backfilled): the generic source of its order, its filters checked.
  if (!read) return listTicketsBy(unsortedPlan(query), request);
  const { entries: listed, exhausted: allRead } = read;
  // Read toward lower ids, in the list's order or against it (backwards: reversed after): the entries at or below the
  // floor are the far end.
  const entries = endFloor === undefined ? listed : listed.filter((e) => e.key > endFloor);
  // Fewer than asked for, or the floor reached: nothing further in the direction read.
  const exhausted = allRead || entries.length < listed.length;
  // Checking reads the snapshots of every entry (to check the filters on), else of the page's only.
  const checked = checking ? await readPageCollections(entries.map((e) => e.ticket)) : undefined;
  const candidates = checked
    ? entries.filter((e) => {
        const c = checked.get(e.ticket);
        return c !== undefined && matchesFilters(query.residual, c.ticket) && canAccessTicket(query.scope, c.ticket);
      })
    : entries;
  const shown = backwards ? candidates.slice(-request.pageSize) : candidates.slice(0, request.pageSize);
  const beyond = candidates.length > request.pageSize;
  // The far end of the page: its last match when there are more, else the last entry read when the budget ran out
  // first.
  const farKey = beyond
    ? backwards
      ? shown[0]!.key
      : shown.at(-1)!.key
    : exhausted
      ? undefined
      : backwards
        ? entries[0]!.key
        : entries.at(-1)!.key;
  // The near end: its first match, else its first entry read, else (nothing read above the floor) where it started.
  const nearKey =
    (backwards ? shown.at(-1)?.key : shown[0]?.key) ??
    (backwards ? entries.at(-1)?.key : entries[0]?.key) ??
    (endFloor !== undefined ? cursorKey : undefined);
  const collections = checked ?? (await readPageCollections(shown.map((e) => e.ticket)));
  const tickets = shown.flatMap(({ ticket, key }) => {
    const c = collections.get(ticket);
    // The index follows the stream: an entry of a ticket deleted or changed a moment ago is left out
    // (a changed sort value shows under its new entry).
    if (!c || !stillMatches(query, c.ticket)) return [];
    if (key !== keys.listingSortKey(ticket, sortValue(c.ticket, order))) return [];
    return [c];
  });
  return {
    count,
    links: {
      next: backwards
        ? nearKey === undefined
          ? null
          : { afterKey: nearKey }
        : farKey === undefined
          ? null
          : { afterKey: farKey },
      previous: backwards
        ? farKey === undefined
          ? null
          : { beforeKey: farKey }
        : cursor === undefined || nearKey === undefined
          ? null
          : { beforeKey: nearKey },
    },
    tickets,
  };
}

/** The id-order sort key of the list's id floor: that of the ticket created last before its time (none: no floor). */
async function floorKeyOf(floor: IdFloor): Promise<string | undefined> {
  const ticket = await lastCreatedBefore(floor.createdBefore);
  return ticket === undefined ? undefined : keys.listingSortKey(ticket);
}

/**
 * The list's `count` where the counts keep it (domain/ticket-list-query.ts countSourceOf): the
 * totals item, or agent views' count items (one request), all strongly consistent; null where
 * they do not.
 */
export async function listCount(query: TicketListQuery): Promise<number | null> {
  return (await countAndSize(query, [])).count;
}

/**
 * The list's `count` (listCount) and the entries the view count items `sizes` count (viewSizeTerms: what reading an
 * agent view whole would read), the view count items of both in one request.
 */
async function countAndSize(
  query: TicketListQuery,
  sizes: SizeTerm[],
): Promise<{ count: number | null; size: number }> {
  const source = countSourceOf(query);
  const counted = !source || 'totals' in source ? [] : 'view' in source ? [source.view] : source.sum.map((t) => t.item);
  const items = [...new Map([...counted, ...sizes.map((t) => t.item)].map((i) => [viewCountId(i), i])).values()];
  const [read, totals] = await Promise.all([
    items.length ? readViewCounts(items) : [],
    source && 'totals' in source ? readTotals() : undefined,
  ]);
  const itemOf = new Map(items.map((item, i) => [viewCountId(item), read[i]]));
  const of = (item: ViewCountItem) => itemOf.get(viewCountId(item));
  const size = sizes.reduce((sum, t) => sum + totalOf(of(t.item), t.statuses), 0);
  if (source === undefined) return { count: null, size };
  if ('view' in source) return { count: totalOf(of(source.view), source.statuses), size };
  if ('sum' in source) {
    const sum = source.sum.reduce((total, t) => total + t.sign * totalOf(of(t.item), source.statuses), 0);
    return { count: Math.max(0, sum), size };
  }
  if (source.totals === 'all') return { count: totalOf(totals, undefined), size };
  return { count: source.totals.reduce((sum, a) => sum + Math.max(0, Number(totals?.[a] ?? 0)), 0), size };
}
