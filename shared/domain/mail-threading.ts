/**
 * How the helpdesk's mail threads (issue 22), the contract mail in (issue 23) relies on. Pure: the
 * deployment's mail secret is passed in (shared/mail/secret.ts reads it).
 *
 * - Every ticket has a thread root: a Message-ID that no mail carries as its own, named in the
 *   `References` of every mail about the ticket (`<ticket.<id>.<tag>@<domain>>`), so a client
 *   threads them all under one root, and a reply's `References` names its ticket.
 * - `In-Reply-To` is the previous mail of the thread to the same recipient (its Message-ID as
 *   recorded: on SES the one SES assigned), or the root for the first.
 * - `Reply-To` names the ticket: `<local>+<ticket>.<tag>@<domain>` (plus addressing), so a reply
 *   whose client drops the threading headers still finds it.
 * - `<tag>` is HMAC-SHA256(secret, purpose and ticket id), truncated to TAG_LENGTH base32 characters
 *   (80 bits): without the secret nobody can make an address or root that verifies for a ticket,
 *   so a forged reply cannot add to a ticket its author has never been mailed about. Verification
 *   is timing-safe.
 * - Notifications carry `Auto-Submitted: auto-generated` and `X-Auto-Response-Suppress: All`
 *   (RFC 3834; the latter for Exchange), so out-of-office replies stay quiet; mail in should drop
 *   any incoming mail with `Auto-Submitted` other than `no`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Headers every notification carries (RFC 3834 section 5; Exchange's suppression header). */
export const AUTO_SUBMITTED_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Auto-Submitted': 'auto-generated',
  'X-Auto-Response-Suppress': 'All',
});

/** Characters of the tag: 16 base32 characters, 80 bits of the HMAC. */
export const TAG_LENGTH = 16;
/** How many earlier Message-IDs a mail's `References` carries after the root (RFC 5322 lets a sender shorten it). */
export const MAX_REFERENCES = 10;

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

function base32(bytes: Buffer, length: number): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < length) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    if (out.length >= length) break;
  }
  return out;
}

type Purpose = 'reply' | 'root';

/** The tag of a ticket for one purpose: a Reply-To's and a thread root's differ, so one cannot stand for the other. */
export function ticketTag(secret: string, purpose: Purpose, ticket: number): string {
  if (!secret) throw new Error('The mail secret is empty');
  return base32(createHmac('sha256', secret).update(`helpdesk-mail:${purpose}:${ticket}`).digest(), TAG_LENGTH);
}

function tagMatches(secret: string, purpose: Purpose, ticket: number, tag: string): boolean {
  const expected = Buffer.from(ticketTag(secret, purpose, ticket));
  const given = Buffer.from(tag.toLowerCase());
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** An address split at its last `@` (the local part may itself hold one, quoted; ours never do). */
export function splitAddress(address: string): { local: string; domain: string } | undefined {
  const at = address.lastIndexOf('@');
  if (at <= 0 || at === address.length - 1) return undefined;
  return { local: address.slice(0, at), domain: address.slice(at + 1).toLowerCase() };
}

/** A ticket id as written in an address or root: digits, no leading zero, a safe integer. */
function ticketOf(text: string): number | undefined {
  if (!/^[1-9]\d{0,15}$/.test(text)) return undefined;
  const id = Number(text);
  return Number.isSafeInteger(id) ? id : undefined;
}

/**
 * The Reply-To of ticket `ticket`'s mail from `base` (`support@example.com` gives
 * `support+42.<tag>@example.com`). A base that already has a `+detail` keeps it before ours.
 * With `recipient`, a second tag binds the address to the one it was sent to
 * (`support+42.<tag>.<recipient tag>@example.com`): a reply through it from that address is
 * verified for it (replyVerifies), whatever the sender's domain says (issue 32).
 */
export function replyAddress(base: string, ticket: number, secret: string, recipient?: string): string {
  const parts = splitAddress(base);
  if (!parts) throw new Error(`Not an e-mail address: ${JSON.stringify(base)}`);
  const bound = recipient === undefined ? '' : `.${recipientTag(secret, ticket, recipient)}`;
  return `${parts.local}+${ticket}.${ticketTag(secret, 'reply', ticket)}${bound}@${parts.domain}`;
}

/**
 * The envelope sender (Return-Path) of one mail to `recipient` (VERP, signed): `support+b.<mail>.<tag>@x`,
 * where a delivery report comes back. A report counts only at the address of a mail sent to the
 * recipient it reports (bounceVerifies): a stranger's forged report names no such address.
 */
export function bounceAddress(base: string, mail: string, recipient: string, secret: string): string {
  const parts = splitAddress(base);
  if (!parts) throw new Error(`Not an e-mail address: ${JSON.stringify(base)}`);
  const key = mail
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
    .slice(-24);
  return `${parts.local}+b.${key}.${bounceTag(secret, key, recipient)}@${parts.domain}`;
}

function bounceTag(secret: string, key: string, recipient: string): string {
  if (!secret) throw new Error('The mail secret is empty');
  return base32(
    createHmac('sha256', secret).update(`helpdesk-mail:bounce:${key}:${recipient.trim().toLowerCase()}`).digest(),
    TAG_LENGTH,
  );
}

/** A signed return path's local part: `<local>+b.<mail key>.<tag>` (bounceAddress). */
const RETURN_PATH = /\+b\.([a-z0-9]{1,24})\.([a-z2-7]+)$/i;

/**
 * A delivery report's checks are bounded: each return path it came to is checked against each recipient it reports
 * (an HMAC each), and a stranger's report may name thousands of both (measured: 3,000 of each, a 325 KB message, took
 * 45 s of CPU). A real one names one return path (each mail goes to one recipient, from a return path of its own) and
 * a recipient or two; these many of each are checked, the first ones.
 */
export const MAX_RETURN_PATHS_CHECKED = 10;
export const MAX_REPORTED_RECIPIENTS_CHECKED = 10;

/** The recipients of `failed` whose report came to a signed return path among `addresses` for them (bounded). */
export function bouncesVerified(addresses: string[], failed: string[], secret: string): string[] {
  const returnPaths = [...new Set(addresses.map((a) => a.trim().toLowerCase()))]
    .filter((a) => RETURN_PATH.test(splitAddress(a)?.local ?? ''))
    .slice(0, MAX_RETURN_PATHS_CHECKED);
  if (!returnPaths.length) return [];
  return [...new Set(failed)]
    .slice(0, MAX_REPORTED_RECIPIENTS_CHECKED)
    .filter((recipient) => returnPaths.some((address) => bounceVerifies(address, recipient, secret)));
}

/** Whether `address` is the signed return path of a mail sent to `recipient`. */
export function bounceVerifies(address: string, recipient: string, secret: string): boolean {
  const match = RETURN_PATH.exec(splitAddress(address.trim())?.local ?? '');
  if (!match) return false;
  const expected = Buffer.from(bounceTag(secret, match[1]!.toLowerCase(), recipient));
  const given = Buffer.from(match[2]!.toLowerCase());
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The tag binding ticket `ticket`'s reply address to `recipient` (compared without case). */
function recipientTag(secret: string, ticket: number, recipient: string): string {
  if (!secret) throw new Error('The mail secret is empty');
  return base32(
    createHmac('sha256', secret).update(`helpdesk-mail:recipient:${ticket}:${recipient.trim().toLowerCase()}`).digest(),
    TAG_LENGTH,
  );
}

/**
 * Whether `address` (one the message was sent to) is ticket `ticket`'s reply address issued to `from`:
 * the proof that `from` answers our mail, since only `from` received that address.
 */
export function replyVerifies(address: string, secret: string, ticket: number, from: string): boolean {
  const local = splitAddress(address.trim())?.local ?? '';
  const match = /\+([1-9]\d{0,15})\.[a-z2-7]+\.([a-z2-7]+)$/i.exec(local);
  if (!match || Number(match[1]) !== ticket) return false;
  const expected = Buffer.from(recipientTag(secret, ticket, from));
  const given = Buffer.from(match[2]!.toLowerCase());
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * The ticket a reply address names, when its tag verifies (timing-safe); undefined for any other
 * address, a forged or altered tag among them. `base`, when given, must be the address it was made
 * from (same local part and domain; the domain compared without case).
 */
export function ticketOfReplyAddress(address: string, secret: string, base?: string): number | undefined {
  const parts = splitAddress(address.trim());
  if (!parts) return undefined;
  const match = /^(.*)\+([1-9]\d{0,15})\.([a-z2-7]+)(?:\.[a-z2-7]+)?$/i.exec(parts.local);
  if (!match) return undefined;
  if (base !== undefined) {
    const expected = splitAddress(base);
    if (!expected || expected.local !== match[1] || expected.domain !== parts.domain) return undefined;
  }
  const ticket = ticketOf(match[2]!);
  return ticket !== undefined && tagMatches(secret, 'reply', ticket, match[3]!) ? ticket : undefined;
}

/** The thread root of a ticket: `<ticket.<id>.<tag>@<domain>>`, the same for every mail about it. */
export function threadRoot(ticket: number, domain: string, secret: string): string {
  return `<ticket.${ticket}.${ticketTag(secret, 'root', ticket)}@${domain.toLowerCase()}>`;
}

/** The ticket a thread root names, when its tag verifies (any domain: a deployment may change its own). */
export function ticketOfThreadRoot(messageId: string, secret: string): number | undefined {
  const match = /^<?ticket\.([1-9]\d{0,15})\.([a-z2-7]+)@[^<>@\s]+>?$/i.exec(messageId.trim());
  if (!match) return undefined;
  const ticket = ticketOf(match[1]!);
  return ticket !== undefined && tagMatches(secret, 'root', ticket, match[2]!) ? ticket : undefined;
}

/** The Message-IDs (`<...>`) a `References` or `In-Reply-To` header names, in order, each once. */
export function messageIdsIn(header: string | undefined): string[] {
  return [...new Set((header ?? '').match(/<[^<>\s]+>/g) ?? [])];
}

export interface ThreadHeaders {
  'In-Reply-To': string;
  References: string;
}

/**
 * The threading headers of a mail about a ticket: `previous` are the Message-IDs of the mails of
 * its thread already sent to the same recipient, oldest first (as recorded). In-Reply-To is the
 * last of them, or the root; References the root and the last MAX_REFERENCES of them.
 */
export function threadHeaders(root: string, previous: readonly string[]): ThreadHeaders {
  const recent = previous.filter((id) => id !== root).slice(-MAX_REFERENCES);
  return { 'In-Reply-To': recent.at(-1) ?? root, References: [root, ...recent].join(' ') };
}

/**
 * The Message-ID SES gives a mail it accepted (it replaces the one the mail had): the SendEmail
 * answer's MessageId at `<region>.amazonses.com`, or `email.amazonses.com` in us-east-1.
 */
export function sesMessageId(messageId: string, region: string): string {
  const host = region === 'us-east-1' ? 'email.amazonses.com' : `${region}.amazonses.com`;
  return `<${messageId}@${host}>`;
}

/** A Message-ID of our own for a mail (what the local mailbox and SMTP keep): unique per change and recipient. */
export function ownMessageId(ticket: number, unique: string, domain: string): string {
  return `<mail.${ticket}.${unique}@${domain.toLowerCase()}>`;
}
