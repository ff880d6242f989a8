/**
 * Which page snapshots a batch of stream records rewrites or deletes, and what a snapshot keeps
 * (store/page-snapshots.ts).
 */
import { describe, expect, it } from 'vitest';
import { SNAPSHOT_MAX_BYTES, snapshotChanges, snapshotItem } from '../../shared/consumer/page-snapshots';
import type { TableChange } from '../../shared/consumer/changes';

const change = (eventName: TableChange['eventName'], ticket: number, SK: string): TableChange => ({
  eventName,
  keys: { PK: `TICKET#${ticket}`, SK },
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
      expect(snapshotChanges(changes)).toEqual({ refresh: [1, 2, 4], removed: [3] });
    },
  );
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
