/**
 * Listing items: what the filtered and time-ordered ticket lists read (docs/data-model.md, "Filtered lists"). Each
 * ticket has one item in the listings table (`LISTED#<id>`) carrying its keys in every listing dimension
 * (LISTING_DIMENSIONS), each dimension an index of its own (keys.ts LISTING_INDEXES); an agent view's entry projects
 * the ticket's sort values and the other view's value (store/listings.ts carriedValues), so that the view sorts in any
 * order from its partitions alone and status × queue × assignee is either view kept by that value. A change rewrites
 * the item, and DynamoDB writes only the index entries whose keys or projected values changed.
 * They are written only by the stream consumer (consumer/table-changes.ts), never by a request, so the
 * request path's write units do not grow; they lag a write by the stream's delay.
 *
 * Records come twice, late or out of order: each listing item carries the ticket item `version` it was written from,
 * and the backfill's write is conditional on holding an older one, so the newest wins. A deleted ticket's item becomes
 * a tombstone (the largest version, no index keys, expiring after the stream's retention), so a late record cannot
 * bring it back.
 */
import { PutCommand } from '../aws/dynamodb';
import { config, listingsTableOf } from '../config';
import { dynamo } from '../aws/clients';
import {
  keys,
  isWholeTableDimension,
  LISTING_CARRIED,
  LISTING_DIMENSIONS,
  listingKeys,
  orderOf,
  TICKET_PREFIX,
  TICKET_SORT_KEY,
  type ListingDimension,
} from '../store/keys';
import { isAgentView } from '../domain/listing-dimensions';
import { assigneeOf, carriedValues, sortValue, sortValuesOf, type ListedTicket } from '../store/listings';
import type { TableChange } from './changes';
import { isConditionFailure } from '../store/transact';
import { batchWrite } from '../store/query';
import { DELETED_VERSION } from '../domain/ticket-counts';
import type { CountedMoves } from './ticket-counts';

type Item = Record<string, unknown>;

/** A deleted ticket's listing item (its tombstone): newer than any record of it. */
const TOMBSTONE_VERSION = Number.MAX_SAFE_INTEGER;
/** Tombstones outlive the stream's 24-hour retention, then go. */
const TOMBSTONE_SECONDS = 2 * 86_400;
/** Conditional PutItems the backfill sends at once. */
const PARALLEL_WRITES = 25;

/**
 * Where a ticket is listed in one dimension: its partition's value (none: the whole-table ones), its sort value
 * before the id (none: id order), and for an agent view what its record carries after the id (the sort values and the
 * other view's value: store/listings.ts carriedValues).
 */
export interface ListingPlace {
  value?: string;
  sort?: string;
  carried?: string;
}

/** The filter value of a ticket's partition in a view (`<status>#…` for the agent views). */
function viewValue(ticket: Partial<ListedTicket>, dimension: ListingDimension): string | undefined {
  if (isWholeTableDimension(dimension)) return undefined;
  switch (dimension.split('@')[0]) {
    case 'queue':
      return String(ticket.queue);
    case 'assigned':
      return assigneeOf(ticket);
    case 'status-queue':
      return `${ticket.status}#${ticket.queue}`;
    default:
      return `${ticket.status}#${assigneeOf(ticket)}`;
  }
}

/** Where a ticket is listed in one dimension. */
export function listingPlace(ticket: Partial<ListedTicket>, dimension: ListingDimension): ListingPlace {
  const value = viewValue(ticket, dimension);
  const sort = sortValue(ticket, orderOf(dimension));
  return {
    ...(value === undefined ? {} : { value }),
    ...(sort === undefined ? {} : { sort }),
    ...(isAgentView(dimension) ? { carried: carriedValues(ticket, dimension) } : {}),
  };
}

const samePlace = (a: ListingPlace, b: ListingPlace) =>
  a.value === b.value && a.sort === b.sort && a.carried === b.carried;

/** Where a ticket is listed in every dimension. */
const placesOf = (ticket: Partial<ListedTicket>) =>
  LISTING_DIMENSIONS.map((dimension) => [dimension, listingPlace(ticket, dimension)] as const);

/** Whether a change of a ticket item moves it in some listing (or changes what a view's entry carries). */
const movesListing = (next: Item, previous: Item) =>
  placesOf(next).some(([dimension, place]) => !samePlace(listingPlace(previous, dimension), place));

/** One listing write: a live ticket's item (with its places and what it carries for the views) or a tombstone. */
export interface ListingWrite {
  ticket: number;
  version: number;
  places?: (readonly [ListingDimension, ListingPlace])[];
  /** LISTING_CARRIED's values: the ticket's sort values, its queue and its assignee. */
  carried?: { sorts: string; queue: string; assignee: string };
}

/** The listing write of a ticket item as it is now (none: deleted, a tombstone). */
const listingWriteOf = (ticket: number, version: number, next: Item | undefined): ListingWrite =>
  next
    ? {
        ticket,
        version,
        places: placesOf(next),
        carried: { sorts: sortValuesOf(next), queue: String(next.queue), assignee: assigneeOf(next) },
      }
    : { ticket, version: TOMBSTONE_VERSION };

/** A listing write's item in the listings table (a tombstone: no index keys, expiring). */
export function listingItem(write: ListingWrite, now: number): Item {
  const base = { ...keys.listed(write.ticket), version: write.version };
  if (write.places === undefined) return { ...base, expires_at: Math.floor(now / 1000) + TOMBSTONE_SECONDS };
  const item: Item = base;
  for (const [dimension, { value, sort }] of write.places)
    Object.assign(item, listingKeys(dimension, write.ticket, value, sort));
  const { sorts, queue, assignee } = write.carried!;
  return {
    ...item,
    [LISTING_CARRIED.sorts]: sorts,
    [LISTING_CARRIED.queue]: queue,
    [LISTING_CARRIED.assignee]: assignee,
  };
}

/**
 * Writes each listing item unless the stored one is newer (1 conditional PutItem each; a refusal is the expected
 * no-op): the backfill's, which so also rewrites an item of the same version in the layout of this one.
 */
export async function applyListingWrites(writes: ListingWrite[], now = Date.now()): Promise<void> {
  for (let i = 0; i < writes.length; i += PARALLEL_WRITES) {
    await Promise.all(
      writes.slice(i, i + PARALLEL_WRITES).map((write) =>
        dynamo
          .send(
            new PutCommand({
              TableName: listingsTableOf(config.tableName),
              Item: listingItem(write, now),
              ConditionExpression: 'attribute_not_exists(#version) OR #version <= :version',
              ExpressionAttributeNames: { '#version': 'version' },
              ExpressionAttributeValues: { ':version': write.version },
            }),
          )
          .catch((error: unknown) => {
            if (!isConditionFailure(error)) throw error;
          }),
      ),
    );
  }
}

/** A ticket's listing item from its ticket item as stored (the backfill). */
export function listingWriteOfStored(ticketItem: Item): ListingWrite {
  return listingWriteOf(Number(ticketItem.id), Number(ticketItem.version ?? 0), ticketItem);
}

/**
 * The stream consumer's part for listings (consumer/table-changes.ts): the writes that bring the listing
 * items of the tickets the counts are about to move (`moves`: consumer/ticket-counts.ts) to their
 * latest record in `changes`. Those records are newer than what the counts hold, so these writes
 * need no condition of their own: the counts transaction that follows is conditional on the counted
 * states read, and commits them (a late or repeated record moves nothing, so writes nothing). For
 * an update following on from the counted version (each record's change known), none when no change moved the
 * ticket in a listing; else, or when a record between is missing, the item as the latest record has it.
 */
export function listingWritesOfMoves(moves: CountedMoves, changes: TableChange[]): ListingWrite[] {
  const byTicket = new Map<number, TableChange[]>();
  for (const c of changes) {
    if (!c.keys.PK.startsWith(TICKET_PREFIX) || c.keys.SK !== TICKET_SORT_KEY) continue;
    const ticket = Number(c.keys.PK.slice(TICKET_PREFIX.length));
    byTicket.set(ticket, [...(byTicket.get(ticket) ?? []), c]);
  }
  return moves.flatMap(({ ticket, next, previous }) => {
    if (next.version === DELETED_VERSION) return [listingWriteOf(ticket, TOMBSTONE_VERSION, undefined)];
    const since = (byTicket.get(ticket) ?? [])
      .filter((c) => c.eventName !== 'REMOVE' && Number(c.newImage?.version ?? 0) > (previous?.version ?? -1))
      .sort((a, b) => Number(a.newImage!.version ?? 0) - Number(b.newImage!.version ?? 0));
    const latest = since.at(-1)?.newImage;
    if (!latest) return [];
    const continuous =
      previous !== undefined &&
      since.every(
        (c, i) =>
          c.eventName === 'MODIFY' && c.oldImage && Number(c.newImage!.version ?? 0) === previous.version + 1 + i,
      );
    if (continuous && !since.some((c) => movesListing(c.newImage!, c.oldImage!))) return [];
    return [listingWriteOf(ticket, next.version, latest)];
  });
}

/**
 * Writes listing items as they are (BatchWriteItem, 25 a request): the consumer's, gated by the counts
 * (listingWritesOfMoves).
 */
export async function putListings(writes: ListingWrite[], now = Date.now()): Promise<void> {
  if (writes.length)
    await batchWrite(
      writes.map((w) => listingItem(w, now)),
      [],
      listingsTableOf(config.tableName),
    );
}
