/**
 * Inbound mail rules (docs/email.md, "Email in"): what a received message is (a letter, an
 * auto-reply, a bounce, list mail, a loop, spam), which ticket it names, and what a new ticket or
 * followup takes from it. Pure: the ingest (shared/mail-in/) parses the message and hands these
 * functions plain values.
 *
 * The header rules follow upstream's `is_autoreply` (Auto-Submitted other than `no`,
 * X-Auto-Response-Suppress DR/AutoReply/All, List-Id, List-Unsubscribe), widened with what Zammad's
 * auto-response and out-of-office filters and osTicket's bounce check read: Precedence
 * bulk/junk/list/auto_reply, X-Autoreply and its variants, X-Loop, mailer-daemon and postmaster
 * senders, and a `message/delivery-status` part (RFC 3464) for bounces.
 */
import { randomUUID } from 'node:crypto';
import { storedDateTime, wireIsoDateTime } from './datetime';
import { sanitiseFilename } from './files';
import { trimEndChars, trimLineEnds } from './linear-text';
import type { FollowupPlan } from './followup';
import { STATUS, type Ticket } from './records';
import { checkTicketSize, type NewTicket } from './ticket';
import { utf8Head } from './utf8';

/** SES's 40 MB receiving limit, applied to every way in (SMTP locally, IMAP, SES). */
export const MAX_MESSAGE_BYTES = 40 * 1024 * 1024;
/** MIME parts nested deeper than this refuse the message (a MIME bomb); real mail nests 3 to 6. */
export const MAX_MIME_DEPTH = 20;
/** All header blocks of a message together, in bytes. */
export const MAX_HEADER_BYTES = 512 * 1024;
/**
 * Lines of the message's own header block (folded lines each count): real mail has tens to a few hundred (Received,
 * DKIM and ARC sets). DKIM's and DMARC's checks (mailauth) grow with the square of them: 50,000 took 7 s, 100,000 ran
 * into the 20 s budget; at this limit, milliseconds.
 */
export const MAX_HEADER_LINES = 5_000;

/** How many lines the top header block of `raw` has (to the first empty line), counting no further than `most + 1`. */
export function headerLines(raw: Buffer, most: number): number {
  let lines = 0;
  for (let at = 0; at < raw.length && lines <= most; lines++) {
    const end = raw.indexOf(0x0a, at);
    if (end < 0) return lines + 1;
    // An empty line (LF or CRLF alone) ends the block.
    if (end === at || (end === at + 1 && raw[at] === 0x0d)) return lines;
    at = end + 1;
  }
  return lines;
}
/** Parts (attachments and inline files) a message may carry. */
export const MAX_PARTS = 100;
/**
 * MIME parts of every kind (the message, its multiparts, text parts and files, attached messages' too) a message may
 * hold, counted as they are read: postal-mime keeps about 1.5 KB per part, so 40 MB of empty parts (`--b` and an empty
 * line, 4 million) would have held some 6 GB before MAX_PARTS was checked.
 */
export const MAX_MIME_PARTS = 4 * MAX_PARTS;
/** One attachment above this is left out of the followup (it stays in the kept raw message). */
export const MAX_ATTACHMENT_BYTES = 20 * 1024 * 1024;
/** Attachments of one message together: those past it are left out likewise. */
export const MAX_ATTACHMENTS_BYTES = 30 * 1024 * 1024;
/** Upstream's name of the kept HTML body: `.txt` so that no server renders the sender's markup. */
export const HTML_BODY_FILENAME = 'email_html_body.txt';

export type Headers = ReadonlyMap<string, readonly string[]>;

/** Headers by lowercase name, every value kept (a header may repeat). */
export function headerMap(headers: readonly { key: string; value: string }[]): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const { key, value } of headers) {
    const name = key.toLowerCase();
    // Added to in place: a copy per repeat was quadratic (50,000 `X-A:` lines took 20 s).
    const values = map.get(name);
    if (values) values.push(value);
    else map.set(name, [value]);
  }
  return map;
}

const first = (headers: Headers, name: string) => headers.get(name)?.[0]?.trim();

/** SES's receipt verdicts (`PASS`, `FAIL`, `GRAY`, `PROCESSING_FAILED`, `DISABLED`), and the DMARC policy. */
export interface Verdicts {
  spam?: string;
  virus?: string;
  spf?: string;
  dkim?: string;
  dmarc?: string;
  /** The sender domain's published DMARC policy: `none`, `quarantine` or `reject`. */
  dmarcPolicy?: string;
}

export interface MailFacts {
  headers: Headers;
  /** The From address, lowercased ('' when missing or unreadable). */
  from: string;
  subject: string;
  /** Lowercase MIME types of the message's parts (attachments included). */
  partTypes: readonly string[];
  /** The helpdesk's own addresses, lowercased: its queues' and its sender's. */
  ownAddresses: ReadonlySet<string>;
  verdicts?: Verdicts;
}

/**
 * What to do with a message. `accept`: route it (notes: authentication failures to record). `drop`:
 * nothing is created and nothing is sent (the reason is recorded). `hold`: not a ticket, kept for an
 * operator's review. `bounce`: a delivery report: its failed recipients feed the suppression list.
 */
export type Classification =
  | { action: 'accept'; notes: string[] }
  | { action: 'drop'; reason: string }
  | { action: 'hold'; reason: string }
  | { action: 'bounce'; reason: string };

const AUTOMATIC_SENDERS = /^(mailer-daemon|postmaster|mail-daemon|mailerdaemon)@/i;
const BULK_PRECEDENCE = /^(bulk|junk|list|auto_reply)$/i;

/** A header's keyword, lowercased, without the comment or parameters after it (`auto-generated (by x)`, `bulk;`). */
const headerToken = (value: string) => /^[^\s(;]*/.exec(value.trim())![0].toLowerCase();
const AUTOREPLY_HEADERS = [
  'x-autoreply',
  'x-autorespond',
  'x-auto-reply',
  'x-autoreply-from',
  'x-mail-autoreply',
  'x-autogenerated',
  'x-auto-reply-from',
];
const SUPPRESS_VALUES = new Set(['dr', 'autoreply', 'all', 'oof']);

export function classify(facts: MailFacts): Classification {
  const { headers, from, verdicts } = facts;
  if (verdicts?.virus === 'FAIL') return { action: 'drop', reason: 'virus: SES found a virus in the message' };
  // Plus-addressed too: a reply address (`support+42.token@`) or a bounce address is the helpdesk's own.
  if (from && facts.ownAddresses.has(withoutTag(from)))
    return { action: 'drop', reason: `loop: sent from the helpdesk's own address ${from}` };
  const loop = headers.get('x-loop') ?? [];
  if (loop.some((v) => facts.ownAddresses.has(withoutTag(v.trim()))))
    return { action: 'drop', reason: "loop: X-Loop names the helpdesk's own address" };
  if (isDeliveryReport(headers, facts.partTypes))
    return { action: 'bounce', reason: 'bounce: a delivery status report (RFC 3464)' };
  if (AUTOMATIC_SENDERS.test(from)) return { action: 'drop', reason: `bounce: sent by ${from}` };
  // Every value counts: a sender that adds `Auto-Submitted: no` before its own `auto-generated` is still automatic.
  const submitted = (headers.get('auto-submitted') ?? []).map(headerToken).find((v) => v && v !== 'no');
  if (submitted) return { action: 'drop', reason: `auto-reply: Auto-Submitted: ${submitted}` };
  const precedence = (headers.get('precedence') ?? []).map(headerToken).find((v) => BULK_PRECEDENCE.test(v));
  if (precedence) return { action: 'drop', reason: `auto-reply or list: Precedence: ${precedence}` };
  const autoreply = AUTOREPLY_HEADERS.find((h) => headers.has(h) && first(headers, h)?.toLowerCase() !== 'no');
  if (autoreply) return { action: 'drop', reason: `auto-reply: ${autoreply} header` };
  const suppress = first(headers, 'x-auto-response-suppress');
  if (suppress && suppress.split(/[,\s]+/).some((v) => SUPPRESS_VALUES.has(v.toLowerCase()))) {
    return { action: 'drop', reason: `auto-reply: X-Auto-Response-Suppress: ${suppress}` };
  }
  if (headers.has('list-id') || headers.has('list-unsubscribe'))
    return { action: 'drop', reason: 'list mail: List-Id or List-Unsubscribe' };
  if (verdicts?.spam === 'FAIL') return { action: 'hold', reason: 'spam: SES judged the message spam' };
  if (verdicts?.dmarc === 'FAIL' && verdicts.dmarcPolicy?.toLowerCase() === 'reject') {
    return { action: 'hold', reason: "DMARC: failed, and the sender's domain asks for rejection" };
  }
  const notes = (['spf', 'dkim', 'dmarc'] as const)
    .filter((k) => verdicts?.[k] === 'FAIL')
    .map((k) => `${k.toUpperCase()} failed`);
  return { action: 'accept', notes };
}

/** A DSN: `multipart/report; report-type=delivery-status`, or any `message/delivery-status` part. */
function isDeliveryReport(headers: Headers, partTypes: readonly string[]): boolean {
  const type = first(headers, 'content-type')?.toLowerCase() ?? '';
  return (
    (/^multipart\/report/.test(type) && /report-type="?delivery-status/.test(type)) ||
    partTypes.some((t) => t === 'message/delivery-status' || t === 'message/global-delivery-status')
  );
}

/**
 * The recipients a delivery status report says failed for good (Action: failed with a 5.x.x Status),
 * as osTicket and Zammad read them: only those are suppressed; a delay (4.x.x) is not.
 */
export function permanentFailures(deliveryStatus: string): string[] {
  const failed: string[] = [];
  // Per-recipient blocks are separated by blank lines; the first block is per-message.
  for (const block of deliveryStatus.replace(/\r\n/g, '\n').split(/\n\s*\n/)) {
    const field = (name: string) => new RegExp(`^${name}:\\s*(.+)$`, 'im').exec(block)?.[1]?.trim();
    const recipient = field('Final-Recipient') ?? field('Original-Recipient');
    const action = field('Action')?.toLowerCase();
    const status = field('Status');
    const address = recipient
      ?.replace(/^rfc822;\s*/i, '')
      .replace(/^<|>$/g, '')
      .trim()
      .toLowerCase();
    if (address && action === 'failed' && status?.startsWith('5') && /^[^@\s]+@[^@\s]+$/.test(address))
      failed.push(address);
  }
  return [...new Set(failed)];
}

/** Reply and forward prefixes of English, German, Nordic and others, with upstream's "Automatic reply:". */
// Sticky: matched at a moving index, so that N prefixes cost one pass, not N copies of the subject.
const SUBJECT_PREFIX = /\s*(?:re|fw|fwd|aw|wg|sv|vs|antw|tr|rv|ref|automatic reply)\s*(?:\[\d+\]\s*)?:\s*/iy;

/** The title of a new ticket: the subject without its reply/forward prefixes (any number of them). */
export function cleanSubject(subject: string | undefined): string {
  const collapsed = (subject ?? '').replace(/\s+/g, ' ').trim();
  let start = 0;
  for (SUBJECT_PREFIX.lastIndex = 0; SUBJECT_PREFIX.test(collapsed);) start = SUBJECT_PREFIX.lastIndex;
  const title = collapsed.slice(start).trim() || 'Comment from e-mail';
  return [...title].slice(0, 200).join('');
}

/**
 * Upstream's tracking tag, `[<queue slug>-<ticket id>]` (the slug may hold hyphens: the last one parts it from the id).
 */
const SUBJECT_TAG = /\[([-A-Za-z0-9_]+?)-(\d{1,12})\]/g;

/** Upstream's tracking tags, `[<queue slug>-<ticket id>]`, found anywhere in the subject: each once, in order. */
export function subjectTags(subject: string | undefined): { slug: string; ticket: number }[] {
  const tags = new Map<string, { slug: string; ticket: number }>();
  for (const m of (subject ?? '').matchAll(SUBJECT_TAG)) {
    const tag = { slug: m[1]!, ticket: Number(m[2]) };
    if (!tags.has(`${tag.slug}-${tag.ticket}`)) tags.set(`${tag.slug}-${tag.ticket}`, tag);
  }
  return [...tags.values()];
}

/**
 * A subject without the tracking tags of this helpdesk's queues (`slugs`): what a message that opens
 * a ticket of its own keeps (a stranger replying to `[support-1] ...` must not title their ticket as
 * ticket 1). Zammad's subject_clean drops its ticket hook likewise; upstream keeps it. A tag of
 * anything else (`[JIRA-12]`, a slug no queue has) is the sender's own subject and stays.
 */
export function withoutOwnTags(subject: string, slugs: ReadonlySet<string>): string {
  return subject.replace(SUBJECT_TAG, (tag, slug: string) => (slugs.has(slug) ? ' ' : tag));
}

/**
 * Upstream's priority: `Priority` or `Importance` of high, important, 1 or urgent make 2 (High),
 * anything else 3 (Normal). X-Priority 1 or 2 (Outlook's "High importance") counts too.
 */
export function priorityOf(headers: Headers): number {
  const high = new Set(['high', 'important', '1', 'urgent']);
  const values = [first(headers, 'priority'), first(headers, 'importance')].map((v) => v?.toLowerCase());
  const xPriority = /^\s*([12])\b/.test(first(headers, 'x-priority') ?? '');
  return values.some((v) => v !== undefined && high.has(v)) || xPriority ? 2 : 3;
}

/** Message-IDs in a header value (`<a@b> <c@d>`), in order, without duplicates. */
export function messageIds(...values: (string | undefined)[]): string[] {
  const ids = values.flatMap((v) => [...(v ?? '').matchAll(/<([^<>\s]+)>/g)].map((m) => `<${m[1]}>`));
  return [...new Set(ids)];
}

/** A kept message as the API shows it (store/inbound-mail.ts `MailProblem`). */
export const mailProblemView = (p: {
  id: string;
  kind: 'failed' | 'held' | 'unverified' | 'sign-in';
  reason: string;
  sender: string;
  received: string;
  recipients: string[];
  message_id: string | null;
  attempts: number;
}) => ({
  id: p.id,
  kind: p.kind,
  reason: p.reason,
  sender: p.sender,
  received: wireIsoDateTime(p.received)!,
  recipients: p.recipients,
  message_id: p.message_id,
  attempts: p.attempts,
});

/** At most this many of a reply's thread ids are looked up (one batch read), however long its References. */
export const MAX_THREAD_IDS = 20;
/**
 * A Message-ID longer than this (bytes) is ignored: RFC 5322's line limit, which a msg-id (never folded) cannot pass;
 * it also keeps each id within DynamoDB's key size.
 */
export const MAX_MESSAGE_ID_BYTES = 998;

/**
 * The ids a reply is threaded by: In-Reply-To's first, then the last References (the newest; RFC 5322 lets a sender
 * cut the list, so a thread never depends on an early one), MAX_THREAD_IDS in all, overlong ids left out.
 */
export function threadIdsOf(inReplyTo: string | undefined, references: string | undefined): string[] {
  const fits = (id: string) => Buffer.byteLength(id) <= MAX_MESSAGE_ID_BYTES;
  const replied = messageIds(inReplyTo).filter(fits).slice(0, 1);
  const referenced = messageIds(references).filter((id) => fits(id) && id !== replied[0]);
  return [...replied, ...referenced.slice(-(MAX_THREAD_IDS - replied.length))];
}

/** The reply's own text: what the sender wrote, without the quoted history (given the parser's cut). */
export function trimmedBody(text: string): string {
  return trimLineEnds(text.replace(/\r\n/g, '\n'))
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * A mail's text is cut to this many bytes of UTF-8 (the whole message stays kept raw): a ticket's record holds its
 * description and, as its opening followup's comment, the same text again (ticket.ts, MAX_TICKET_RECORD_TEXT_BYTES).
 * Counted in characters (100,000) it let 300 to 400 KB of text through, twice: a text of characters that take 3 or 4
 * bytes (CJK, or what a charset could not read) failed the ingest with DynamoDB's item limit.
 */
export const MAX_MAIL_TEXT_BYTES = 100_000;

/**
 * How much of a message's text the reply is read from (parse.ts), in characters: at least twice what a stored text
 * holds (MAX_MAIL_TEXT_BYTES), so that the reply can fill it even with as much quoted text among it. email-reply-parser
 * runs some 80 expressions on every line, each line reversed: 0.4 ms of CPU per KB of prose, 1 ms per KB
 * of quote headers (measured 2026-11-30). A 10 MB text took 4 to 10 s, and 40 MB (the message limit) ran
 * past the parse budget, for a text whose first 100,000 bytes are all that is stored.
 */
export const REPLY_WINDOW = 2 * MAX_MAIL_TEXT_BYTES;

/** Where the next line with more than spaces, tabs and line ends begins its text. */
const TEXT_AHEAD = /[^ \t\r\n]/g;

/**
 * The head of `text` its reply is read from: all of it, or past REPLY_WINDOW characters, its first REPLY_WINDOW cut
 * at a line end, counted once the white space a stored body drops anyway is gone, as trimmedBody drops it (line ends
 * trimmed, runs of blank lines one empty line, none ahead): a megabyte of spaces or blank lines ahead of the words
 * does not fill the window. Read a line at a time up to the window, not split whole: 40 MB of short lines split was
 * some 20 million strings. `cut`: whether text was left out (not only white space).
 */
export function replyWindow(text: string): { head: string; cut: boolean } {
  if (text.length <= REPLY_WINDOW) return { head: text, cut: false };
  let head = '';
  let at = 0;
  /** Whether text is left past the window's lines (not white space alone). */
  let left = false;
  for (;;) {
    TEXT_AHEAD.lastIndex = at;
    const found = TEXT_AHEAD.exec(text);
    if (!found) break;
    if (head.length >= REPLY_WINDOW) {
      left = true;
      break;
    }
    const lineStart = text.lastIndexOf('\n', found.index) + 1;
    const newline = text.indexOf('\n', found.index);
    const lineEnd = newline === -1 ? text.length : newline;
    const separator = head === '' ? '' : lineStart > at ? '\n\n' : '\n';
    head += separator + trimEndChars(text.slice(head === '' ? found.index : lineStart, lineEnd), ' \t\r');
    at = lineEnd + 1;
  }
  if (head.length <= REPLY_WINDOW) return { head, cut: left };
  const lineEnd = head.lastIndexOf('\n', REPLY_WINDOW);
  let end = lineEnd > 0 ? lineEnd : REPLY_WINDOW;
  // Not between the two halves of a surrogate pair.
  if (/[\uD800-\uDBFF]/.test(head[end - 1]!)) end--;
  return { head: head.slice(0, end), cut: true };
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
/** Elements whose content is not text: dropped whole, up to their closing tag. */
const HIDDEN_ELEMENTS = new Set(['script', 'style', 'head']);
/** Elements whose end (or a `<br>`) is a line break. */
const BLOCK_ENDS = new Set(['p', 'div', 'li', 'tr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote']);

/** A character reference's text: an invalid or out-of-range code point is U+FFFD, never an error. */
function entity(whole: string, name: string): string {
  if (!name.startsWith('#')) return ENTITIES[name.toLowerCase()] ?? whole;
  const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : Number(name.slice(1));
  return String.fromCodePoint(code > 0 && code <= 0x10ffff ? code : 0xfffd);
}

/**
 * Text of an HTML-only message: block ends become line breaks, tags and scripts go, entities are
 * decoded. Enough to read; the HTML itself is kept as a file, never rendered. One pass with
 * indexOf (issue 32): a tag-matching regular expression retries from every `<` of a stranger's text.
 */
export function htmlToText(html: string): string {
  const lower = html.toLowerCase();
  const unclosed = new Set<string>(); // hidden elements with no closing tag after some point: never searched again
  const out: string[] = [];
  let at = 0;
  while (at < html.length) {
    const open = html.indexOf('<', at);
    const close = open < 0 ? -1 : html.indexOf('>', open);
    if (close < 0) break; // no tag left: the rest is text
    out.push(html.slice(at, open));
    const tag = /^\/?([a-z][a-z0-9]*)/.exec(lower.slice(open + 1, Math.min(close, open + 16)));
    const name = tag?.[1] ?? '';
    const ending = lower[open + 1] === '/';
    at = close + 1;
    if (!ending && HIDDEN_ELEMENTS.has(name) && !unclosed.has(name)) {
      const end = closingTag(lower, name, at);
      if (end < 0) unclosed.add(name);
      else at = end;
    } else if (name === 'br' || (ending && BLOCK_ENDS.has(name))) out.push('\n');
  }
  out.push(html.slice(at));
  return trimmedBody(out.join('').replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, entity));
}

/** Where `</name>` (spaces allowed before its `>`) ends in `lower` from `from`, or -1. */
function closingTag(lower: string, name: string, from: number): number {
  for (let at = lower.indexOf(`</${name}`, from); at >= 0; at = lower.indexOf(`</${name}`, at + 2)) {
    let end = at + name.length + 2;
    while (end < lower.length && /\s/.test(lower[end]!)) end++;
    if (lower[end] === '>') return end + 1;
  }
  return -1;
}

/** U+FFFD: what a decoder puts where bytes did not fit the declared (or guessed) charset. */
export function undecodable(text: string): number {
  // Counted in place: a match object each (matchAll) held 3.5 GB for 20 MB of bytes a charset could not read.
  let count = 0;
  for (let at = text.indexOf('\uFFFD'); at !== -1; at = text.indexOf('\uFFFD', at + 1)) count++;
  return count;
}

/** A part's stored name: upstream's `part-<n>_<name>` when it has one, else `part-<n>` with its type's extension. */
export function attachmentName(index: number, filename: string | null | undefined, mimeType: string): string {
  if (filename) return sanitiseFilename(filename);
  const ext: Record<string, string> = {
    'image/png': '.png',
    'image/jpeg': '.jpg',
    'image/gif': '.gif',
    'text/plain': '.txt',
    'message/rfc822': '.eml',
    'application/pdf': '.pdf',
  };
  return `part-${index}${ext[mimeType] ?? '.bin'}`;
}

/** The address a queue answers at: its own, or `<slug>@<local domain>`. */
export function queueAddress(queue: { slug: string; email_address?: string | null }, domain: string): string {
  return (queue.email_address || `${queue.slug}@${domain}`).toLowerCase();
}

/**
 * The queues by the address each answers at, and every address of the helpdesk's own (the queues' and its sender's).
 */
export function addressBook<Q extends { slug: string; email_address?: string | null }>(
  queues: Q[],
  domain: string,
  fromAddress?: string,
) {
  const queueByAddress = new Map(queues.map((q) => [queueAddress(q, domain), q]));
  const own = new Set([...queueByAddress.keys(), ...(fromAddress ? [fromAddress] : [])]);
  return { queueByAddress, own };
}

/** Plus addressing: `help+42.abc@x` is delivered to `help@x`. */
export function withoutTag(address: string): string {
  const lower = address.toLowerCase();
  const at = lower.lastIndexOf('@');
  const plus = lower.indexOf('+');
  return plus >= 0 && plus < at ? lower.slice(0, plus) + lower.slice(at) : lower;
}

/** What a received letter says, as the planners need it. */
export interface Letter {
  sender: string;
  subject: string;
  /** The text the sender wrote (quoted history stripped). */
  body: string;
  messageId: string;
  priority: number;
}

const cut = (text: string) => {
  const head = utf8Head(text, MAX_MAIL_TEXT_BYTES);
  return head === text ? text : `${head}\n[cut: the whole message is kept]`;
};

/**
 * A new ticket from a letter, as upstream's `create_object_from_email_message`: submitter = From,
 * title = the cleaned subject, description = the text, priority from the headers, and an opening
 * followup "E-Mail Received from <sender>" carrying the Message-ID (by no user unless the sender is
 * one of them: `user`).
 */
export function planMailTicket(
  letter: Letter,
  queue: number,
  custom: Ticket['custom'],
  user: number | null,
  now: Date,
): NewTicket {
  const stamp = storedDateTime(now);
  const description = cut(letter.body);
  const ticket: NewTicket['ticket'] = {
    queue,
    title: cleanSubject(letter.subject),
    description,
    resolution: null,
    submitter_email: letter.sender || null,
    assigned_to: null,
    status: STATUS.OPEN,
    on_hold: false,
    priority: letter.priority,
    due_date: null,
    merged_to: null,
    secret_key: randomUUID(),
    created: stamp,
    modified: stamp,
    custom,
  };
  const opening: NewTicket['opening'] = {
    user,
    title: `E-Mail Received from ${letter.sender}`,
    comment: description,
    public: true,
    new_status: null,
    time_spent: null,
    date: stamp,
    message_id: letter.messageId,
  };
  checkTicketSize(ticket, opening);
  return { ticket, opening };
}

/**
 * What a message may change (docs/email.md, "Who may change what"; issue 32). `token`: it came
 * through a reply address issued to its From address; `verified`: its From domain vouches for it
 * (DMARC, or a trusted forwarder's ARC); `staff`: From is one active staff user's; `submitter`,
 * `cc`: From is the ticket's submitter or on its CC list.
 */
export interface Standing {
  token: boolean;
  verified: boolean;
  staff: boolean;
  submitter: boolean;
  cc: boolean;
}

export interface Trust {
  /**
   * A public followup, which may reopen the ticket; otherwise a private one marked unverified that changes nothing
   * else.
   */
  trusted: boolean;
  /** Credited to the staff user: only through a reply address issued to them, never on a domain's word. */
  actsAsStaff: boolean;
  /** May add the message's other recipients as CCs. */
  addsCcs: boolean;
}

export function trustOf(s: Standing): Trust {
  const trusted = s.staff ? s.token : s.token || (s.verified && (s.submitter || s.cc));
  return { trusted, actsAsStaff: s.staff && s.token, addsCcs: trusted && (s.staff || s.submitter) };
}

/**
 * The addresses a trusted message adds as CCs: its other To and Cc addresses, never the helpdesk's
 * own (plus-addressed or not), nor the sender, nor one the ticket has; at most `limit` (the rest noted).
 */
export function entitledCcs(
  mail: { from: string; to: readonly string[]; cc: readonly string[] },
  own: ReadonlySet<string>,
  limit: number,
): { add: string[]; left: number } {
  const candidates = [...new Set([...mail.to, ...mail.cc].map((a) => a.toLowerCase()))].filter(
    (a) => !own.has(withoutTag(a)) && withoutTag(a) !== withoutTag(mail.from),
  );
  return { add: candidates.slice(0, limit), left: Math.max(0, candidates.length - limit) };
}

/** The title of a followup from a message that is not trusted: staff see at once that its From is a claim. */
export const UNVERIFIED_MARK = ' (unverified)';

/**
 * A followup from a reply, as upstream: "E-Mail Received from <sender>", public, and a reply to a
 * CLOSED ticket reopens it ("Ticket Re-Opened by E-Mail Received from <sender>", new status REOPENED).
 * An untrusted one (`trusted` false) is private, marked unverified, and reopens nothing.
 */
export function planMailFollowup(
  letter: Letter,
  ticket: Ticket,
  user: number | null,
  now: Date,
  trusted = true,
): FollowupPlan {
  const stamp = storedDateTime(now);
  if (!trusted) {
    const followup = {
      ticket: ticket.id,
      user: null,
      title: `E-Mail Received from ${letter.sender}${UNVERIFIED_MARK}`,
      comment: cut(letter.body),
    };
    return {
      followup: {
        ...followup,
        public: false,
        new_status: null,
        time_spent: null,
        date: stamp,
        message_id: letter.messageId,
      },
      ticketChanges: {},
    };
  }
  const reopen = ticket.status === STATUS.CLOSED;
  return {
    followup: {
      ticket: ticket.id,
      user,
      title: reopen
        ? `Ticket Re-Opened by E-Mail Received from ${letter.sender}`
        : `E-Mail Received from ${letter.sender}`,
      comment: cut(letter.body),
      public: true,
      new_status: reopen ? STATUS.REOPENED : null,
      time_spent: null,
      date: stamp,
      message_id: letter.messageId,
    },
    ticketChanges: reopen ? { status: STATUS.REOPENED, modified: stamp } : {},
  };
}
