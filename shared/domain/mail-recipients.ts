/**
 * Who gets which mail for a change, as django-helpdesk decides it (docs/email.md has the table):
 * - a ticket created (`forms.py` `_send_messages`, `Ticket.send`): the submitter
 *   `newticket_submitter`; the queue's `updated_ticket_cc` and `new_ticket_cc` addresses and the
 *   ticket's CCs `newticket_cc`; the assignee `assigned_owner`;
 * - a followup (`update_ticket.py` `process_email_notifications_for_ticket_update`): nothing for a
 *   private one (upstream's HELPDESK_PRIVATE_FOLLOWUP_MEANS_NO_EMAILS, our rule: a private
 *   followup's text never reaches a submitter or a CC), but the assignee's `updated_owner` for one
 *   made from unverified mail (issue 32: staff only are told it waits for review); else the prefix
 *   is `resolved_` or `closed_` by its `new_status`, otherwise `updated_`; the submitter only when
 *   it has a comment or resolves or closes; the assignee `<prefix>owner`; the queue's
 *   `updated_ticket_cc` and the ticket's CCs `<prefix>cc`;
 * - a PUT or PATCH (only with the setting on; upstream's API mails nothing there): an assignment
 *   change is `assigned_` (the submitter then `updated_submitter`, and only if the status also went
 *   to resolved or closed), a status change to resolved or closed `resolved_`/`closed_`.
 * - an escalation (the daily run, upstream's `escalate_tickets`): `escalated_submitter`, then the
 *   queue's `updated_ticket_cc` and the ticket's CCs `escalated_cc`, then the assignee `escalated_owner`.
 * In every case: never the acting user, never the queue's own address, each address once per change
 * (the first role that names it, in upstream's order: submitter, CCs, assignee), and no kind that the
 * settings switch off, globally or for the queue (an address whose kind is off may still get a later
 * role's mail, as upstream's `Ticket.send`). Pure: the caller reads the records.
 */
import type { MailKind } from './mail-settings';
import { isPlainAddress } from './mail';
import { STATUS } from './records';

export interface TicketFacts {
  status: number;
  submitter_email: string | null;
  assigned_to: number | null;
}

export type MailChange =
  | { type: 'created'; ticket: TicketFacts; actor: number | null }
  | {
      type: 'followup';
      ticket: TicketFacts;
      actor: number | null;
      /** `unverified`: a private followup from a message whose sender is not trusted (mail in). */
      followup: { public: boolean; comment: string | null; new_status: number | null; unverified?: boolean };
    }
  | { type: 'updated'; ticket: TicketFacts; actor: number | null; before: TicketFacts }
  | { type: 'escalated'; ticket: TicketFacts; actor: null };

export interface MailAudience {
  /** The queue's own address (never mailed) and its CC lists, split. */
  queueAddress: string | null;
  newTicketCc: readonly string[];
  updatedTicketCc: readonly string[];
  /** The ticket's CC addresses (upstream's TicketCC; a user's entry as that user's address). */
  ticketCc: readonly string[];
  /** The assignee's address, when the ticket has one with an address. */
  assigneeEmail: string | null;
  /** The acting user's address, when known. */
  actorEmail: string | null;
  /** Kinds switched off: the environment's and the queue's. */
  disabled: ReadonlySet<MailKind>;
  /** HELPDESK_MAIL_ON_TICKET_UPDATES. */
  onTicketUpdates: boolean;
}

export interface PlannedMail {
  kind: MailKind;
  recipient: string;
}

type Prefix = 'updated_' | 'resolved_' | 'closed_' | 'assigned_';

const isFinal = (status: number | null | undefined) => status === STATUS.RESOLVED || status === STATUS.CLOSED;

function prefixOf(status: number | null | undefined, reassigned = false): Prefix {
  if (reassigned) return 'assigned_';
  if (status === STATUS.RESOLVED) return 'resolved_';
  if (status === STATUS.CLOSED) return 'closed_';
  return 'updated_';
}

/** The mails of one change, each address once, in upstream's order of roles. */
export function planMail(change: MailChange, audience: MailAudience): PlannedMail[] {
  const roles: [MailKind, readonly (string | null)[]][] = [];
  const { ticket } = change;
  const cc = [...audience.updatedTicketCc, ...audience.ticketCc];
  if (change.type === 'created') {
    roles.push(['newticket_submitter', [ticket.submitter_email]]);
    roles.push(['newticket_cc', [...audience.updatedTicketCc, ...audience.newTicketCc, ...audience.ticketCc]]);
    if (ticket.assigned_to !== null) roles.push(['assigned_owner', [audience.assigneeEmail]]);
  } else if (change.type === 'followup') {
    const f = change.followup;
    // A private followup mails nobody, but one from unverified mail tells the assignee (staff only)
    // that it waits for review.
    if (!f.public && !(f.unverified && ticket.assigned_to !== null)) return [];
    if (!f.public) roles.push(['updated_owner', [audience.assigneeEmail]]);
    else {
      const prefix = prefixOf(f.new_status);
      if (f.comment || isFinal(f.new_status)) roles.push([`${prefix}submitter`, [ticket.submitter_email]]);
      if (ticket.assigned_to !== null) roles.push([`${prefix}owner`, [audience.assigneeEmail]]);
      roles.push([`${prefix}cc`, cc]);
    }
  } else if (change.type === 'escalated') {
    // Upstream's escalate_tickets: Ticket.send to the submitter, the CCs and the assignee.
    roles.push(['escalated_submitter', [ticket.submitter_email]], ['escalated_cc', cc]);
    if (ticket.assigned_to !== null) roles.push(['escalated_owner', [audience.assigneeEmail]]);
  } else {
    if (!audience.onTicketUpdates) return [];
    const reassigned = ticket.assigned_to !== null && ticket.assigned_to !== change.before.assigned_to;
    const resolvedOrClosed = isFinal(ticket.status) && ticket.status !== change.before.status;
    if (!reassigned && !resolvedOrClosed) return [];
    const prefix = prefixOf(ticket.status, reassigned);
    if (resolvedOrClosed)
      roles.push([reassigned ? 'updated_submitter' : `${prefix}submitter`, [ticket.submitter_email]]);
    if (ticket.assigned_to !== null) roles.push([`${prefix}owner`, [audience.assigneeEmail]]);
    roles.push([`${prefix}cc`, cc]);
  }
  const taken = new Set<string>();
  for (const never of [audience.actorEmail, audience.queueAddress]) if (never) taken.add(never.trim().toLowerCase());
  const mails: PlannedMail[] = [];
  for (const [kind, addresses] of roles) {
    for (const raw of addresses) {
      const address = raw?.trim();
      if (!address || !isPlainAddress(address)) continue;
      const key = address.toLowerCase();
      // A kind switched off sends nothing, and leaves the address to a later role (as upstream's `send`).
      if (taken.has(key) || audience.disabled.has(kind)) continue;
      taken.add(key);
      mails.push({ kind, recipient: address });
    }
  }
  return mails;
}
