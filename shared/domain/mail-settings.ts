/**
 * Mail settings an operator keeps: a queue's sender address, CC lists and mail kinds switched off;
 * a ticket's CC list (upstream's TicketCC); the suppression list. Pure: validation and shapes only.
 *
 * Every address that can end up in a header is checked here at write time (no CR, LF or NUL, a valid
 * address, upstream's lengths), so no stored value can inject a header.
 */
import { ValidationError } from './errors';
import {
  MESSAGES,
  blankIsNull,
  booleanField,
  emailField,
  fieldSchema,
  idField,
  isEmail,
  pythonStr,
  pythonType,
  textField,
  validateFields,
  type Field,
} from './fields';
import type { ParsedBody } from './body';
import { wireDateTime } from './datetime';

/**
 * Upstream's mail templates, one per kind of notification (its `templated_email` names): who gets
 * what is mail-out's table (docs/email.md); these names are what settings switch off and templates
 * override.
 */
export const MAIL_KINDS = [
  'newticket_submitter',
  'newticket_cc',
  'assigned_owner',
  'assigned_submitter',
  'assigned_cc',
  'updated_submitter',
  'updated_owner',
  'updated_cc',
  'resolved_submitter',
  'resolved_owner',
  'resolved_cc',
  'closed_submitter',
  'closed_owner',
  'closed_cc',
  'escalated_submitter',
  'escalated_cc',
  'escalated_owner',
] as const;
export type MailKind = (typeof MAIL_KINDS)[number];
export const isMailKind = (value: string): value is MailKind => (MAIL_KINDS as readonly string[]).includes(value);

/** Upstream's `CharField(max_length=200)` for a queue's CC lists. */
export const MAX_CC_LIST_LENGTH = 200;
const LINE_BREAK = /[\r\n]/;
export const NO_LINE_BREAKS = 'Line breaks are not allowed.';
export const CC_LIST_MESSAGE = 'Enter valid e-mail addresses separated by commas.';

/** The addresses of a stored CC list (`"a@example.com, b@example.com"`), as upstream splits it. */
export function ccAddresses(list: string | null | undefined): string[] {
  return (list ?? '')
    .split(',')
    .map((a) => a.trim())
    .filter((a) => a !== '');
}

/** Why a comma-separated list of addresses is refused, naming the first bad one; undefined if fine. */
export function ccListProblem(value: string): string | undefined {
  if (LINE_BREAK.test(value)) return NO_LINE_BREAKS;
  const bad = ccAddresses(value).find((a) => !isEmail(a));
  return bad === undefined ? undefined : `${CC_LIST_MESSAGE} "${bad}" is not one.`;
}

/** A queue's CC list: blank or null for none; stored as its addresses joined by ", ". */
const ccListField = () =>
  blankIsNull(
    textField({ nullable: true, allowBlank: true, maxLength: MAX_CC_LIST_LENGTH, check: ccListProblem }),
    (v) => ccAddresses(v).join(', '),
  );

const kindList: Field<MailKind[]> = {
  schema: fieldSchema((raw, ctx): MailKind[] => {
    // A form body sends the list as one comma-separated value.
    const list = typeof raw === 'string' ? ccAddresses(raw) : raw;
    const problem = !Array.isArray(list)
      ? `Expected a list of items but got type "${pythonType(list)}".`
      : list
          .map((v) => (typeof v === 'string' && isMailKind(v) ? undefined : MESSAGES.choice(pythonStr(v))))
          .find(Boolean);
    if (problem) {
      ctx.issues.push({ code: 'custom', message: problem, input: raw });
      return [];
    }
    return MAIL_KINDS.filter((k) => (list as string[]).includes(k));
  }),
  meta: { type: 'list', choices: MAIL_KINDS.map((k) => ({ value: k, display_name: k })) },
  kind: 'other',
  nullable: false,
  required: false,
};

/** A queue's mail settings, as stored on its item and shown by the queues API. */
export interface QueueMailSettings {
  /** The From: of the queue's mail ("<title> <address>"); null: the deployment's default sender. */
  email_address: string | null;
  /** Addresses told of every new ticket in the queue. */
  new_ticket_cc: string | null;
  /** Addresses told of every change to the queue's tickets (new ones too, as upstream). */
  updated_ticket_cc: string | null;
  /** Mail kinds this queue sends none of. */
  disabled_mail: MailKind[];
}

export const QUEUE_MAIL_DEFAULTS: QueueMailSettings = {
  email_address: null,
  new_ticket_cc: null,
  updated_ticket_cc: null,
  disabled_mail: [],
};

/** A queue body's mail fields (admin.ts puts them beside title and slug); blank means none. */
export const queueMailFields = {
  email_address: blankIsNull(emailField({ nullable: true, allowBlank: true })),
  new_ticket_cc: ccListField(),
  updated_ticket_cc: ccListField(),
  disabled_mail: kindList,
};

/** A queue's stored mail settings, whatever an older item lacks. */
export function queueMailSettings(item: Record<string, unknown>): QueueMailSettings {
  return {
    email_address: (item.email_address as string | null | undefined) || null,
    new_ticket_cc: (item.new_ticket_cc as string | null | undefined) || null,
    updated_ticket_cc: (item.updated_ticket_cc as string | null | undefined) || null,
    disabled_mail: ((item.disabled_mail as string[] | undefined) ?? []).filter(isMailKind),
  };
}

/** Whether a title can stand in a header (a queue's title is the From: display name). */
export const titleProblem = (value: string) => (LINE_BREAK.test(value) ? NO_LINE_BREAKS : undefined);

/** A ticket's CC entry (upstream's TicketCC): an address, or a user whose address is read when mailing. */
export interface TicketCc {
  id: number;
  ticket: number;
  user: number | null;
  email: string | null;
  can_view: boolean;
  can_update: boolean;
}

export const ticketCcFields = {
  email: emailField({ nullable: true }),
  user: idField({ nullable: true }),
  can_view: booleanField(),
  can_update: booleanField(),
};

export const ALREADY_CC = "This is on the ticket's CC list already.";

/**
 * A ticket's CC entries at most. Every change of the ticket mails each of them, and nothing else bounded the list:
 * a verified sender adds up to HELPDESK_MAIL_IN_CCS_PER_MESSAGE with each message, staff any number.
 */
export const MAX_CCS_PER_TICKET = 100;
export const TOO_MANY_CCS = `A ticket has at most ${MAX_CCS_PER_TICKET} CC entries: remove one first.`;

export const ONE_OF_EMAIL_OR_USER = 'Give either an e-mail address or a user, not both.';

/** The new CC entry of a POST: exactly one of `email` and `user`. The store checks the user exists. */
export function parseTicketCcBody(body: ParsedBody): Omit<TicketCc, 'id' | 'ticket'> {
  const { values, errors } = validateFields(ticketCcFields, body.data, 'partial', body.kind);
  if (Object.keys(errors).length) throw new ValidationError(errors);
  const email = values.email ?? null;
  const user = values.user ?? null;
  if ((email === null) === (user === null)) throw new ValidationError({ non_field_errors: [ONE_OF_EMAIL_OR_USER] });
  return {
    email: email?.toLowerCase() ?? null,
    user,
    can_view: values.can_view ?? false,
    can_update: values.can_update ?? false,
  };
}

export const ticketCcView = (cc: TicketCc) => ({
  id: cc.id,
  ticket: cc.ticket,
  user: cc.user,
  email: cc.email,
  can_view: cc.can_view,
  can_update: cc.can_update,
});

/** Why an address is on the suppression list. */
export const SUPPRESSION_REASONS = ['bounce', 'complaint'] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];

export interface Suppression {
  /** Lower case: the list is matched without regard to case. */
  address: string;
  reason: SuppressionReason;
  /** What the mail service said (a bounce's diagnostic, a complaint's feedback type). */
  detail: string;
  /** When it was put on the list (stored date-time). */
  since: string;
  /** The SES message id of the mail that bounced or was complained of, when known. */
  message_id: string | null;
}

/** The form every suppression lookup uses. */
export const suppressionAddress = (address: string) => address.trim().toLowerCase();

export const suppressionView = (s: Suppression) => ({
  address: s.address,
  reason: s.reason,
  detail: s.detail,
  since: wireDateTime(s.since)!,
  message_id: s.message_id,
});
