/**
 * The mail log's record (issue 22): one mail, that is one (change, kind, recipient). Pure types and
 * rules; store/mail-log.ts keeps them, the sender (shared/mail/) moves them along:
 *
 *   queued ──sender claims──▶ sending ──provider accepted──▶ sent ──SES events──▶ delivered | bounced | complained
 *      └──────────────────────────────▶ suppressed (the address is on the suppression list)
 *      └── every attempt failed ──────▶ failed
 */
import { createHash } from 'node:crypto';

/** What each template is for, upstream's names (django-helpdesk's templates/helpdesk/email templates). */
export const MAIL_KINDS = [
  'newticket_submitter',
  'newticket_cc',
  'assigned_owner',
  'updated_submitter',
  'updated_owner',
  'updated_cc',
  'resolved_submitter',
  'resolved_owner',
  'resolved_cc',
  'closed_submitter',
  'closed_owner',
  'closed_cc',
  'assigned_submitter',
  'assigned_cc',
] as const;
export type MailKind = (typeof MAIL_KINDS)[number];

export const MAIL_STATUSES = ['queued', 'sending', 'sent', 'delivered', 'bounced', 'complained', 'suppressed', 'failed'] as const;
export type MailStatus = (typeof MAIL_STATUSES)[number];

/** One mail as the log keeps it (store/mail-log.ts), and as GET /api/tickets/{id}/emails/ shows it. */
export interface MailRecord {
  /** `<commit time>#<hash of change, kind, recipient>` (mailId): sorts by time, the same on every retry. */
  id: string;
  ticket: number;
  /** The followup the change added, when it added one (its text and files are the mail's). */
  followup: number | null;
  kind: MailKind;
  /** The one address it goes to (each recipient gets a mail of their own: no address sees another's). */
  recipient: string;
  status: MailStatus;
  /** Set when the sender composed it. */
  subject: string | null;
  /** The Message-ID the recipient sees (on SES: the one SES assigned), once sent. */
  message_id: string | null;
  attempts: number;
  /** When it was queued (the change's commit time), sent, and last changed status (ISO 8601 UTC). */
  created: string;
  sent: string | null;
  updated: string;
  /** Why it failed, bounced or was suppressed (a provider's answer, at most 500 characters). */
  error: string | null;
}

/**
 * A mail's id: the change's commit time (so the log sorts by time) and a hash of the change's id
 * (its stream record's, the same on every retry), the kind and the recipient (lowercased: one
 * address, one mail per change).
 */
export function mailId(committedAt: number, change: string, kind: MailKind, recipient: string): string {
  const hash = createHash('sha256').update(`${change}\n${kind}\n${recipient.toLowerCase()}`).digest('base64url').slice(0, 22);
  return `${new Date(committedAt).toISOString()}#${hash}`;
}

/** The statuses after which the sender has nothing more to do. */
export const SETTLED: ReadonlySet<MailStatus> = new Set(['sent', 'delivered', 'bounced', 'complained', 'suppressed', 'failed']);

/** Where mail goes: nowhere, a folder of .eml files (the local mailbox), an SMTP server, or Amazon SES. */
export const MAIL_TRANSPORTS = ['off', 'mailbox', 'smtp', 'ses'] as const;
export type MailTransportName = (typeof MAIL_TRANSPORTS)[number];

export interface MailSettings {
  transport: MailTransportName;
  /** The sender of a queue without an address of its own (HELPDESK_MAIL_FROM: `name <address>` or an address). */
  defaultFrom: { name: string; address: string };
  /** Kinds switched off for every queue (HELPDESK_MAIL_DISABLED_KINDS, comma-separated). */
  disabledKinds: ReadonlySet<MailKind>;
  /**
   * HELPDESK_MAIL_ON_TICKET_UPDATES=true: a PUT or PATCH that changes a ticket's status to resolved
   * or closed, or its assignee, mails as a followup doing it would. Off by default, as upstream's
   * API (its serializer's update has no side effects).
   */
  onTicketUpdates: boolean;
  /** HELPDESK_SMTP_URL (transport `smtp`). */
  smtpUrl: string | undefined;
  /** HELPDESK_MAILBOX_DIR (transport `mailbox`): the folder the .eml files go to. */
  mailboxDir: string | undefined;
  /** HELPDESK_SES_CONFIGURATION_SET (transport `ses`). */
  configurationSet: string | undefined;
}

export class MailSettingsError extends Error {}

const HEADER_UNSAFE = /[\r\n\0]/;
const ADDRESS = /^[^\s@<>()[\]\\,;:"]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$/;

/** Whether `value` is a plain address that can stand in a header (no display name, no line break). */
export const isPlainAddress = (value: string): boolean => !HEADER_UNSAFE.test(value) && value.length <= 254 && ADDRESS.test(value);

/** `Name <address>` or `address`, as HELPDESK_MAIL_FROM gives it. */
export function parseSender(value: string): { name: string; address: string } {
  const match = /^\s*(?:(.*?)\s*<([^<>]+)>|([^<>\s]+))\s*$/.exec(value);
  const address = (match?.[2] ?? match?.[3] ?? '').trim();
  const name = (match?.[1] ?? '').replace(/^"(.*)"$/, '$1').trim();
  if (!match || !isPlainAddress(address) || HEADER_UNSAFE.test(name)) throw new MailSettingsError(`HELPDESK_MAIL_FROM must be "Name <address>" or an address, not ${JSON.stringify(value)}`);
  return { name, address };
}

/** The mail settings from the environment; throws MailSettingsError naming the variable that is wrong. */
export function parseMailSettings(env: Record<string, string | undefined>): MailSettings {
  const transport = (env.HELPDESK_MAIL_TRANSPORT || 'off').trim() as MailTransportName;
  if (!MAIL_TRANSPORTS.includes(transport)) throw new MailSettingsError(`HELPDESK_MAIL_TRANSPORT must be one of ${MAIL_TRANSPORTS.join(', ')}, not "${transport}"`);
  const kinds = (env.HELPDESK_MAIL_DISABLED_KINDS ?? '').split(',').map((k) => k.trim()).filter(Boolean);
  const unknown = kinds.filter((k) => !(MAIL_KINDS as readonly string[]).includes(k));
  if (unknown.length) throw new MailSettingsError(`HELPDESK_MAIL_DISABLED_KINDS names no such kind: ${unknown.join(', ')} (kinds: ${MAIL_KINDS.join(', ')})`);
  const updates = env.HELPDESK_MAIL_ON_TICKET_UPDATES ?? 'false';
  if (updates !== 'true' && updates !== 'false') throw new MailSettingsError(`HELPDESK_MAIL_ON_TICKET_UPDATES must be true or false, not "${updates}"`);
  if (transport === 'smtp' && !env.HELPDESK_SMTP_URL) throw new MailSettingsError('HELPDESK_MAIL_TRANSPORT=smtp needs HELPDESK_SMTP_URL');
  if (transport === 'mailbox' && !env.HELPDESK_MAILBOX_DIR) throw new MailSettingsError('HELPDESK_MAIL_TRANSPORT=mailbox needs HELPDESK_MAILBOX_DIR');
  return {
    transport,
    defaultFrom: parseSender(env.HELPDESK_MAIL_FROM || 'Helpdesk <helpdesk@localhost>'),
    disabledKinds: new Set(kinds as MailKind[]),
    onTicketUpdates: updates === 'true',
    smtpUrl: env.HELPDESK_SMTP_URL || undefined,
    mailboxDir: env.HELPDESK_MAILBOX_DIR || undefined,
    configurationSet: env.HELPDESK_SES_CONFIGURATION_SET || undefined,
  };
}
