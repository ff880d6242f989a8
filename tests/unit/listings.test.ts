/**
 * Which listing records the stream consumer writes for the tickets the counts move (consumer/listings.ts
 * listingWritesOfMoves).
 */
import { describe, expect, it } from 'vitest';
import { listingWritesOfMoves } from '../../shared/consumer/listings';
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
const dimensions = (writes: { dimension: string }[]) => writes.map((w) => w.dimension).sort();

describe('listingWritesOfMoves', () => {
  it('a new ticket: every dimension, at its version', () => {
    const writes = listingWritesOfMoves([{ ticket: 7, next: counted(1), previous: undefined }], [insert(1)]);
    expect(dimensions(writes)).toEqual([...LISTING_DIMENSIONS].sort());
    expect(dimensions(writes)).not.toContain('status-queue-assigned');
    // An agent view's record carries every order's sort value after the id (created, modified, priority, due), then
    // the other view's value: a status × queue record its assignee, a status × assignee record its queue.
    expect(writes.find((w) => w.dimension === 'status-queue')).toMatchObject({
      version: 1,
      place: { value: '1#2', carried: '2030-01-01T00:00:00.000000Z#2030-01-01T00:00:00.000000Z#3#~#none' },
    });
    expect(writes.find((w) => w.dimension === 'status-assigned')).toMatchObject({
      place: { value: '1#none', carried: '2030-01-01T00:00:00.000000Z#2030-01-01T00:00:00.000000Z#3#~#2' },
    });
    expect(writes.find((w) => w.dimension === 'all@priority')).toMatchObject({ place: { sort: '3' } });
  });

  it('updates following on from the counted version: the dimensions they changed, from the latest', () => {
    const changes = [modify(2, { status: 3 }), modify(3, { status: 3, queue: 5 }, { status: 3 })];
    const writes = listingWritesOfMoves([{ ticket: 7, next: counted(3), previous: counted(1) }], changes);
    // A change moves every agent view's record: they carry `modified`.
    expect(dimensions(writes)).toEqual(
      ['modified', 'queue', ...LISTING_DIMENSIONS.filter((d) => d.startsWith('status-'))].sort(),
    );
    expect(writes.find((w) => w.dimension === 'status-queue')).toMatchObject({ version: 3, place: { value: '3#5' } });
    // The status × assignee record carries the new queue.
    expect(writes.find((w) => w.dimension === 'status-assigned')?.place?.carried).toMatch(/#5$/);
  });

  it('a change of what a list is sorted by: the records of that order, and those carrying it (and modified)', () => {
    const writes = listingWritesOfMoves(
      [{ ticket: 7, next: counted(2), previous: counted(1) }],
      [modify(2, { priority: 1, due_date: '2031-01-01T00:00:00.000000Z' })],
    );
    const views = ['status-queue', 'status-assigned'];
    expect(dimensions(writes)).toEqual(['all@due', 'all@priority', 'modified', ...views].sort());
    expect(writes.find((w) => w.dimension === 'status-assigned')).toMatchObject({
      place: {
        value: '1#none',
        carried: '2030-01-01T00:00:00.000000Z#2030-01-02T00:00:00.000000Z#1#2031-01-01T00:00:00.000000Z#2',
      },
    });
  });

  it('a record missing between the counted version and these: every dimension', () => {
    const writes = listingWritesOfMoves(
      [{ ticket: 7, next: counted(4), previous: counted(1) }],
      [modify(4, { priority: 1 })],
    );
    expect(dimensions(writes)).toEqual([...LISTING_DIMENSIONS].sort());
  });

  it('records not newer than the counted state write nothing; a deletion writes tombstones', () => {
    expect(listingWritesOfMoves([{ ticket: 7, next: counted(3), previous: counted(3) }], [modify(3, {})])).toEqual([]);
    const gone = listingWritesOfMoves(
      [{ ticket: 7, next: { status: 0, queue: 0, version: DELETED_VERSION }, previous: counted(3) }],
      [{ eventName: 'REMOVE', keys, oldImage: ticket(3) }],
    );
    expect(dimensions(gone)).toEqual([...LISTING_DIMENSIONS].sort());
    expect(gone.every((w) => w.place === undefined)).toBe(true);
  });
});
