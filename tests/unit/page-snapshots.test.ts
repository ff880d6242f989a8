/**
 * Which page snapshots a batch of stream records rewrites or deletes, and what a snapshot keeps
 * (store/page-snapshots.ts).
 */
import { describe, expect, it } from 'vitest';
import { SNAPSHOT_MAX_BYTES, snapshotChanges, snapshotItem } from '../../shared/consumer/page-snapshots';
import type { TableChange } from '../../shared/consumer/changes';
import { CREATED_ALONE } from '../../shared/store/items';

const change = (eventName: TableChange['eventName'], ticket: number, SK: string, more: Partial<TableChange> = {}) => ({
  eventName,
  keys: { PK: `TICKET#${ticket}`, SK },
  ...more,
});
/** A lone create's INSERT as the stream's reader hands it out. */
const loneCreate = (ticket: number, more: Partial<TableChange> = {}) =>
  change('INSERT', ticket, 'TICKET', {
    newImage: { PK: `TICKET#${ticket}`, SK: 'TICKET', type: 'ticket', id: ticket, [CREATED_ALONE]: true },
    inStreamOrder: true,
    ...more,
  });

describe('snapshotChanges', () => {
  it(
    'every ticket with a record of its collection, once; deleted ones (the batch ends with their ticket item ' +
      'removed) apart',
    () => {
      const changes = [
        change('INSERT', 1, 'TICKET'),
        change('MODIFY', 1, 'TICKET'),
        change('INSERT', 2, 'FOLLOWUP#000000000009'),
        change('REMOVE', 3, 'TICKET'),
        change('REMOVE', 3, 'FOLLOWUP#000000000010'),
        change('REMOVE', 4, 'ATTACHMENT#000000000011'),
        { eventName: 'INSERT', keys: { PK: 'MAIL#5', SK: 'MAIL#x' } } as TableChange,
      ];
      expect(snapshotChanges(changes)).toEqual({ refresh: [1, 2, 4], removed: [3], created: new Map() });
    },
  );

  it("a lone create's INSERT, its collection's only record, in stream order: made from its image", () => {
    const { refresh, created } = snapshotChanges([loneCreate(5)]);
    expect(refresh).toEqual([]);
    expect([...created.keys()]).toEqual([5]);
    expect(created.get(5)).toMatchObject({ id: 5 });
  });

  it.each([
    ['with another record of its collection in the batch', [loneCreate(5), change('INSERT', 5, 'FOLLOWUP#1')]],
    ['from a retry queue or a replay (not in stream order)', [loneCreate(5, { inStreamOrder: undefined })]],
    [
      'of a create that wrote more of its collection (an attachment)',
      [loneCreate(5, { newImage: { PK: 'TICKET#5', SK: 'TICKET', type: 'ticket', id: 5 } })],
    ],
  ])('read from its collection: a create %s', (_, changes) => {
    expect(snapshotChanges(changes)).toEqual({ refresh: [5], removed: [], created: new Map() });
  });
});

describe('snapshotItem', () => {
  const ticket = {
    PK: 'TICKET#7',
    SK: 'TICKET',
    GSI1PK: 'TICKETS',
    GSI1SK: '000000000007#TICKET',
    GSI2PK: 'TICKETS#STATUS#1',
    GSI2SK: 'x',
    type: 'ticket',
    id: 7,
    version: 4,
    title: 'T',
  };
  it('keeps the items without their index keys, with the ticket version', () => {
    const item = snapshotItem(7, [ticket])!;
    expect(item).toMatchObject({ PK: 'LISTED#7', SK: 'PAGE', ticket: 7, version: 4 });
    expect(JSON.parse(item.items as string)).toEqual([
      { PK: 'TICKET#7', SK: 'TICKET', type: 'ticket', id: 7, version: 4, title: 'T' },
    ]);
  });

  it('none for a collection past the bound: the page reads it by its Query', () => {
    expect(snapshotItem(7, [{ ...ticket, description: 'x'.repeat(SNAPSHOT_MAX_BYTES) }])).toBeUndefined();
  });
});
