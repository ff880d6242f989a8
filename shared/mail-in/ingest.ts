/**
 * The one ingest every way in runs (SES on AWS, the IMAP poller, the local SMTP server): a received
 * message, already stored raw, becomes a ticket or a followup, or is dropped, held or kept as a
 * problem, and what it became is recorded by its Message-ID (docs/email.md, "Email in").
 *
 *   parse (parse.ts: limits; in a worker with a time budget, bounded.ts) → classify (domain rules) → route (reply
 * address, thread ids, subject
 *   tag with a sender check; merged tickets to their target) → apply through the store's own ticket
 *   and followup writes, with the Message-ID record in the same transaction (a redelivery applies
 *   nothing: SES and IMAP both deliver twice at times).
 *
 * Tickets and followups are written as the API writes them (store/tickets.ts), so the change feed,
 * webhooks and the outbound mail (driven by the table's stream) see them as their own events.
 */
import {
  classify,
  entitledCcs,
  trustOf,
  type Standing,
  attachmentName,
  permanentFailures,
  planMailFollowup,
  planMailTicket,
  subjectTags,
  withoutOwnTags,
  withoutTag,
  HTML_BODY_FILENAME,
  MAX_ATTACHMENT_BYTES,
  MAX_ATTACHMENTS_BYTES,
  REPLY_WINDOW,
  type Letter,
  type Verdicts,
} from '../domain/mail-in';
import type { UploadedFile } from '../domain/body';
import type { Ticket, UserSummary } from '../domain/records';
import { parseCustomValues } from '../domain/custom-fields';
import { MAX_REPORTED_RECIPIENTS_CHECKED } from '../domain/mail-threading';
import { MAX_CCS_PER_TICKET } from '../domain/mail-settings';
import { config } from '../config';
import { logger, METRICS, metrics } from '../observability';
import { newAttachments } from '../store/attachments';
import { reserveIds } from '../store/counters';
import { listCustomFields } from '../store/custom-fields';
import { withFiles } from '../store/file-cleanups';
import {
  countNewTicket,
  countReply,
  countTicketReply,
  findInbound,
  inboundRecordPut,
  keepProblem,
  recordInbound,
  type InboundRecord,
  type MailProblem,
} from '../store/inbound-mail';
import { MissingTicket, StaleTicket, addFollowup, createTicket, getTicket } from '../store/tickets';
import { usersWithEmail } from '../store/users';
import { retryWhileStale } from '../middleware/stale';
import type { TransactItem } from '../store/transact';
import { webhookEventFor } from '../webhooks/settings';
import { MailRefused, type ParsedMail } from './parse';
import { parseMailBounded, runBounded } from './bounded';
import type { AuthorCheck } from './verify';
import { storeHooks, type MailInHooks } from './hooks';
import { queuesOfMessage, type MessageQueues } from './known-queues';
import { ignoredMessage, type IgnoredResult } from './ignored';
import { withWriter } from '../store/actor';

export interface Delivery {
  raw: Buffer;
  /** Where the raw message is kept in the mail bucket (stored before the ingest runs). */
  rawKey: string;
  /** The envelope recipients (SMTP RCPT TO, SES's receipt recipients). */
  recipients: string[];
  verdicts?: Verdicts;
  receivedAt?: Date;
  /** An operator releases a held message: its hold (spam, DMARC, rate) no longer applies. */
  release?: boolean;
  /** The how-many-th run of this message (a problem run again: its attempts, and this one). */
  attempts?: number;
}

export type IngestResult =
  | { outcome: 'ticket'; ticket: number; followup: number; notes: string[] }
  | { outcome: 'followup'; ticket: number; followup: number; reopened: boolean; notes: string[] }
  | { outcome: 'duplicate'; record: InboundRecord }
  | { outcome: 'dropped' | 'bounce'; reason: string }
  | { outcome: 'held' | 'refused' | 'failed'; reason: string; problem: MailProblem }
  | IgnoredResult;

/**
 * Whether the From domain vouches for the message: SES's DMARC verdict where SES received it (on
 * AWS), else DKIM, DMARC and trusted ARC checked on the raw message (verify.ts, in the worker).
 */
async function checkAuthor(mail: ParsedMail, delivery: Delivery): Promise<AuthorCheck> {
  if (delivery.verdicts)
    return {
      verified: delivery.verdicts.dmarc === 'PASS',
      detail: `SES DMARC verdict ${delivery.verdicts.dmarc ?? 'none'}`,
    };
  const domain = mail.from.slice(mail.from.lastIndexOf('@') + 1);
  return runBounded('checkAuthor', [delivery.raw, domain, config.mailIn.arcSealers, config.mailIn.dnsRecords]).catch(
    (error: Error) => ({ verified: false, detail: `not checked: ${error.message}` }),
  );
}

/**
 * Runs the ingest; whatever goes wrong is kept as a problem (raw, listed, re-runnable), counted and
 * logged. What it writes is mail's (store/actor.ts): no user is its actor.
 */
export async function ingest(delivery: Delivery, hooks: MailInHooks = storeHooks): Promise<IngestResult> {
  return withWriter({ source: 'mail' }, () => ingestMessage(delivery, hooks));
}

async function ingestMessage(delivery: Delivery, hooks: MailInHooks): Promise<IngestResult> {
  const received = (delivery.receivedAt ?? new Date()).toISOString();
  let mail: ParsedMail | undefined;
  const problem = async (kind: MailProblem['kind'], reason: string) => {
    // An unverified reply is applied (privately) and listed for review: no alarm.
    if (kind !== 'unverified') metrics.addMetric(METRICS.mailInProblems, 'Count', 1);
    logger.warn('inbound mail kept for operators', { kind, reason, rawKey: delivery.rawKey });
    return keepProblem(
      {
        kind,
        reason,
        raw_key: delivery.rawKey,
        message_id: mail?.messageId ?? null,
        sender: mail?.from ?? '',
        received,
        recipients: delivery.recipients,
      },
      delivery.attempts,
    );
  };
  try {
    mail = await parseMailBounded(delivery.raw);
    return await apply(mail, delivery, hooks, received, problem);
  } catch (error) {
    if (error instanceof MailRefused)
      return {
        outcome: 'refused',
        reason: error.message,
        problem: await problem('failed', `refused: ${error.message}`),
      };
    const reason = `failed: ${(error as Error).message ?? String(error)}`;
    logger.error('inbound mail not applied', { error: String(error), rawKey: delivery.rawKey });
    return { outcome: 'failed', reason, problem: await problem('failed', reason) };
  }
}

async function apply(
  mail: ParsedMail,
  delivery: Delivery,
  hooks: MailInHooks,
  received: string,
  problem: (kind: MailProblem['kind'], reason: string) => Promise<MailProblem>,
): Promise<IngestResult> {
  const seen = await findInbound(mail.messageId);
  // A held message is recorded as held; only an operator's release applies it after all.
  if (seen && !(delivery.release && seen.outcome === 'held')) return { outcome: 'duplicate', record: seen };

  const queues = await queuesOfMessage();
  const { own } = queues.known;
  const notes: string[] = [];
  const record = (
    outcome: InboundRecord['outcome'],
    notes: string[],
    ticket: number | null = null,
    followup: number | null = null,
  ): InboundRecord => ({
    message_id: mail.messageId,
    outcome,
    ticket,
    followup,
    raw_key: delivery.rawKey,
    sender: mail.from,
    received,
    notes,
  });

  const recordPut = (outcome: 'ticket' | 'followup', ticket: number, followup: number) =>
    inboundRecordPut(record(outcome, notes, ticket, followup), delivery.release === true);
  // Ignored senders (upstream's IgnoreEmail): before anything can open or touch a ticket.
  const ignored = await ignoredMessage(
    mail,
    [...delivery.recipients.map((r) => r.toLowerCase()), ...mail.to, ...mail.cc],
    queues,
    record,
  );
  if (ignored) return ignored;

  const verdict = classify({
    headers: mail.headers,
    from: mail.from,
    subject: mail.subject,
    partTypes: mail.parts.map((p) => p.mimeType),
    ownAddresses: own,
    verdicts: delivery.verdicts,
  });
  if (verdict.action === 'drop') {
    await recordInbound(record('dropped', [verdict.reason]));
    return { outcome: 'dropped', reason: verdict.reason };
  }
  if (verdict.action === 'bounce') {
    const failed = permanentFailures(mail.deliveryStatus ?? '');
    // On AWS, SES's own bounce events suppress (functions/mail/events.ts); elsewhere a report counts
    // only at the signed return path of a mail sent to the address it names. Others are recorded.
    const addressed = [...delivery.recipients, ...mail.to];
    const ours = delivery.verdicts ? [] : await hooks.bouncesOfOurs(addressed, failed);
    if (ours.length) await hooks.suppress(ours, `delivery status report ${mail.messageId}`);
    const ignored = failed.filter((a) => !ours.includes(a));
    const more =
      ignored.length > MAX_REPORTED_RECIPIENTS_CHECKED
        ? ` and ${ignored.length - MAX_REPORTED_RECIPIENTS_CHECKED} more`
        : '';
    const notOurs = ignored.length
      ? `; not ours, not acted on: ${ignored.slice(0, MAX_REPORTED_RECIPIENTS_CHECKED).join(', ')}${more}`
      : '';
    const reason = `${verdict.reason}; permanent failures: ${ours.join(', ') || 'none'}${notOurs}`;
    await recordInbound(record('bounce', [reason]));
    return { outcome: 'bounce', reason };
  }
  if (verdict.action === 'hold' && !delivery.release) {
    await recordInbound(record('held', [verdict.reason]));
    return { outcome: 'held', reason: verdict.reason, problem: await problem('held', verdict.reason) };
  }
  notes.push(...(verdict.action === 'accept' ? verdict.notes : [`released by an operator: ${verdict.reason}`]));
  if (mail.undecodable) notes.push(`${mail.undecodable} characters could not be decoded (shown as U+FFFD)`);
  if (mail.misdeclared)
    notes.push(`${mail.misdeclared} text part(s) labelled UTF-8 (or unlabelled) were not UTF-8: read as Windows-1252`);
  if (mail.misencodedHeaders)
    notes.push(`${mail.misencodedHeaders} header line(s) held raw bytes that were not UTF-8: read as Windows-1252`);
  if (mail.replyCut)
    notes.push(`the text is ${mail.textLength} characters: its body was read from the first ${REPLY_WINDOW}`);

  const addressed = [...delivery.recipients.map((r) => r.toLowerCase()), ...mail.to, ...mail.cc];
  const users = await usersWithEmail(mail.from);
  const matching = users.filter((u) => u.is_active && u.email.toLowerCase() === mail.from);
  // Upstream lets users share an address: which of them wrote is not guessed.
  const sender = matching.length === 1 ? matching[0] : undefined;
  if (matching.length > 1)
    notes.push(`${matching.length} users have the address ${mail.from}: credited to none of them`);
  const letter: Letter = {
    sender: mail.fromAsGiven || mail.from,
    subject: mail.subject,
    body: mail.body,
    messageId: mail.messageId,
    priority: mail.priority,
  };
  const author = await checkAuthor(mail, delivery);
  const ccs = entitledCcs(mail, own, config.mailIn.ccsPerMessage);
  if (ccs.left)
    notes.push(`${ccs.left} more addresses not added as CCs: over ${config.mailIn.ccsPerMessage} per message`);
  const files = filesOf(mail, notes);

  const target = await route(mail, addressed, queues, users, hooks);
  if (target) {
    const over = delivery.release ? undefined : await overReplyRate(mail.from, target.id, new Date(received));
    if (over) {
      await recordInbound(record('held', [over]));
      return { outcome: 'held', reason: over, problem: await problem('held', over) };
    }
    const standing: Standing = {
      token: await hooks.replyVerifies(addressed, target.id, mail.from),
      verified: author.verified,
      staff: sender?.is_staff === true,
      submitter: target.submitter_email?.toLowerCase() === mail.from,
      cc: (await hooks.ticketCcs(target.id)).includes(mail.from),
    };
    const trust = trustOf(standing);
    const unverified = standing.staff ? 'acting as staff needs the reply address mailed to them' : author.detail;
    if (!trust.trusted) notes.push(`unverified: ${unverified}; kept private, nothing else changed`);
    const credited = sender && (!sender.is_staff || trust.actsAsStaff) && trust.trusted ? sender : undefined;
    const applied = await applyFollowup(
      target,
      letter,
      credited,
      files,
      notes,
      recordPut,
      hooks,
      trust.addsCcs ? ccs.add : [],
      trust.trusted,
    );
    if (!trust.trusted && applied.outcome === 'followup')
      await problem(
        'unverified',
        `unverified reply: private followup ${applied.followup} on ticket ${applied.ticket} (${author.detail})`,
      );
    return applied;
  }
  const queue = await queues.find((known) =>
    addressed.map((a) => known.queueByAddress.get(withoutTag(a))).find((q) => q !== undefined),
  );
  if (!queue) {
    const reason = `no queue answers at ${delivery.recipients.join(', ') || mail.to.join(', ') || 'the recipients'}`;
    return { outcome: 'refused', reason, problem: await problem('failed', `refused: ${reason}`) };
  }
  if (!delivery.release && (await countNewTicket(mail.from, new Date(received))) > config.mailIn.ticketsPerSenderHour) {
    // Mail with no sender address (none, or one that does not parse) shares one allowance: a flood cannot hide by
    // leaving it out.
    const sender = mail.from || 'mail without a sender address';
    const reason = `rate: over ${config.mailIn.ticketsPerSenderHour} new tickets from ${sender} in an hour`;
    await recordInbound(record('held', [reason]));
    return { outcome: 'held', reason, problem: await problem('held', reason) };
  }
  const defs = await listCustomFields();
  // A tag of ours names a ticket this message did not join: not part of the new ticket's title.
  const ownTagsOut = {
    ...letter,
    subject: withoutOwnTags(letter.subject, new Set(queues.known.queues.map((q) => q.slug))),
  };
  // Stamped now, in the request that reserves the id (as upstream's `timezone.now()`), not when the
  // mail was received (an IMAP message may wait in its mailbox, an SES delivery be retried for
  // hours): ids then follow creation times, which the id-ordered lists with `created_since` count on
  // (domain/ticket-list-query.ts, CREATION_SPAN_MS). The inbound record keeps the receipt time.
  // A new ticket by mail credits a staff user never (that needs a reply address), another user when verified.
  const user = sender && !sender.is_staff && author.verified ? sender.id : null;
  const plan = planMailTicket(
    ownTagsOut,
    queue.id,
    parseCustomValues(defs, {}, 'create', 'json').values,
    user,
    new Date(),
  );
  const ids = await reserveIds({ ticket: 1, followup: 1, attachment: files.length });
  const ticket: Ticket = { id: ids.ticket, ...plan.ticket };
  const opening = { id: ids.followup, ticket: ticket.id, ...plan.opening };
  const uploads = newAttachments(ticket.id, opening.id, ids.attachment, files);
  const event = webhookEventFor('ticket.created', ticket.id, null, config.publicUrl ?? '');
  const written = await writeOnce(mail.messageId, () =>
    withFiles(uploads.files, (fileCommit) =>
      createTicket(ticket, opening, uploads.records, event, fileCommit, [recordPut('ticket', ticket.id, opening.id)]),
    ),
  );
  if (written !== true) return written;
  // The sender is the submitter: their domain's word is enough to name whom they copy.
  if (author.verified && ccs.add.length) notes.push(...ccsLeftOut(await hooks.addTicketCcs(ticket.id, ccs.add)));
  else if (ccs.add.length) notes.push(`unverified: ${author.detail}; no CCs added`);
  return { outcome: 'ticket', ticket: ticket.id, followup: opening.id, notes };
}

/** Why a reply is over a rate (its sender's, folded, or its ticket's, per hour), or undefined. */
async function overReplyRate(sender: string, ticket: number, now: Date): Promise<string | undefined> {
  const { repliesPerSenderHour, repliesPerTicketHour } = config.mailIn;
  if ((await countReply(sender, now)) > repliesPerSenderHour)
    return `rate: over ${repliesPerSenderHour} replies from ${withoutTag(sender)} in an hour`;
  if ((await countTicketReply(ticket, now)) > repliesPerTicketHour)
    return `rate: over ${repliesPerTicketHour} replies to ticket ${ticket} in an hour`;
  return undefined;
}

/**
 * The ticket a reply belongs to, or undefined for a new one: its verified reply address, then the
 * thread's Message-IDs (sent or received), then a subject tag when the sender may write to that
 * ticket. A merged ticket is followed to its target.
 */
async function route(
  mail: ParsedMail,
  addressed: string[],
  queues: MessageQueues,
  users: UserSummary[],
  hooks: MailInHooks,
): Promise<Ticket | undefined> {
  let id: number | undefined;
  for (const address of addressed) id ??= await hooks.ticketOfReplyAddress(address);
  if (id === undefined && mail.threadIds.length) id = await hooks.ticketOfThreadIds(mail.threadIds);
  let ticket = id === undefined ? undefined : await getTicket(id);
  if (!ticket) ticket = await taggedTicket(mail, queues, users, hooks);
  for (let hops = 0; ticket?.merged_to != null && hops < 10; hops++) ticket = await getTicket(ticket.merged_to);
  return ticket;
}

/**
 * Tags of this helpdesk's queues a subject is read for, the first ones: each costs a read of its ticket (and of the
 * ticket's CCs), and a subject may hold thousands (measured: 20,000 tags of a 180 KB subject took 26 s of reads).
 * A reply carries one; a forwarded thread, a few.
 */
export const MAX_SUBJECT_TAGS_READ = 5;

/** Upstream's `[<slug>-<id>]`, honoured only from the ticket's submitter, one of its CCs, or staff. */
async function taggedTicket(
  mail: ParsedMail,
  queues: MessageQueues,
  users: UserSummary[],
  hooks: MailInHooks,
): Promise<Ticket | undefined> {
  let read = 0;
  for (const tag of subjectTags(mail.subject)) {
    const queue = await queues.find((known) => known.queues.find((q) => q.slug === tag.slug));
    if (queue && ++read > MAX_SUBJECT_TAGS_READ) break;
    const ticket = queue ? await getTicket(tag.ticket) : undefined;
    if (!ticket || ticket.queue !== queue!.id) continue;
    const staff = users.some((u) => u.is_active && u.is_staff && u.email.toLowerCase() === mail.from);
    const known =
      staff ||
      ticket.submitter_email?.toLowerCase() === mail.from ||
      (await hooks.ticketCcs(ticket.id)).includes(mail.from);
    if (known) return ticket;
    logger.info('subject tag ignored: the sender is not on the ticket', { ticket: ticket.id });
  }
  return undefined;
}

async function applyFollowup(
  found: Ticket,
  letter: Letter,
  sender: UserSummary | undefined,
  files: UploadedFile[],
  notes: string[],
  recordPut: (outcome: 'followup', ticket: number, followup: number) => TransactItem,
  hooks: MailInHooks,
  ccs: string[],
  trusted: boolean,
): Promise<IngestResult> {
  let ticket = found;
  const ids = await reserveIds({ followup: 1, attachment: files.length });
  const uploads = newAttachments(ticket.id, ids.followup, ids.attachment, files);
  const event = webhookEventFor('followup.created', ticket.id, ids.followup, config.publicUrl ?? '');
  let reopened = false;
  const written = await writeOnce(letter.messageId, () =>
    withFiles(uploads.files, (fileCommit) =>
      retryWhileStale(
        async (attempt) => {
          if (attempt > 1) ticket = (await getTicket(ticket.id)) ?? ticket;
          const plan = planMailFollowup(letter, ticket, sender?.id ?? null, new Date(), trusted);
          reopened = plan.ticketChanges.status !== undefined;
          await addFollowup(
            ticket,
            { id: ids.followup, ...plan.followup },
            uploads.records,
            plan.ticketChanges,
            event,
            fileCommit,
            [recordPut('followup', ticket.id, ids.followup)],
          );
        },
        (error) => error instanceof StaleTicket,
      ),
    ),
  );
  if (written !== true) return written;
  if (ccs.length) notes.push(...ccsLeftOut(await hooks.addTicketCcs(ticket.id, ccs)));
  return { outcome: 'followup', ticket: ticket.id, followup: ids.followup, reopened, notes };
}

/**
 * Runs a write that carries the Message-ID's record; when it fails, the record says whether another
 * delivery of the same message won meanwhile (then this one is a duplicate, its uploads abandoned).
 */
async function writeOnce(messageId: string, write: () => Promise<unknown>): Promise<true | IngestResult> {
  try {
    await write();
    return true;
  } catch (error) {
    const seen = await findInbound(messageId);
    if (seen) return { outcome: 'duplicate', record: seen };
    if (error instanceof MissingTicket)
      throw new Error('the ticket was deleted while the reply was applied', { cause: error });
    throw error;
  }
}

/**
 * The message's files as the followup's attachments: its attachments and inline images, and the HTML
 * body kept as upstream keeps it. Files over the limits stay out (said in the notes; the raw message
 * keeps them).
 */
function filesOf(mail: ParsedMail, notes: string[]): UploadedFile[] {
  const files: UploadedFile[] = [];
  let total = 0;
  const add = (filename: string, contentType: string, data: Buffer) => {
    if (data.length > MAX_ATTACHMENT_BYTES || total + data.length > MAX_ATTACHMENTS_BYTES) {
      const limit = data.length > MAX_ATTACHMENT_BYTES ? 'per-file' : 'per-message';
      notes.push(
        `attachment ${filename} (${data.length} bytes) not stored: over the ${limit} limit; it is in the kept message`,
      );
      return;
    }
    total += data.length;
    files.push({ field: 'attachments', filename, contentType, data });
  };
  mail.parts.forEach((part, i) => add(attachmentName(i + 1, part.filename, part.mimeType), part.mimeType, part.data));
  if (mail.html) add(HTML_BODY_FILENAME, 'text/html', Buffer.from(mail.html, 'utf8'));
  return files;
}

/** The note of addresses a full CC list left out (none when it left out none). */
function ccsLeftOut(left: number): string[] {
  return left ? [`${left} more addresses not added as CCs: the ticket's list holds ${MAX_CCS_PER_TICKET}`] : [];
}
