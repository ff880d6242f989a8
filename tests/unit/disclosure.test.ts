/** The outbound policy (shared/domain/disclosure.ts): what leaves the staff's trust, on every path. */
import { describe, expect, it } from 'vitest';
import { disclosedCollection, disclosedEvent, publicResolution } from '../../shared/domain/disclosure';
import type { ChangeEvent } from '../../shared/domain/events';
import { planFollowup, parseFollowupBody } from '../../shared/domain/followup';
import { parseTicketBody, planTicketUpdate } from '../../shared/domain/ticket';
import { STATUS, type Ticket } from '../../shared/domain/records';

const NOW = new Date('2026-11-27T12:00:00Z');
const json = (data: Record<string, unknown>) => ({ kind: 'json' as const, data, files: [] });
const ticket: Ticket = {
  id: 4,
  queue: 1,
  title: 'Printer',
  description: 'On fire',
  resolution: null,
  submitter_email: 'ann@example.com',
  assigned_to: null,
  status: STATUS.OPEN,
  on_hold: false,
  priority: 3,
  due_date: null,
  merged_to: null,
  secret_key: 'k',
  created: '2026-11-27 11:00:00.000000',
  modified: '2026-11-27 11:00:00.000000',
  custom: {},
};
const followup = (body: Record<string, unknown>, on: Ticket = ticket) =>
  planFollowup(
    parseFollowupBody(json({ ticket: on.id, title: 'x', ...body })),
    { ticket: on, userExists: true },
    1,
    NOW,
  ).ticketChanges;

describe('where a resolution comes from', () => {
  it('a private followup that resolves a ticket copies its comment as upstream does, marked private', () => {
    expect(followup({ comment: 'the safe code is 1234', new_status: STATUS.RESOLVED, public: false })).toMatchObject({
      resolution: 'the safe code is 1234',
      resolution_private: true,
    });
    expect(followup({ comment: 'Fixed it', new_status: STATUS.RESOLVED, public: true })).toMatchObject({
      resolution: 'Fixed it',
      resolution_private: false,
    });
  });

  it('any followup on a resolved ticket overwrites it, and says whose it is now', () => {
    const resolved = { ...ticket, status: STATUS.RESOLVED, resolution: 'Fixed it', resolution_private: false };
    expect(followup({ comment: 'internal note' }, resolved)).toMatchObject({
      resolution: 'internal note',
      resolution_private: true,
    });
    const privately = { ...resolved, resolution: 'internal note', resolution_private: true };
    expect(followup({ comment: 'Done', public: true }, privately)).toMatchObject({
      resolution: 'Done',
      resolution_private: false,
    });
  });

  it('a resolution staff write is public; the same text sent back keeps what it was', () => {
    const privately = { ...ticket, status: STATUS.RESOLVED, resolution: 'internal note', resolution_private: true };
    const update = (data: Record<string, unknown>) =>
      planTicketUpdate(
        parseTicketBody(json(data), 'partial', []),
        { queues: new Set([1]), users: new Map(), tickets: new Map() },
        NOW,
        privately,
      );
    expect(update({ resolution: 'Replaced the fuser' }).resolution_private).toBe(false);
    expect(update({ resolution: 'internal note' })).not.toHaveProperty('resolution_private');
    expect(update({ priority: 1 })).not.toHaveProperty('resolution_private');
  });
});

describe('publicResolution', () => {
  it('is null while the resolution is a private followup’s comment', () => {
    expect(publicResolution({ resolution: 'internal note', resolution_private: true })).toBeNull();
    expect(publicResolution({ resolution: 'Fixed it', resolution_private: false })).toBe('Fixed it');
    expect(publicResolution({ resolution: 'Fixed it' })).toBe('Fixed it');
  });
});

describe("the environment's receivers' collection", () => {
  const collection = {
    ticket: { ...ticket, resolution: 'internal note', resolution_private: true },
    followups: [
      { id: 1, public: true },
      { id: 2, public: false },
    ],
    attachments: [
      { id: 10, followup: 1 },
      { id: 11, followup: 2 },
    ],
  };
  const defs = [
    { name: 'open', staff_only: false },
    { name: 'internal', staff_only: true },
  ];

  it(
    'leaves out private followups, their files, staff-only fields and a private resolution unless the operator ' +
      'includes them',
    () => {
      const shown = disclosedCollection(collection, defs, false);
      expect(shown.collection.followups.map((f) => f.id)).toEqual([1]);
      expect(shown.collection.attachments.map((a) => a.id)).toEqual([10]);
      expect(shown.collection.ticket.resolution).toBeNull();
      expect(shown.defs.map((d) => d.name)).toEqual(['open']);
      expect(disclosedCollection(collection, defs, true)).toEqual({ collection, defs });
    },
  );
});

describe("subscriptions' events", () => {
  const updated = (fields: Partial<ChangeEvent>): ChangeEvent => ({
    id: 'evt_1',
    event: 'ticket.updated',
    created: NOW.toISOString(),
    ticket: 4,
    followup: null,
    attachment: null,
    actor: null,
    source: 'unknown',
    changes: null,
    data: { id: 4, status: 3, resolution: 'the safe code is 1234', custom_tier: 'gold' },
    ...fields,
  });

  it('a resolution that became private shows as null, before and after, and in data', () => {
    const event = updated({
      changes: { status: { old: 1, new: 3 }, resolution: { old: null, new: 'the safe code is 1234' } },
      private_fields: { before: [], after: ['resolution'] },
    });
    const shown = disclosedEvent(event, ['tier'], false)!;
    expect(shown.changes).toEqual({ status: { old: 1, new: 3 } });
    expect(shown.data).toEqual({ id: 4, status: 3, resolution: null });
    expect(shown).not.toHaveProperty('private_fields');
    expect(JSON.stringify(shown)).not.toMatch(/1234|gold/);
    const replacedPublic = disclosedEvent(
      updated({
        changes: { resolution: { old: 'Fixed', new: 'the safe code is 1234' } },
        private_fields: { before: [], after: ['resolution'] },
      }),
      [],
      false,
    )!;
    expect(replacedPublic.changes).toEqual({ resolution: { old: 'Fixed', new: null } });
    const madePublic = disclosedEvent(
      updated({
        changes: { resolution: { old: 'the safe code is 1234', new: 'Done' } },
        data: { resolution: 'Done' },
        private_fields: { before: ['resolution'], after: [] },
      }),
      [],
      false,
    )!;
    expect(madePublic.changes).toEqual({ resolution: { old: null, new: 'Done' } });
  });

  it('a deletion hides what the record held before', () => {
    const deleted = disclosedEvent(
      updated({ event: 'ticket.deleted', private_fields: { before: ['resolution'], after: [] } }),
      [],
      false,
    )!;
    expect(deleted.data.resolution).toBeNull();
  });

  it('an update whose every visible change is hidden is not sent at all', () => {
    expect(
      disclosedEvent(updated({ changes: { custom_tier: { old: null, new: 'gold' } } }), ['tier'], false),
    ).toBeUndefined();
    const privateToPrivate = updated({
      changes: { resolution: { old: 'note one', new: 'note two' } },
      private_fields: { before: ['resolution'], after: ['resolution'] },
    });
    expect(disclosedEvent(privateToPrivate, [], false)).toBeUndefined();
    expect(disclosedEvent(privateToPrivate, [], true)).toBe(privateToPrivate);
  });
});
