/**
 * The sender (issue 22): one attempt at one queued mail. It claims the mail in the log (so two
 * senders, or a repeated queue message, send it once), renders it from the ticket as it is now
 * (domain/mail-templates.ts), threads it (domain/mail-threading.ts), composes it (compose.ts),
 * hands it to the transport, and records the outcome: sent with its Message-ID, or back to queued
 * for the next attempt, or failed after the last.
 *
 * A private followup's text never goes into a mail: a followup mail is made only for a public
 * followup (domain/mail-recipients.ts), and here again only a public followup's comment is put in;
 * the ticket's stored `resolution` is never read (a private followup that resolved may have set it).
 */
import {
  retryDelay,
  MAX_EMAIL_ATTACHMENT_BYTES,
  type MailRecord,
  type MailRef,
  type SendResult,
  type MailSettings,
} from '../domain/mail';
import type { MailKind } from '../domain/mail-settings';
import {
  AUTO_SUBMITTED_HEADERS,
  bounceAddress,
  ownMessageId,
  replyAddress,
  splitAddress,
  threadHeaders,
  threadRoot,
} from '../domain/mail-threading';
import {
  effectiveTemplate,
  outsiderContext,
  renderMail,
  ticketTag,
  type MailTemplateContext,
} from '../domain/mail-templates';
import {
  PRIORITY_LABELS,
  STATUS_LABELS,
  type Attachment,
  type Followup,
  type Queue,
  type TicketCollection,
} from '../domain/records';
import { displayName } from '../domain/ticket';
import { logger } from '../observability';
import { getFile, presignDownload } from '../aws/s3';
import { claimMail, recordFailedAttempt, recordSent, ticketMail } from '../store/mail-log';
import { queueForMail } from '../store/queues';
import { loadReferences } from '../store/references';
import { readTicket } from '../store/tickets';
import { usersWithEmail } from '../store/users';
import { suppressedAmong } from '../store/suppressions';
import { readTemplateOverrides } from '../store/template-overrides';
import { composeMail } from './compose';
import type { MailTransport } from './transports';

/** How long a mail's link to a file too large to attach stays valid (SigV4's longest: 7 days). */
export const MAIL_LINK_SECONDS = 7 * 86_400;

export interface SenderContext {
  transport: MailTransport;
  settings: Pick<MailSettings, 'defaultFrom' | 'retryDelays'>;
  secret: () => Promise<string>;
}

/**
 * The From of a queue's mail: its title and address, or the default sender's address (`<slug>@localhost` when none is
 * set).
 */
export function senderOf(queue: Pick<Queue, 'title' | 'slug' | 'email_address'>, ctx: Pick<SenderContext, 'settings'>) {
  const address = queue.email_address ?? ctx.settings.defaultFrom?.address ?? `${queue.slug}@localhost`;
  return { name: queue.title, address };
}

const kindAudience = (kind: MailKind) => kind.slice(kind.lastIndexOf('_') + 1);
const isFinalKind = (kind: MailKind) => kind.startsWith('resolved_') || kind.startsWith('closed_');

/** The files of the followup: attached when under upstream's limit, else a link that lasts MAIL_LINK_SECONDS. */
async function filesOf(attachments: Attachment[]) {
  const attached: { filename: string; content: Buffer; contentType: string }[] = [];
  const linked: string[] = [];
  for (const a of attachments) {
    if (a.size < MAX_EMAIL_ATTACHMENT_BYTES)
      attached.push({ filename: a.filename, content: await getFile(a.object_key), contentType: a.mime_type });
    else {
      const link = await presignDownload(a.object_key, a.filename, a.mime_type, MAIL_LINK_SECONDS);
      linked.push(`${a.filename} (${a.size} bytes): ${link}`);
    }
  }
  return { attached, linked };
}

/** The values a mail is rendered with: the ticket now, and the mail's followup when it is public. */
async function contextOf(
  mail: MailRecord,
  collection: TicketCollection,
  queue: Queue | undefined,
  followup: Followup | undefined,
  linked: string[],
): Promise<MailTemplateContext> {
  const t = collection.ticket;
  const assignee =
    t.assigned_to === null
      ? undefined
      : (await loadReferences({ queues: [], users: [t.assigned_to], tickets: [] })).users.get(t.assigned_to);
  const publicText = followup?.public ? (followup.comment ?? '') : '';
  const created = mail.kind.startsWith('newticket_') || mail.kind === 'assigned_owner';
  return {
    'ticket.tag': ticketTag(queue?.slug ?? String(t.queue), t.id),
    'ticket.id': String(t.id),
    'ticket.title': t.title,
    'ticket.status': STATUS_LABELS[t.status] ?? String(t.status),
    'ticket.priority': PRIORITY_LABELS[t.priority] ?? String(t.priority),
    'ticket.submitter_email': t.submitter_email ?? '',
    'ticket.assigned_to': assignee ? displayName(assignee) : '',
    // A new ticket's description is its opening followup's (public) comment.
    'ticket.description': created ? (t.description ?? '') : '',
    'queue.title': queue?.title ?? '',
    'queue.slug': queue?.slug ?? '',
    comment: created || isFinalKind(mail.kind) ? '' : publicText,
    resolution: isFinalKind(mail.kind) ? publicText : '',
    files: linked.join('\n'),
    recipient: mail.recipient,
  };
}

/**
 * Whether a mail's recipient is told what only staff are (priority, submitter, assignee): the submitter's and the
 * assignee's kinds say it themselves; a CC is staff when the address is on the queue's own CC lists (set by
 * superusers) or is one active staff user's. Anyone else a ticket's CC list names (added by staff or by mail) is an
 * outsider, and so is an address several users share (which of them reads it is not guessed).
 */
async function seesStaffView(kind: MailKind, recipient: string, queue: Queue | undefined): Promise<boolean> {
  if (kindAudience(kind) !== 'cc') return kindAudience(kind) === 'owner';
  const address = recipient.trim().toLowerCase();
  const queueCcs = [queue?.new_ticket_cc, queue?.updated_ticket_cc].flatMap((list) =>
    (list ?? '').split(',').map((a) => a.trim().toLowerCase()),
  );
  if (queueCcs.includes(address)) return true;
  const users = (await usersWithEmail(address)).filter((u) => u.is_active);
  return users.length === 1 && users[0]!.is_staff;
}

/** One attempt at mail `ref`; what came of it (a `retry` says when to try again). */
export async function sendMail(ref: MailRef, ctx: SenderContext, now = () => new Date()): Promise<SendResult> {
  const mail = await claimMail(ref, now());
  if (!mail) return { state: 'skipped' };
  try {
    const collection = await readTicket(mail.ticket);
    if (!collection) {
      await recordFailedAttempt(mail, 'the ticket was deleted before its mail was sent', true, now());
      return { state: 'failed', deadLetter: false };
    }
    const followup = collection.followups.find((f) => f.id === mail.followup);
    // Defence in depth: a private followup's mail (none is planned) reaches no submitter or CC.
    if (followup && !followup.public && kindAudience(mail.kind) !== 'owner') {
      await recordFailedAttempt(mail, 'a private followup is not mailed', true, now());
      return { state: 'failed', deadLetter: false };
    }
    const queue = await queueForMail(collection.ticket.queue);
    const from = senderOf(queue ?? { title: 'Helpdesk', slug: 'helpdesk', email_address: null }, ctx);
    const files = await filesOf(followup ? collection.attachments.filter((a) => a.followup === followup.id) : []);
    const overrides = await readTemplateOverrides(mail.kind, collection.ticket.queue);
    const context = await contextOf(mail, collection, queue, followup, files.linked);
    const rendered = renderMail(
      effectiveTemplate(mail.kind, overrides),
      (await seesStaffView(mail.kind, mail.recipient, queue)) ? context : outsiderContext(context),
    );
    if ((await suppressedAmong([mail.recipient])).size) {
      await recordSent(
        mail,
        {
          status: 'suppressed',
          subject: rendered.subject,
          messageId: null,
          error: 'the address is on the suppression list',
        },
        now(),
      );
      return { state: 'suppressed' };
    }
    const secret = await ctx.secret();
    const domain = splitAddress(from.address)!.domain;
    // The thread as this recipient has it: the mails sent to them about the ticket, in the order sent.
    const previous = (await ticketMail(mail.ticket))
      .filter(
        (m) => m.id !== mail.id && m.message_id && m.sent && m.recipient.toLowerCase() === mail.recipient.toLowerCase(),
      )
      .sort((a, b) => (a.sent! < b.sent! ? -1 : a.sent! > b.sent! ? 1 : 0))
      .map((m) => m.message_id!);
    const messageId = ownMessageId(
      mail.ticket,
      mail.id.slice(mail.id.lastIndexOf('#') + 1).replace(/[^A-Za-z0-9]/g, ''),
      domain,
    );
    const raw = await composeMail({
      from,
      to: mail.recipient,
      replyTo: replyAddress(from.address, mail.ticket, secret, mail.recipient),
      subject: rendered.subject,
      text: rendered.text,
      html: rendered.html,
      messageId,
      headers: { ...threadHeaders(threadRoot(mail.ticket, domain, secret), previous), ...AUTO_SUBMITTED_HEADERS },
      attachments: files.attached,
      date: now(),
    });
    const returnPath = bounceAddress(from.address, mail.id, mail.recipient, secret);
    const sentId = await ctx.transport.send(raw, { from: from.address, to: mail.recipient, messageId, returnPath });
    await recordSent(mail, { status: 'sent', subject: rendered.subject, messageId: sentId }, now());
    logger.info('mail sent', { ticket: mail.ticket, mail: mail.id, kind: mail.kind });
    return { state: 'sent' };
  } catch (error) {
    const delay = retryDelay(mail.attempts, ctx.settings.retryDelays);
    const message = `${(error as Error).name}: ${(error as Error).message}`;
    await recordFailedAttempt(mail, message, delay === undefined, now());
    if (delay === undefined) {
      logger.error('mail failed on every attempt', { ticket: mail.ticket, mail: mail.id, error: message });
      return { state: 'failed', deadLetter: true };
    }
    logger.warn('mail attempt failed, will retry', {
      ticket: mail.ticket,
      mail: mail.id,
      attempt: mail.attempts,
      error: message,
    });
    return { state: 'retry', inSeconds: delay };
  }
}
