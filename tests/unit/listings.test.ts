/**
 * Which listing items the stream consumer writes for the tickets the counts move (consumer/listings.ts
 * listingWritesOfMoves).
 */
import { describe, expect, it } from 'vitest';
import { listingItem, listingWritesOfMoves, type ListingWrite } from '../../shared/consumer/listings';
import { VIEW_SORT_BOUND } from '../../shared/store/filtered-lists';
import { itemSize } from '../../bench/item-size';
import { LISTING_DIMENSIONS } from '../../shared/store/keys';
import { DELETED_VERSION } from '../../shared/domain/ticket-counts';
import type { TableChange } from '../../shared/consumer/changes';

const ticket = (version: number, fields: Record<string, unknown> = {}) => ({
  id: 7,
  version,
  status: 1,
  queue: 2,
  assigned_to: null,
  priority: 3,
  created: '2030-01-01T00:00:00.000000Z',
  modified: `2030-01-0${version}T00:00:00.000000Z`,
  ...fields,
});
const keys = { PK: 'TICKET#7', SK: 'TICKET' };
const insert = (v: number): TableChange => ({ eventName: 'INSERT', keys, newImage: ticket(v) });
const modify = (v: number, fields: Record<string, unknown>, before: Record<string, unknown> = {}): TableChange => ({
  eventName: 'MODIFY',
  keys,
  oldImage: ticket(v - 1, before),
  newImage: ticket(v, fields),
});
const counted = (version: number) => ({ status: 1, queue: 2, version });
/** The place of a write's item in one dimension. */
const placeIn = (write: ListingWrite | undefined, dimension: string) =>
  write?.places?.find(([d]) => d === dimension)?.[1];

describe('listingWritesOfMoves', () => {
  it('a new ticket: its listing item, every dimension, at its version', () => {
    const [write, ...more] = listingWritesOfMoves([{ ticket: 7, next: counted(1), previous: undefined }], [insert(1)]);
    expect(more).toEqual([]);
    expect(write).toMatchObject({ ticket: 7, version: 1 });
    expect(write!.places!.map(([d]) => d).sort()).toEqual([...LISTING_DIMENSIONS].sort());
    // An agent view's entry carries every order's sort value (created, modified, priority, due), then the other view's
    // value: a status × queue entry its assignee, a status × assignee entry its queue.
    expect(placeIn(write, 'status-queue')).toEqual({
      value: '1#2',
      carried: '2030-01-01T00:00:00.000000Z#2030-01-01T00:00:00.000000Z#3#~#none',
    });
    expect(placeIn(write, 'status-assigned')).toEqual({
      value: '1#none',
      carried: '2030-01-01T00:00:00.000000Z#2030-01-01T00:00:00.000000Z#3#~#2',
    });
    expect(placeIn(write, 'all@priority')).toEqual({ sort: '3' });
  });

  it('updates following on from the counted version: the item as the latest has it', () => {
    const changes = [modify(2, { status: 3 }), modify(3, { status: 3, queue: 5 }, { status: 3 })];
    const [write] = listingWritesOfMoves([{ ticket: 7, next: counted(3), previous: counted(1) }], changes);
    expect(write).toMatchObject({ version: 3 });
    expect(placeIn(write, 'status-queue')).toMatchObject({ value: '3#5' });
    expect(placeIn(write, 'queue')).toEqual({ value: '5' });
    // The status × assignee entry carries the new queue.
    expect(placeIn(write, 'status-assigned')?.carried).toMatch(/#5$/);
  });

  it('a change of what a list is sorted by: the item with its new sort values, carried by the views', () => {
    const [write] = listingWritesOfMoves(
      [{ ticket: 7, next: counted(2), previous: counted(1) }],
      [modify(2, { priority: 1, due_date: '2031-01-01T00:00:00.000000Z' })],
    );
    expect(placeIn(write, 'all@priority')).toEqual({ sort: '1' });
    expect(placeIn(write, 'all@due')).toEqual({ sort: '2031-01-01T00:00:00.000000Z' });
    expect(placeIn(write, 'status-assigned')).toEqual({
      value: '1#none',
      carried: '2030-01-01T00:00:00.000000Z#2030-01-02T00:00:00.000000Z#1#2031-01-01T00:00:00.000000Z#2',
    });
  });

  it('a record missing between the counted version and these: the item as the latest has it', () => {
    const writes = listingWritesOfMoves(
      [{ ticket: 7, next: counted(4), previous: counted(1) }],
      [modify(4, { priority: 1 })],
    );
    expect(writes).toHaveLength(1);
    expect(placeIn(writes[0], 'all@priority')).toEqual({ sort: '1' });
  });

  it('a change that moves the ticket in no listing writes nothing', () => {
    // Same version numbers, same modified time: only a field no listing keys on (the title) changed.
    const change: TableChange = {
      eventName: 'MODIFY',
      keys,
      oldImage: ticket(1, { title: 'a' }),
      newImage: { ...ticket(1, { title: 'b' }), version: 2 },
    };
    expect(listingWritesOfMoves([{ ticket: 7, next: counted(2), previous: counted(1) }], [change])).toEqual([]);
  });

  it('records not newer than the counted state write nothing; a deletion writes a tombstone', () => {
    expect(listingWritesOfMoves([{ ticket: 7, next: counted(3), previous: counted(3) }], [modify(3, {})])).toEqual([]);
    const gone = listingWritesOfMoves(
      [{ ticket: 7, next: { status: 0, queue: 0, version: DELETED_VERSION }, previous: counted(3) }],
      [{ eventName: 'REMOVE', keys, oldImage: ticket(3) }],
    );
    expect(gone).toEqual([{ ticket: 7, version: Number.MAX_SAFE_INTEGER }]);
  });
});

describe('listingItem', () => {
  it("stays small enough that an agent view of VIEW_SORT_BOUND entries is one Query page of DynamoDB Local's", () => {
    // DynamoDB Local ends a Query page of an index at 1 MB of the table's items, not of the index's entries.
    const largest = {
      ...ticket(9, { due_date: '2031-12-31T23:59:59.999999Z', assigned_to: 999_999, queue: 999_999, status: 5 }),
      id: 999_999_999_999,
      version: 999_999_999,
    };
    const [write] = listingWritesOfMoves(
      [{ ticket: largest.id, next: { status: 5, queue: 999_999, version: largest.version }, previous: undefined }],
      [{ eventName: 'INSERT', keys: { PK: `TICKET#${largest.id}`, SK: 'TICKET' }, newImage: largest }],
    );
    const item = listingItem(write!, 0);
    expect(Object.keys(item).length).toBe(1 + 1 + 16 + 3);
    expect(itemSize(item)).toBeLessThanOrEqual(Math.floor(1_048_576 / (VIEW_SORT_BOUND + 1)));
  });
});
