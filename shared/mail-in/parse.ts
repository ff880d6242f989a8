/**
 * A received message's bytes to what the rules read (shared/domain/mail-in.ts), within the limits:
 * size, MIME nesting, header size and number of parts each refuse the message with a reason
 * (MailRefused), never a crash. postal-mime decodes the charsets (with the runtime's TextDecoder:
 * run on Node 22, whose windows-1252 is right); a part labelled UTF-8 that is not UTF-8 reads as
 * Windows-1252 (HardenedPostalMime), noted, and so does a header line of raw 8-bit bytes that are not UTF-8;
 * bytes that fit no charset become U+FFFD, counted and recorded, never silently passed off as text.
 */
import PostalMime, { type Address, type Attachment as MimePart } from 'postal-mime';
import EmailReplyParser from 'email-reply-parser';
import { isUtf8 } from 'node:buffer';
import { createHash, randomUUID } from 'node:crypto';
import {
  MAX_HEADER_BYTES,
  MAX_HEADER_LINES,
  headerLines,
  MAX_MESSAGE_BYTES,
  MAX_MIME_DEPTH,
  MAX_MIME_PARTS,
  MAX_PARTS,
  headerMap,
  htmlToText,
  messageIds,
  priorityOf,
  threadIdsOf,
  replyWindow,
  trimmedBody,
  undecodable,
} from '../domain/mail-in';
import { MAX_EMAIL_LENGTH } from '../domain/fields';

/** A part of postal-mime's tree, as its parser holds it while collecting the message's text and files. */
interface MimeTreeNode {
  contentType: { multipart?: string | false; parsed: { value: string; params: Record<string, string | undefined> } };
  content: ArrayBuffer | Uint8Array | null;
}
type CollectNode = (this: PostalMime, node: MimeTreeNode, ...rest: unknown[]) => Promise<void>;
type ProcessLine = (this: PostalMime, line: Uint8Array, isFinal: boolean) => Promise<void>;
/** postal-mime's own parts (internal): each of the message's lines, the part it goes to, the header bytes counted. */
interface PostalMimeInternals {
  collectNode: CollectNode;
  processLine: ProcessLine;
  currentNode: { state: 'header' | 'body' | 'finished'; contentDecoder: ContentDecoder | null };
  headerSize: number;
}
/** A part's body decoder (postal-mime's, internal): its lines in, the body's bytes out. */
interface ContentDecoder {
  update(line: Uint8Array): void;
  finalize(): Promise<ArrayBuffer>;
}

/**
 * postal-mime's pass-through decoder (a body sent as it is: 7bit, 8bit, binary), but each line and its `\n` copied
 * into blocks as it comes. postal-mime's keeps each line and a `"\n"` and joins them as the parts of one Blob at the
 * end, whose arrayBuffer() reads its parts one at a time: about 10 µs a line here, and two objects held per line
 * until then, so a body of short lines (a pasted log; an attacker's 40 MB of them) cost seconds to minutes of CPU and
 * hundreds of bytes of memory per line. Measured by bench/mail-in.ts (docs/benchmarks.md, "Mail in").
 */
class JoiningDecoder implements ContentDecoder {
  private static readonly MAX_BLOCK_BYTES = 64 * 1024;
  private readonly full: Uint8Array[] = [];
  private fullBytes = 0;
  private block = new Uint8Array(0);
  private at = 0;

  update(line: Uint8Array): void {
    const needed = line.length + 1;
    if (this.at + needed > this.block.length) {
      if (this.at) {
        this.full.push(this.block.subarray(0, this.at));
        this.fullBytes += this.at;
      }
      // Blocks double with the body, up to 64 KB: a part of one short line (a hostile message may have many) holds
      // about its own length.
      this.block = new Uint8Array(Math.max(needed, Math.min(JoiningDecoder.MAX_BLOCK_BYTES, 2 * this.fullBytes)));
      this.at = 0;
    }
    this.block.set(line, this.at);
    this.at += line.length;
    this.block[this.at++] = 0x0a;
  }

  finalize(): Promise<ArrayBuffer> {
    const joined = new Uint8Array(this.fullBytes + this.at);
    let at = 0;
    for (const block of [...this.full, this.block.subarray(0, this.at)]) {
      joined.set(block, at);
      at += block.length;
    }
    return Promise.resolve(joined.buffer);
  }
}

/** Whether `decoder` is postal-mime's pass-through decoder: the one whose only state is its `chunks`. */
const isPassThrough = (decoder: ContentDecoder | null): boolean =>
  !!decoder && Object.keys(decoder).length === 1 && Array.isArray((decoder as { chunks?: unknown }).chunks);
const { collectNode, processLine } = PostalMime.prototype as unknown as PostalMimeInternals;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const windows1252 = new TextDecoder('windows-1252');
const isUtf8Label = (charset: string | undefined) => !charset || /^\s*(?:utf-?8|us-ascii|ascii)\s*$/i.test(charset);

/** A message refused by a limit or unreadable as MIME: kept raw for operators, never applied. */
export class MailRefused extends Error {}

/**
 * postal-mime's parser, but a text part labelled UTF-8 (or US-ASCII, or unlabelled) whose bytes are
 * not UTF-8 is read as Windows-1252: the usual truth of such a part (an old client that sent Latin-1
 * and said nothing, or said UTF-8), and every byte of it a character, where UTF-8 would make each
 * accented letter a U+FFFD. Counted (`misdeclared`), for the message's record. Every part passes
 * through collectNode (postal-mime 4, internal) before its text is decoded; tests/unit/mail-in.test.ts
 * holds it there.
 *
 * Likewise a header line of any part with raw 8-bit bytes (no encoded word: an old client's Latin-1 subject, name or
 * file name) that are not UTF-8 (RFC 6532's, left as they are) is read as Windows-1252, and counted
 * (`misencodedHeaders`). Every line passes through processLine (internal) before its part reads it. Windows-1252 reads
 * each byte from 0x80 up as a character above U+007F, so the line's ASCII (colons, folds, boundaries) is as it was and
 * no header appears or vanishes; the bytes the repair adds do not count toward the header limit, which is on the
 * message as received. DKIM checks the message's own bytes (verify.ts). And a part's body sent as it is (7bit, 8bit,
 * binary) is read by a JoiningDecoder, set in place of postal-mime's when its header ends; and the parts are counted
 * as they are read (MAX_MIME_PARTS). tests/unit/mail-in.test.ts holds them there.
 */
class HardenedPostalMime extends PostalMime {
  misdeclared = 0;
  misencodedHeaders = 0;
  private readonly parts = new WeakSet<object>();
  private partCount = 0;
  processLine(line: Uint8Array, isFinal: boolean): Promise<void> {
    const internals = this as unknown as PostalMimeInternals;
    const node = internals.currentNode;
    if (node.state !== 'header') return processLine.call(this, line, isFinal);
    // Every part has a header (at least the empty line that ends it): each is counted at its first line.
    if (!this.parts.has(node)) {
      this.parts.add(node);
      if (++this.partCount > MAX_MIME_PARTS) throw new MailRefused(`more than ${MAX_MIME_PARTS} MIME parts`);
    }
    // A line that begins `--` may be a boundary, matched as sent, and then no part's header: left alone.
    if (!(line[0] === 0x2d && line[1] === 0x2d) && !isUtf8(line)) {
      const repaired = Buffer.from(windows1252.decode(line), 'utf8');
      internals.headerSize -= repaired.length - line.length;
      this.misencodedHeaders += 1;
      line = repaired;
    }
    const processed = processLine.call(this, line, isFinal);
    // The empty line that ends a part's header has set up its body's decoder (synchronously), before its first line.
    if (line.length === 0 && isPassThrough(node.contentDecoder)) node.contentDecoder = new JoiningDecoder();
    return processed;
  }

  async collectNode(node: MimeTreeNode, ...rest: unknown[]): Promise<void> {
    const type = node.contentType.parsed.value;
    if (
      !node.contentType.multipart &&
      (type === 'text/plain' || type === 'text/html') &&
      node.content &&
      isUtf8Label(node.contentType.parsed.params.charset)
    ) {
      try {
        strictUtf8.decode(node.content);
      } catch {
        node.contentType.parsed.params.charset = 'windows-1252';
        this.misdeclared += 1;
      }
    }
    return collectNode.call(this, node, ...rest);
  }
}

export interface MailPart {
  filename: string | null;
  mimeType: string;
  /** Referenced from the HTML (an inline image). */
  inline: boolean;
  data: Buffer;
}

export interface ParsedMail {
  headers: Map<string, string[]>;
  /** Message-ID with its angle brackets; one made from the bytes when the message has none. */
  messageId: string;
  /** The From address, lowercased, for comparing. */
  from: string;
  /** The From address as the sender wrote it, for storing (issue 32: stored as given). */
  fromAsGiven: string;
  to: string[];
  cc: string[];
  subject: string;
  /** What the sender wrote, the quoted history stripped. */
  body: string;
  html: string | undefined;
  parts: MailPart[];
  /** The message/delivery-status part's text, for a bounce. */
  deliveryStatus: string | undefined;
  /** In-Reply-To's first id, then the newest References: at most MAX_THREAD_IDS. */
  threadIds: string[];
  priority: number;
  /** Characters that could not be decoded (U+FFFD), for the record. */
  undecodable: number;
  /** Text parts labelled UTF-8 (or unlabelled) that were not, read as Windows-1252 instead, for the record. */
  misdeclared: number;
  /** Header lines (of any part) of raw bytes that were not UTF-8, read as Windows-1252 instead, for the record. */
  misencodedHeaders: number;
  /** Characters of the message's text. */
  textLength: number;
  /** Whether the body was read from the text's head alone, text past REPLY_WINDOW left out (replyWindow). */
  replyCut: boolean;
}

/** Runs of three or more blank (white-space-only) lines. */
const BLANK_LINE_RUNS = /\n(?:[^\S\n]*\n){3,}/g;
/** Longer lines are body text, never a quote header or a signature (each of which is a short line). */
const LONG_LINE = 1_000;

/**
 * What the sender wrote, as email-reply-parser finds it, in time linear in the text. Its quote-header patterns
 * (`^\s*On …`, `.+\son.*at.*wrote:`) scan on from every line start of a run of blank lines, and from every position
 * of a long line: 20,000 blank lines took 11 s, one line of 100 KB 2.5 s (it expects RE2, a native module, to make
 * them linear). So runs of blank lines are cut to two, and each long line is handed to it as a short placeholder (after
 * the `>` marks that quote it), put back after.
 */
export function replyOf(text: string): string {
  const mark = `\u0000${randomUUID()}:`;
  const long: string[] = [];
  const lines = text
    .replace(/\r\n/g, '\n')
    .replace(BLANK_LINE_RUNS, '\n\n\n')
    .split('\n')
    .map((line) => {
      if (line.length <= LONG_LINE) return line;
      // A quoted line stays quoted: the parser reads the `>` it starts with.
      const quote = /^>*/.exec(line)![0];
      return `${quote}${mark}${long.push(line.slice(quote.length)) - 1}`;
    });
  const reply = new EmailReplyParser().parseReply(lines.join('\n'));
  return long.length ? reply.replace(new RegExp(`${mark}(\\d+)`, 'g'), (_, i: string) => long[Number(i)]!) : reply;
}

/**
 * An address longer than RFC 5321 allows (254 characters) names no mailbox: no mail reaches it, and as a key (a
 * sender's rate, a CC) DynamoDB refuses it past 2,048 bytes. Such an address counts as none (a From of 2 KB made the
 * message fail for good).
 */
const deliverable = (address: string | undefined): address is string => !!address && address.length <= MAX_EMAIL_LENGTH;

const addresses = (list: Address[] | Address | undefined): string[] =>
  (Array.isArray(list) ? list : list ? [list] : [])
    .flatMap((a) => (a.group ? a.group.map((m) => m.address) : [a.address]))
    .filter(deliverable)
    .map((a) => a.toLowerCase());

const firstAddress = (list: Address[] | Address | undefined): string => {
  const address = (Array.isArray(list) ? list[0] : list)?.address;
  return deliverable(address) ? address : '';
};

const bytesOf = (content: MimePart['content']): Buffer =>
  typeof content === 'string'
    ? Buffer.from(content)
    : content instanceof ArrayBuffer
      ? Buffer.from(content)
      : Buffer.from(content.buffer, content.byteOffset, content.byteLength);

export async function parseMail(raw: Buffer): Promise<ParsedMail> {
  if (raw.length > MAX_MESSAGE_BYTES)
    throw new MailRefused(`message of ${raw.length} bytes is over the ${MAX_MESSAGE_BYTES}-byte limit`);
  if (headerLines(raw, MAX_HEADER_LINES) > MAX_HEADER_LINES)
    throw new MailRefused(`a header block of more than ${MAX_HEADER_LINES} lines`);
  let email: Awaited<ReturnType<typeof PostalMime.parse>>;
  const parser = new HardenedPostalMime({
    maxNestingDepth: MAX_MIME_DEPTH,
    maxHeadersSize: MAX_HEADER_BYTES,
    attachmentEncoding: 'arraybuffer',
  });
  try {
    email = await parser.parse(raw);
  } catch (error) {
    if (error instanceof MailRefused) throw error;
    const message = (error as Error).message ?? String(error);
    if (/nesting/i.test(message)) throw new MailRefused(`MIME parts nested deeper than ${MAX_MIME_DEPTH} levels`);
    if (/header/i.test(message)) throw new MailRefused(`headers larger than ${MAX_HEADER_BYTES} bytes`);
    throw new MailRefused(`unreadable MIME: ${message}`);
  }
  if (email.attachments.length > MAX_PARTS)
    throw new MailRefused(`${email.attachments.length} parts, over the limit of ${MAX_PARTS}`);
  const headers = headerMap(email.headers);
  const statusPart = email.attachments.find(
    (a) => a.mimeType === 'message/delivery-status' || a.mimeType === 'message/global-delivery-status',
  );
  const parts = email.attachments
    .filter((a) => a !== statusPart)
    .map((a): MailPart => ({
      filename: a.filename,
      mimeType: a.mimeType,
      inline: !!a.related || a.disposition === 'inline',
      data: bytesOf(a.content),
    }));
  const fullText = email.text ?? (email.html ? htmlToText(email.html) : '');
  const { head: replyText, cut: replyCut } = replyWindow(fullText);
  const body = trimmedBody(replyOf(replyText)) || trimmedBody(replyText);
  const messageId =
    messageIds(email.messageId)[0] ?? `<${createHash('sha256').update(raw).digest('hex')}@no-message-id>`;
  return {
    headers,
    messageId,
    from: addresses(email.from)[0] ?? '',
    fromAsGiven: firstAddress(email.from),
    to: addresses(email.to),
    cc: addresses(email.cc),
    subject: email.subject ?? '',
    body,
    html: email.html,
    parts,
    deliveryStatus: statusPart ? bytesOf(statusPart.content).toString('utf8') : undefined,
    threadIds: threadIdsOf(email.inReplyTo, email.references),
    priority: priorityOf(headers),
    undecodable: undecodable(`${email.subject ?? ''}${fullText}`),
    misdeclared: parser.misdeclared,
    misencodedHeaders: parser.misencodedHeaders,
    textLength: fullText.length,
    replyCut,
  };
}
