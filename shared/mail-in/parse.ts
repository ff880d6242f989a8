/**
 * A received message's bytes to what the rules read (shared/domain/mail-in.ts), within the limits:
 * size, MIME nesting, header size and number of parts each refuse the message with a reason
 * (MailRefused), never a crash. postal-mime decodes the charsets (with the runtime's TextDecoder:
 * run on Node 22, whose windows-1252 is right); bytes that fit no charset become U+FFFD, counted
 * and recorded, never silently passed off as text.
 */
import PostalMime, { type Address, type Attachment as MimePart } from 'postal-mime';
import EmailReplyParser from 'email-reply-parser';
import { createHash } from 'node:crypto';
import {
  MAX_HEADER_BYTES,
  MAX_MESSAGE_BYTES,
  MAX_MIME_DEPTH,
  MAX_PARTS,
  headerMap,
  htmlToText,
  messageIds,
  priorityOf,
  trimmedBody,
  undecodable,
} from '../domain/mail-in';

/** A message refused by a limit or unreadable as MIME: kept raw for operators, never applied. */
export class MailRefused extends Error {}

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
  from: string;
  to: string[];
  cc: string[];
  subject: string;
  /** What the sender wrote, the quoted history stripped. */
  body: string;
  html: string | undefined;
  parts: MailPart[];
  /** The message/delivery-status part's text, for a bounce. */
  deliveryStatus: string | undefined;
  /** In-Reply-To then References, in order. */
  threadIds: string[];
  priority: number;
  /** Characters that could not be decoded (U+FFFD), for the record. */
  undecodable: number;
}

const addresses = (list: Address[] | Address | undefined): string[] =>
  (Array.isArray(list) ? list : list ? [list] : []).flatMap((a) => (a.group ? a.group.map((m) => m.address) : [a.address])).filter(Boolean).map((a) => a.toLowerCase());

const bytesOf = (content: MimePart['content']): Buffer =>
  typeof content === 'string' ? Buffer.from(content) : content instanceof ArrayBuffer ? Buffer.from(content) : Buffer.from(content.buffer, content.byteOffset, content.byteLength);

export async function parseMail(raw: Buffer): Promise<ParsedMail> {
  if (raw.length > MAX_MESSAGE_BYTES) throw new MailRefused(`message of ${raw.length} bytes is over the ${MAX_MESSAGE_BYTES}-byte limit`);
  let email: Awaited<ReturnType<typeof PostalMime.parse>>;
  try {
    email = await PostalMime.parse(raw, { maxNestingDepth: MAX_MIME_DEPTH, maxHeadersSize: MAX_HEADER_BYTES, attachmentEncoding: 'arraybuffer' });
  } catch (error) {
    const message = (error as Error).message ?? String(error);
    if (/nesting/i.test(message)) throw new MailRefused(`MIME parts nested deeper than ${MAX_MIME_DEPTH} levels`);
    if (/header/i.test(message)) throw new MailRefused(`headers larger than ${MAX_HEADER_BYTES} bytes`);
    throw new MailRefused(`unreadable MIME: ${message}`);
  }
  if (email.attachments.length > MAX_PARTS) throw new MailRefused(`${email.attachments.length} parts, over the limit of ${MAX_PARTS}`);
  const headers = headerMap(email.headers);
  const statusPart = email.attachments.find((a) => a.mimeType === 'message/delivery-status' || a.mimeType === 'message/global-delivery-status');
  const parts = email.attachments
    .filter((a) => a !== statusPart)
    .map((a): MailPart => ({ filename: a.filename, mimeType: a.mimeType, inline: !!a.related || a.disposition === 'inline', data: bytesOf(a.content) }));
  const fullText = email.text ?? (email.html ? htmlToText(email.html) : '');
  const body = trimmedBody(new EmailReplyParser().parseReply(fullText.replace(/\r\n/g, '\n'))) || trimmedBody(fullText);
  const messageId = messageIds(email.messageId)[0] ?? `<${createHash('sha256').update(raw).digest('hex')}@no-message-id>`;
  return {
    headers,
    messageId,
    from: addresses(email.from)[0] ?? '',
    to: addresses(email.to),
    cc: addresses(email.cc),
    subject: email.subject ?? '',
    body,
    html: email.html,
    parts,
    deliveryStatus: statusPart ? bytesOf(statusPart.content).toString('utf8') : undefined,
    threadIds: messageIds(email.inReplyTo, email.references),
    priority: priorityOf(headers),
    undecodable: undecodable(`${email.subject ?? ''}${fullText}`),
  };
}
