/**
 * The mail log's record (issue 22): one mail, that is one (change, kind, recipient). Pure types and
 * rules; store/mail-log.ts keeps them, the sender (shared/mail/) moves them along:
 *
 * queued ──sender claims──▶ sending ──provider accepted──▶ sent ──SES events──▶ delivered
 *    │                                                                        | bounced
 *    │                                                                        | complained
 *    ├── the address is on the suppression list ──▶ suppressed
 *    └── every attempt failed ─────────────────────▶ failed
 */
import { createHash } from 'node:crypto';

// The kinds (upstream's template names): one list, the mail settings' (they switch them off, per queue).
import { isMailKind, MAIL_KINDS, type MailKind } from './mail-settings';
import { storedDateTime, wireDateTime } from './datetime';
import { angleAddress } from './linear-text';
import type { EventActor } from './actor';

export const MAIL_STATUSES = [
  'queued',
  'sending',
  'sent',
  'delivered',
  'bounced',
  'complained',
  'suppressed',
  'failed',
] as const;
export type MailStatus = (typeof MAIL_STATUSES)[number];

/** One mail as the log keeps it (store/mail-log.ts), and as GET /api/tickets/{id}/emails/ shows it. */
export interface MailRecord {
  /**
   * `<commit time>#<stream sequence>#<hash of change, kind, recipient>` (mailId): sorts in commit order, the same on
   * every retry.
   */
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
  /** When it was queued, sent, and last changed status (ISO 8601 UTC). */
  created: string;
  sent: string | null;
  updated: string;
  /** Why it failed, bounced or was suppressed (a provider's answer, at most 500 characters). */
  error: string | null;
  /** Who made the change it tells of (domain/actor.ts); absent on mail logged before actors were recorded. */
  actor?: EventActor['actor'];
  source?: EventActor['source'];
}

/**
 * A mail's id: where its change is in the stream (the record's time and sequence number: the
 * table's stream times are whole seconds, the sequence orders records within one), so the log sorts
 * in commit order, and a hash of the record's id (the same on every retry), the kind and the
 * recipient (lowercased: one address, one mail per change and kind).
 */
export function mailId(
  change: { at: number; sequence: string; id: string },
  kind: MailKind,
  recipient: string,
): string {
  const hash = createHash('sha256')
    .update(`${change.id}\n${kind}\n${recipient.toLowerCase()}`)
    .digest('base64url')
    .slice(0, 16);
  return `${new Date(change.at).toISOString()}#${change.sequence.padStart(40, '0')}#${hash}`;
}

/** The statuses after which the sender has nothing more to do. */
export const SETTLED: ReadonlySet<MailStatus> = new Set([
  'sent',
  'delivered',
  'bounced',
  'complained',
  'suppressed',
  'failed',
]);

/** Where mail goes: nowhere, a folder of .eml files (the local mailbox), an SMTP server, or Amazon SES. */
export const MAIL_TRANSPORTS = ['off', 'mailbox', 'smtp', 'ses'] as const;
export type MailTransportName = (typeof MAIL_TRANSPORTS)[number];

export interface MailSettings {
  transport: MailTransportName;
  /**
   * The sender of a queue without an address of its own (HELPDESK_MAIL_FROM: `name <address>` or an
   * address); unset, such a queue sends from `<slug>@localhost` (the local runtime's mailbox).
   */
  defaultFrom: { name: string; address: string } | undefined;
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
  /**
   * HELPDESK_MAIL_RETRY_DELAYS (seconds, comma-separated; default MAIL_RETRY_DELAYS): the pauses
   * before each new attempt. The local runtime's (and its tests'); the stack keeps the default,
   * which its queue's redrive count is made for (infra/mail.ts).
   */
  retryDelays: readonly number[];
}

export class MailSettingsError extends Error {}

const HEADER_UNSAFE = /[\r\n\0]/;
const ADDRESS =
  /^[^\s@<>()[\]\\,;:"]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$/;

/** Whether `value` is a plain address that can stand in a header (no display name, no line break). */
export const isPlainAddress = (value: string): boolean =>
  !HEADER_UNSAFE.test(value) && value.length <= 254 && ADDRESS.test(value);

/** `Name <address>` or `address`, as HELPDESK_MAIL_FROM gives it. */
export function parseSender(value: string): { name: string; address: string } {
  const bracketed = angleAddress(value);
  const bare = value.trim();
  const match = bracketed ?? (/^[^<>\s]+$/.test(bare) ? { before: '', address: bare } : undefined);
  const address = (match?.address ?? '').trim();
  const name = (match?.before ?? '')
    .trim()
    .replace(/^"(.*)"$/, '$1')
    .trim();
  if (!match || !isPlainAddress(address) || HEADER_UNSAFE.test(name))
    throw new MailSettingsError(
      `HELPDESK_MAIL_FROM must be "Name <address>" or an address, not ${JSON.stringify(value)}`,
    );
  return { name, address };
}

/** The mail settings from the environment; throws MailSettingsError naming the variable that is wrong. */
export function parseMailSettings(env: Record<string, string | undefined>): MailSettings {
  const transport = (env.HELPDESK_MAIL_TRANSPORT || 'off').trim() as MailTransportName;
  if (!MAIL_TRANSPORTS.includes(transport))
    throw new MailSettingsError(
      `HELPDESK_MAIL_TRANSPORT must be one of ${MAIL_TRANSPORTS.join(', ')}, not "${transport}"`,
    );
  const kinds = (env.HELPDESK_MAIL_DISABLED_KINDS ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  const unknown = kinds.filter((k) => !isMailKind(k));
  if (unknown.length)
    throw new MailSettingsError(
      `HELPDESK_MAIL_DISABLED_KINDS names no such kind: ${unknown.join(', ')} (kinds: ${MAIL_KINDS.join(', ')})`,
    );
  const updates = env.HELPDESK_MAIL_ON_TICKET_UPDATES ?? 'false';
  if (updates !== 'true' && updates !== 'false')
    throw new MailSettingsError(`HELPDESK_MAIL_ON_TICKET_UPDATES must be true or false, not "${updates}"`);
  if (transport === 'smtp' && !env.HELPDESK_SMTP_URL)
    throw new MailSettingsError('HELPDESK_MAIL_TRANSPORT=smtp needs HELPDESK_SMTP_URL');
  if (transport === 'ses' && !env.HELPDESK_MAIL_FROM)
    throw new MailSettingsError(
      'HELPDESK_MAIL_TRANSPORT=ses needs HELPDESK_MAIL_FROM (a verified sender of the SES identity)',
    );
  if (transport === 'mailbox' && !env.HELPDESK_MAILBOX_DIR)
    throw new MailSettingsError('HELPDESK_MAIL_TRANSPORT=mailbox needs HELPDESK_MAILBOX_DIR');
  const retryDelays = env.HELPDESK_MAIL_RETRY_DELAYS
    ? env.HELPDESK_MAIL_RETRY_DELAYS.split(',').map((d) => Number(d.trim()))
    : MAIL_RETRY_DELAYS;
  if (retryDelays.some((d) => !(d >= 0 && d <= 3600)))
    throw new MailSettingsError(
      `HELPDESK_MAIL_RETRY_DELAYS must be seconds between 0 and 3600, comma-separated, ` +
        `not "${env.HELPDESK_MAIL_RETRY_DELAYS}"`,
    );
  return {
    transport,
    defaultFrom: env.HELPDESK_MAIL_FROM ? parseSender(env.HELPDESK_MAIL_FROM) : undefined,
    disabledKinds: new Set(kinds as MailKind[]),
    onTicketUpdates: updates === 'true',
    smtpUrl: env.HELPDESK_SMTP_URL || undefined,
    mailboxDir: env.HELPDESK_MAILBOX_DIR || undefined,
    configurationSet: env.HELPDESK_SES_CONFIGURATION_SET || undefined,
    retryDelays,
  };
}

/** A mail as its queue names it (an SQS message's body, a local timer's). */
export interface MailRef {
  ticket: number;
  id: string;
}

/**
 * The pauses before each new attempt at a mail the transport did not accept (seconds): after the
 * last, it is `failed`: listed for operators (store/mail-log.ts `listFailedMail`) and, on AWS, its
 * message put on the dead-letter queue, which alarms (functions/mail/send.ts).
 */
export const MAIL_RETRY_DELAYS = [5, 30, 120, 600] as const;

/**
 * What one attempt at a mail came to. `deadLetter`: it failed on every attempt (not for a reason of
 * its own, as a deleted ticket), so it goes to the dead-letter queue, which alarms (AWS).
 */
export type SendResult =
  | { state: 'sent' | 'suppressed' | 'skipped' }
  | { state: 'failed'; deadLetter: boolean }
  | { state: 'retry'; inSeconds: number };

/** After a failed attempt (`attempts` made so far): when to try again, or undefined when that was the last. */
export function retryDelay(attempts: number, delays: readonly number[] = MAIL_RETRY_DELAYS): number | undefined {
  return delays[attempts - 1];
}

/**
 * Upstream's HELPDESK_MAX_EMAIL_ATTACHMENT_SIZE: a followup's file is attached only below this; larger ones are linked.
 */
export const MAX_EMAIL_ATTACHMENT_BYTES = 512_000;

const wire = (iso: string) => wireDateTime(storedDateTime(new Date(iso)))!;

/** A mail as GET /api/tickets/{id}/emails/ shows it (times in the API's wire form). */
export function mailView(m: MailRecord) {
  return {
    id: m.id,
    kind: m.kind,
    recipients: [m.recipient],
    subject: m.subject,
    status: m.status,
    message_id: m.message_id,
    followup: m.followup,
    attempts: m.attempts,
    created: wire(m.created),
    sent: m.sent ? wire(m.sent) : null,
    updated: wire(m.updated),
    error: m.error,
    actor: m.actor ?? null,
    source: m.source ?? 'unknown',
  };
}
