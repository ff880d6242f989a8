import { describe, expect, it } from 'vitest';
import { planMail, type MailAudience, type MailChange, type TicketFacts } from '../../shared/domain/mail-recipients';
import { STATUS } from '../../shared/domain/records';
import type { MailKind } from '../../shared/domain/mail-settings';

const ticket: TicketFacts = { status: STATUS.OPEN, submitter_email: 'sub@example.com', assigned_to: 7 };
const audience: MailAudience = {
  queueAddress: 'support@example.com',
  newTicketCc: ['new@example.com'],
  updatedTicketCc: ['upd@example.com'],
  ticketCc: ['cc@example.com'],
  assigneeEmail: 'owner@example.com',
  actorEmail: 'staff@example.com',
  disabled: new Set(),
  onTicketUpdates: false,
};
const followup = (
  f: Partial<{ public: boolean; comment: string | null; new_status: number | null; unverified: boolean }>,
): MailChange => ({
  type: 'followup',
  ticket,
  actor: 1,
  followup: { public: true, comment: 'Hello', new_status: null, ...f },
});
const pairs = (change: MailChange, a: Partial<MailAudience> = {}) =>
  planMail(change, { ...audience, ...a }).map((m) => `${m.kind} ${m.recipient}`);

describe('a ticket created', () => {
  it('mails the submitter, the queue CCs and ticket CCs, and the assignee, in upstream order', () => {
    expect(pairs({ type: 'created', ticket, actor: 1 })).toEqual([
      'newticket_submitter sub@example.com',
      'newticket_cc upd@example.com',
      'newticket_cc new@example.com',
      'newticket_cc cc@example.com',
      'assigned_owner owner@example.com',
    ]);
  });

  it('without an assignee or submitter, the CCs alone', () => {
    expect(
      pairs({ type: 'created', ticket: { ...ticket, submitter_email: null, assigned_to: null }, actor: 1 }),
    ).toEqual(['newticket_cc upd@example.com', 'newticket_cc new@example.com', 'newticket_cc cc@example.com']);
  });

  it('never the acting user, never the queue address, each address once (case aside)', () => {
    expect(
      pairs(
        { type: 'created', ticket: { ...ticket, submitter_email: 'Staff@Example.com' }, actor: 1 },
        {
          newTicketCc: ['SUPPORT@example.com', 'owner@example.com'],
          updatedTicketCc: ['OWNER@example.com'],
          ticketCc: [],
        },
      ),
    ).toEqual(['newticket_cc OWNER@example.com']);
  });

  it('skips what is not a plain address (a stored value with a line break cannot become a header)', () => {
    expect(
      pairs(
        { type: 'created', ticket: { ...ticket, submitter_email: 'a@example.com\r\nBcc: x@evil.test' }, actor: 1 },
        { newTicketCc: [], updatedTicketCc: [], ticketCc: [] },
      ),
    ).toEqual(['assigned_owner owner@example.com']);
  });

  it('a kind switched off sends nothing, and leaves the address to a later role', () => {
    const disabled = new Set<MailKind>(['newticket_submitter']);
    expect(pairs({ type: 'created', ticket, actor: 1 }, { disabled, ticketCc: ['sub@example.com'] })).toEqual([
      'newticket_cc upd@example.com',
      'newticket_cc new@example.com',
      'newticket_cc sub@example.com',
      'assigned_owner owner@example.com',
    ]);
  });
});

describe('a followup', () => {
  it('public with a comment: submitter, owner, CCs (updated_), no new_ticket_cc', () => {
    expect(pairs(followup({}))).toEqual([
      'updated_submitter sub@example.com',
      'updated_owner owner@example.com',
      'updated_cc upd@example.com',
      'updated_cc cc@example.com',
    ]);
  });

  it('private: nobody at all (HELPDESK_PRIVATE_FOLLOWUP_MEANS_NO_EMAILS)', () => {
    expect(pairs(followup({ public: false }))).toEqual([]);
    expect(pairs(followup({ public: false, new_status: STATUS.RESOLVED }))).toEqual([]);
  });

  it('private from unverified mail: the assignee alone, told it waits for review; unassigned, nobody', () => {
    expect(pairs(followup({ public: false, unverified: true }))).toEqual(['updated_owner owner@example.com']);
    expect(
      pairs({
        ...followup({ public: false, unverified: true }),
        ticket: { ...ticket, assigned_to: null },
      }),
    ).toEqual([]);
  });

  it('public without a comment: not the submitter, unless it resolves or closes', () => {
    expect(pairs(followup({ comment: '' }))).toEqual([
      'updated_owner owner@example.com',
      'updated_cc upd@example.com',
      'updated_cc cc@example.com',
    ]);
    expect(pairs(followup({ comment: null, new_status: STATUS.RESOLVED }))[0]).toBe(
      'resolved_submitter sub@example.com',
    );
    expect(pairs(followup({ comment: null, new_status: STATUS.CLOSED }))).toEqual([
      'closed_submitter sub@example.com',
      'closed_owner owner@example.com',
      'closed_cc upd@example.com',
      'closed_cc cc@example.com',
    ]);
  });

  it('a reopening is an update', () => {
    expect(pairs(followup({ new_status: STATUS.REOPENED }))[0]).toBe('updated_submitter sub@example.com');
  });

  it('the acting owner is not told of their own followup', () => {
    expect(pairs(followup({}), { actorEmail: 'owner@example.com' })).toEqual([
      'updated_submitter sub@example.com',
      'updated_cc upd@example.com',
      'updated_cc cc@example.com',
    ]);
  });
});

describe('a PUT or PATCH', () => {
  const updated = (after: Partial<TicketFacts>, before: Partial<TicketFacts> = {}): MailChange => ({
    type: 'updated',
    ticket: { ...ticket, ...after },
    actor: null,
    before: { ...ticket, ...before },
  });

  it('mails nothing unless the setting is on (upstream API)', () => {
    expect(pairs(updated({ status: STATUS.RESOLVED }))).toEqual([]);
    expect(pairs(updated({ assigned_to: 8 }))).toEqual([]);
  });

  it('with the setting: resolved/closed and assignment changes, nothing else', () => {
    const on = { onTicketUpdates: true };
    expect(pairs(updated({ status: STATUS.RESOLVED }), on)).toEqual([
      'resolved_submitter sub@example.com',
      'resolved_owner owner@example.com',
      'resolved_cc upd@example.com',
      'resolved_cc cc@example.com',
    ]);
    expect(pairs(updated({ assigned_to: 8 }), on)).toEqual([
      'assigned_owner owner@example.com',
      'assigned_cc upd@example.com',
      'assigned_cc cc@example.com',
    ]);
    expect(pairs(updated({ status: STATUS.CLOSED, assigned_to: 8 }), on)[0]).toBe('updated_submitter sub@example.com');
    expect(pairs(updated({ status: STATUS.REOPENED }), on)).toEqual([]);
    expect(pairs(updated({ assigned_to: null }), on)).toEqual([]);
    expect(pairs(updated({ status: STATUS.RESOLVED }, { status: STATUS.RESOLVED }), on)).toEqual([]);
  });
});
