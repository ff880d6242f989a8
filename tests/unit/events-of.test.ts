/** Change events from stream records (shared/consumer/events-of.ts) and their place in the feed (change-feed.ts). */
import { describe, expect, it } from 'vitest';
import type { CustomFieldDefinition } from '../../shared/domain/custom-fields';
import { feedEvent } from '../../shared/domain/events';
import type { Attachment, Followup, Ticket } from '../../shared/domain/records';
import { eventId, eventsOf, type EventContext } from '../../shared/consumer/events-of';
import { attachmentItem, followupItem, ticketItem, WRITTEN_OUT } from '../../shared/store/items';
import { keys } from '../../shared/store/keys';
import type { TableChange } from '../../shared/consumer/changes';
import { changeEventFromItem, decodeFeedCursor, encodeFeedCursor } from '../../shared/store/change-feed';
import { changeEventItem, feedPosition } from '../../shared/consumer/change-feed';

const defs: CustomFieldDefinition[] = [
  {
    name: 'region',
    key: 'k1',
    label: 'Region',
    help_text: '',
    data_type: 'varchar',
    max_length: 20,
    decimal_places: null,
    empty_selection_list: false,
    list_values: [],
    required: false,
    staff_only: true,
    ordering: 1,
  },
];
const ctx: EventContext = { defs, baseUrl: 'https://helpdesk.example.com' };
const stream = {
  id: 'c81e728d9d4c2f636f067f89cc14862c',
  sequence: '4966389100000000000000012',
  at: Date.parse('2026-11-25T12:00:01Z'),
};

const ticket: Ticket = {
  id: 7,
  queue: 1,
  title: 'Printer on fire',
  description: 'Third floor',
  resolution: null,
  submitter_email: 'ann@example.com',
  assigned_to: null,
  status: 1,
  on_hold: false,
  priority: 3,
  due_date: null,
  merged_to: null,
  secret_key: 's3cr3t',
  created: '2026-11-25T12:00:00.100000Z',
  modified: '2026-11-25T12:00:00.100000Z',
  custom: { k1: 'north' },
};
const opening: Followup = {
  id: 11,
  ticket: 7,
  user: 1,
  title: 'Ticket Opened',
  comment: 'Third floor',
  public: true,
  new_status: null,
  time_spent: null,
  date: ticket.created,
  message_id: null,
};
const attachment: Attachment = {
  id: 3,
  ticket: 7,
  followup: 11,
  filename: 'fire.jpg',
  mime_type: 'image/jpeg',
  size: 10,
  object_key: 'attachments/7/uuid',
};

const record = (
  eventName: TableChange['eventName'],
  oldImage?: Record<string, unknown>,
  newImage?: Record<string, unknown>,
): TableChange => {
  const image = (newImage ?? oldImage)!;
  return { eventName, keys: { PK: String(image.PK), SK: String(image.SK) }, oldImage, newImage, stream };
};
const names = (change: TableChange) => eventsOf(change, ctx).map((d) => d.event.event);

describe('events of a ticket record', () => {
  it(
    'an insert is ticket.created with the ticket as staff see it, and followup.created for the opening followup ' +
      'it holds',
    () => {
      const [created, followup] = eventsOf(record('INSERT', undefined, ticketItem(ticket, opening)), ctx);
      expect(created!.event).toMatchObject({
        event: 'ticket.created',
        ticket: 7,
        followup: null,
        attachment: null,
        changes: null,
        created: '2026-11-25T12:00:00.100000Z',
      });
      expect(created!.event.data).toMatchObject({ id: 7, title: 'Printer on fire', custom_region: 'north', status: 1 });
      // Bookkeeping and secrets never show; followups have events of their own.
      for (const hidden of ['secret_key', 'version', 'opening', 'PK', 'GSI1PK', 'modified', 'followup_set'])
        expect(created!.event.data).not.toHaveProperty(hidden);
      expect(followup!.event).toMatchObject({
        event: 'followup.created',
        ticket: 7,
        followup: 11,
        data: { id: 11, public: true, comment: 'Third floor' },
      });
      expect([created!.index, followup!.index]).toEqual([0, 1]);
      expect(created!.event.id).not.toBe(followup!.event.id);
    },
  );

  it('ids are stable across retries of the record, and differ between records', () => {
    const twice = [
      eventsOf(record('INSERT', undefined, ticketItem(ticket)), ctx),
      eventsOf(record('INSERT', undefined, ticketItem(ticket)), ctx),
    ];
    expect(twice[0]![0]!.event.id).toBe(twice[1]![0]!.event.id);
    expect(twice[0]![0]!.event.id).toBe(eventId(stream, 0));
    expect(eventId({ id: 'another' }, 0)).not.toBe(eventId(stream, 0));
    expect(eventId(stream, 0)).toMatch(/^evt_[\w-]{24}$/);
  });

  it(
    'an update lists exactly the visible fields that changed, with old and new values; a status change also ' +
      'gives ticket.status_changed',
    () => {
      const before = { ...ticketItem(ticket), version: 4 };
      const after = {
        ...before,
        ...keys.listByStatus(3, 7, 'TICKET'),
        version: 5,
        status: 3,
        priority: 1,
        custom: { k1: 'south' },
        modified: '2026-11-25T12:05:00.000000Z',
      };
      const events = eventsOf(record('MODIFY', before, after), ctx);
      expect(events.map((d) => d.event.event)).toEqual(['ticket.updated', 'ticket.status_changed']);
      expect(events[0]!.event.changes).toEqual({
        status: { old: 1, new: 3 },
        priority: { old: 3, new: 1 },
        custom_region: { old: 'north', new: 'south' },
      });
      expect(events[0]!.event.created).toBe('2026-11-25T12:05:00Z');
      expect(events[1]!.event.changes).toEqual({ status: { old: 1, new: 3 } });
    },
  );

  it(
    "a resolution that is a private followup's comment is marked on the events, before and after, and the feed " +
      'does not list the mark',
    () => {
      const before = { ...ticketItem(ticket), version: 4 };
      const after = { ...before, version: 5, status: 3, resolution: 'the safe code is 1234', resolution_private: true };
      const events = eventsOf(record('MODIFY', before, after), ctx);
      expect(events.map((d) => d.event.private_fields)).toEqual([
        { before: [], after: ['resolution'] },
        { before: [], after: ['resolution'] },
      ]);
      expect(eventsOf(record('REMOVE', after), ctx)[0]!.event.private_fields).toEqual({
        before: ['resolution'],
        after: [],
      });
      expect(
        eventsOf(record('MODIFY', before, { ...before, version: 5, priority: 1 }), ctx)[0]!.event,
      ).not.toHaveProperty('private_fields');
      expect(feedEvent(events[0]!.event)).not.toHaveProperty('private_fields');
      expect(changeEventFromItem(changeEventItem(events[0]!, stream.at, 5000)).private_fields).toEqual({
        before: [],
        after: ['resolution'],
      });
    },
  );

  it('bookkeeping alone gives no event: version, modified, index keys, the opening followup written out', () => {
    const before = { ...ticketItem(ticket, opening), version: 4 };
    const { opening: _, ...writtenOut } = before as Record<string, unknown>;
    expect(names(record('MODIFY', before, writtenOut))).toEqual([]);
    expect(names(record('MODIFY', before, { ...before, version: 5, modified: '2026-11-25T13:00:00.000000Z' }))).toEqual(
      [],
    );
    expect(names(record('MODIFY', before, { ...before, ...keys.listByStatus(2, 7, 'TICKET') }))).toEqual([]);
  });

  it('a merge is an update of merged_to (the pointer item in the target gives nothing)', () => {
    const before = ticketItem(ticket);
    expect(eventsOf(record('MODIFY', before, { ...before, merged_to: 9 }), ctx)[0]!.event.changes).toEqual({
      merged_to: { old: null, new: 9 },
    });
    const pointer = { ...keys.mergedFrom(9, 7), type: 'merged', source: 7 };
    expect(names(record('INSERT', undefined, pointer))).toEqual([]);
  });

  it('a delete is ticket.deleted with the record as it was, at the stream record time', () => {
    const [deleted] = eventsOf(record('REMOVE', ticketItem(ticket, opening)), ctx);
    expect(deleted!.event).toMatchObject({
      event: 'ticket.deleted',
      created: '2026-11-25T12:00:01Z',
      data: { id: 7, title: 'Printer on fire' },
    });
    expect(eventsOf(record('REMOVE', ticketItem(ticket, opening)), ctx)).toHaveLength(1);
  });
});

describe('events of followup and attachment records', () => {
  const item = followupItem({ ...opening, id: 12, comment: 'On it' }, 1);

  it('created, updated with the changed fields, deleted', () => {
    expect(eventsOf(record('INSERT', undefined, item), ctx)[0]!.event).toMatchObject({
      event: 'followup.created',
      followup: 12,
      ticket: 7,
    });
    const [updated] = eventsOf(record('MODIFY', item, { ...item, comment: 'Fixed', public: false }), ctx);
    expect(updated!.event).toMatchObject({
      event: 'followup.updated',
      changes: { comment: { old: 'On it', new: 'Fixed' }, public: { old: true, new: false } },
      data: { public: false },
    });
    expect(updated!.event.data).not.toHaveProperty('followupattachment_set');
    expect(eventsOf(record('REMOVE', item), ctx)[0]!.event).toMatchObject({
      event: 'followup.deleted',
      followup: 12,
      data: { comment: 'On it' },
    });
  });

  it('an opening followup written out of its ticket item is not a new followup; re-keying in gsi2 is no update', () => {
    const written = { ...followupItem(opening, 1), [WRITTEN_OUT]: true };
    expect(names(record('INSERT', undefined, written))).toEqual([]);
    // Its first edit drops the mark: only the edit shows.
    expect(
      eventsOf(record('MODIFY', written, { ...followupItem(opening, 1), title: 'Renamed' }), ctx)[0]!.event.changes,
    ).toEqual({ title: { old: 'Ticket Opened', new: 'Renamed' } });
    expect(names(record('MODIFY', item, { ...item, ...keys.listByStatus(3, 7, 'FOLLOWUP#000000000012') }))).toEqual([]);
  });

  it('attachments: created and deleted, with their ticket and followup; their MODIFYs are re-keying', () => {
    const a = attachmentItem(attachment, 1);
    const [created] = eventsOf(record('INSERT', undefined, a), ctx);
    expect(created!.event).toMatchObject({
      event: 'attachment.created',
      ticket: 7,
      followup: 11,
      attachment: 3,
      data: {
        id: 3,
        ticket: 7,
        filename: 'fire.jpg',
        file: 'https://helpdesk.example.com/api/tickets/7/attachments/3',
      },
    });
    expect(names(record('REMOVE', a))).toEqual(['attachment.deleted']);
    expect(names(record('MODIFY', a, { ...a, ...keys.listByStatus(3, 7, 'ATTACHMENT#000000000003') }))).toEqual([]);
  });

  it('records outside ticket collections, and records without a stream position, give nothing', () => {
    expect(names(record('INSERT', undefined, { ...keys.ref('followup', 12), type: 'ref', id: 12, ticket: 7 }))).toEqual(
      [],
    );
    expect(names({ ...record('INSERT', undefined, item), stream: undefined })).toEqual([]);
  });
});

describe('the feed position', () => {
  const [derived] = eventsOf(record('INSERT', undefined, ticketItem(ticket)), ctx);

  it('is the record time, sequence number and index: a retried record lands on the same item', () => {
    const now = stream.at + 1000;
    const { position } = feedPosition(derived!, now, 5000);
    expect(position).toBe(`2026-11-25T12:00:01.000Z#${stream.sequence.padStart(40, '0')}#0`);
    expect(changeEventItem(derived!, now, 5000)).toEqual(changeEventItem(derived!, now + 1000, 5000));
    expect(changeEventItem(derived!, now, 5000)).toMatchObject({
      PK: 'EVENTS',
      SK: position,
      type: 'change-event',
      id: derived!.event.id,
      expires_at: stream.at / 1000 + 30 * 86_400,
    });
  });

  it(
    'an event written later than half the settle horizon goes at the current time, so no cursor handed out is ' +
      'past it',
    () => {
      const now = stream.at + 2600;
      expect(feedPosition(derived!, now, 5000).position.startsWith(new Date(now).toISOString())).toBe(true);
      expect(feedPosition(derived!, now, 0).time).toBe(now);
    },
  );

  it('cursors are opaque and signed: only positions the feed gives out decode, with its key (issue 25)', () => {
    const key = Buffer.alloc(32, 7);
    const { position } = feedPosition(derived!, stream.at, 5000);
    expect(decodeFeedCursor(encodeFeedCursor(position, key), key)).toBe(position);
    expect(Buffer.from(encodeFeedCursor(position, key), 'base64url').toString()).not.toBe(position);
    // A well-formed position far ahead, unsigned as cursors used to be, or signed with another key.
    const ahead = keys.eventPosition('2099-01-01T00:00:00.000Z', '1', 0);
    const forged = [
      Buffer.from(ahead).toString('base64url'),
      Buffer.from(`${ahead}.${'A'.repeat(22)}`).toString('base64url'),
      encodeFeedCursor(ahead, Buffer.alloc(32, 8)),
    ];
    for (const bad of [
      '',
      'abc',
      encodeFeedCursor('2026-11-25T12:00:01.000Z#12#0', key),
      encodeFeedCursor(`${position}x`, key),
      `${encodeFeedCursor(position, key)}=`,
      ...forged,
    ]) {
      expect(decodeFeedCursor(bad, key)).toBeUndefined();
    }
  });
});
