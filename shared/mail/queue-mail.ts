/**
 * The mail consumer of the table's stream (issue 22): records in, queued mails out. Self-contained,
 * with one entry point (`queueMailFor`, as a consumer `mailConsumer`), which the table stream's one
 * reader fans each batch out to (consumer/fan-out.ts: on AWS functions/stream/consume.ts, locally the
 * poller).
 *
 * Each committed change that mails (a ticket created, a followup added, and with the setting a PUT
 * or PATCH that resolves, closes or reassigns) gives one mail per recipient (domain/mail-recipients.ts),
 * recorded in the mail log by a conditional put keyed by (stream record, kind, recipient) and then
 * queued. A retried batch finds its mails recorded and queues again only those still `queued` (the
 * sender's claim makes a second message a no-op): at least once to the queue, once to the address.
 * Nothing here runs on the request path: a request's writes and latency are what they were.
 */
import type { MailChange, MailAudience } from '../domain/mail-recipients';
import { planMail } from '../domain/mail-recipients';
import { mailId, type MailRecord, type MailRef, type MailSettings } from '../domain/mail';
import { STATUS, type Followup, type Queue, type Ticket } from '../domain/records';
import { config } from '../config';
import { ESCALATION_ITEM_TYPE, TICKET_PREFIX, TICKET_SORT_KEY } from '../store/keys';
import { ESCALATION, openingOf, strip, UPDATED_BY, writtenByImport, WRITTEN_OUT } from '../store/items';
import { getMail, queueMail } from '../store/mail-log';
import { findInbound } from '../store/inbound-mail';
import { queueForMail } from '../store/queues';
import { loadReferences } from '../store/references';
import { readTicket } from '../store/tickets';
import type { FilteredConsumer, TableChange } from '../consumer/changes';
import type { FilterPattern } from '../domain/stream-filters';
import { MAX_SQS_DELAY_SECONDS, sendMessage } from '../aws/sqs';
import { ccAddresses } from '../domain/mail-settings';
import { ticketCcAddresses } from '../store/ticket-ccs';
import { eventActor } from '../domain/actor';
import { WRITTEN_BY } from '../store/actor';

export interface MailQueue {
  enqueue(ref: MailRef, delaySeconds: number): Promise<void>;
}

/** The mail queue on AWS (HELPDESK_MAIL_QUEUE_URL); a later attempt waits out the rest hidden (mail/send.ts). */
export const sqsMailQueue = (url: string): MailQueue => ({
  enqueue: (ref, delaySeconds) => sendMessage(url, JSON.stringify(ref), Math.min(delaySeconds, MAX_SQS_DELAY_SECONDS)),
});

/** The consumer's name: its retry queue's, in logs and in the consumer's timings. */
export const MAIL_CONSUMER = 'mail';

/** Ticket items (created; with the setting, resolved, closed or reassigned), new followups and escalations. */
export const MAIL_FILTERS: readonly FilterPattern[] = [
  { dynamodb: { Keys: { SK: { S: [TICKET_SORT_KEY] } } } },
  { eventName: ['INSERT'], dynamodb: { NewImage: { type: { S: ['followup', ESCALATION_ITEM_TYPE] } } } },
];

/** The mail of the stream's changes, queued on `queue`, as a consumer of the one reader. */
export const mailConsumer = (queue: MailQueue, settings?: MailSettings): FilteredConsumer => ({
  name: MAIL_CONSUMER,
  filters: MAIL_FILTERS,
  apply: (changes) => queueMailFor(changes, queue, settings),
});

/** A change that mails, with the ids it needs: the record's, the followup's and the acting user's. */
interface Mailable {
  change: MailChange;
  ticket: number;
  queue: number;
  /** The followup whose text and files the mail carries (a new ticket's opening one). */
  followup: number | null;
  stream: { id: string; at: number; sequence: string };
  /** A followup from mail: its sender's address, never mailed their own message back (issue 32). */
  author?: string | null;
}

const facts = (t: Ticket) => ({ status: t.status, submitter_email: t.submitter_email, assigned_to: t.assigned_to });

/** What a record means to mail, if anything (the ticket a followup was added to is read, once per batch). */
async function mailableOf(
  change: TableChange,
  settings: MailSettings,
  tickets: Map<number, Promise<Ticket | undefined>>,
): Promise<Mailable | undefined> {
  const { stream, newImage, oldImage, eventName } = change;
  // Records written by import-django are old history: nobody is mailed about them.
  if (writtenByImport(change)) return undefined;
  if (stream && eventName === 'INSERT' && newImage?.type === ESCALATION_ITEM_TYPE)
    return escalationOf(newImage, stream, tickets);
  if (!stream || !change.keys.PK.startsWith(TICKET_PREFIX) || !newImage) return undefined;
  const id = Number(change.keys.PK.slice(TICKET_PREFIX.length));
  if (newImage.type === 'ticket' && change.keys.SK === TICKET_SORT_KEY) {
    const ticket = strip<Ticket>(newImage);
    if (eventName === 'INSERT') {
      const opening = openingOf(newImage);
      return {
        change: { type: 'created', ticket: facts(ticket), actor: opening?.user ?? null },
        ticket: id,
        queue: ticket.queue,
        followup: opening?.id ?? null,
        stream,
      };
    }
    if (eventName !== 'MODIFY' || !settings.onTicketUpdates || !oldImage) return undefined;
    const before = strip<Ticket>(oldImage);
    const final =
      ticket.status !== before.status && (ticket.status === STATUS.RESOLVED || ticket.status === STATUS.CLOSED);
    const reassigned = ticket.assigned_to !== null && ticket.assigned_to !== before.assigned_to;
    if (!final && !reassigned) return undefined;
    // A followup that resolves or closes writes the ticket too: that change mails as the followup.
    if (!reassigned && (await byFollowup(id, ticket))) return undefined;
    // The caller of the PUT or PATCH (store/items.ts UPDATED_BY), never mailed about their own change.
    const actor = typeof newImage[UPDATED_BY] === 'number' ? newImage[UPDATED_BY] : null;
    return {
      change: { type: 'updated', ticket: facts(ticket), actor, before: facts(before) },
      ticket: id,
      queue: ticket.queue,
      followup: null,
      stream,
    };
  }
  // An escalation's followup mails as the escalation (its record, above).
  if (newImage.type === 'followup' && eventName === 'INSERT' && !newImage[WRITTEN_OUT] && !newImage[ESCALATION]) {
    const f = strip<Followup>(newImage);
    if (!tickets.has(id))
      tickets.set(
        id,
        readTicket(id).then((c) => c?.ticket),
      );
    const ticket = await tickets.get(id);
    if (!ticket) return undefined; // deleted since: nobody to tell about it
    return {
      change: {
        type: 'followup',
        ticket: facts(ticket),
        actor: f.user,
        // Mail in makes a followup private only when its sender is not trusted (domain/mail-in.ts `planMailFollowup`).
        followup: {
          public: f.public,
          comment: f.comment,
          new_status: f.new_status,
          unverified: !f.public && !!f.message_id,
        },
      },
      ticket: id,
      queue: ticket.queue,
      followup: f.id,
      stream,
      author: f.user === null && f.message_id ? ((await findInbound(f.message_id))?.sender ?? null) : null,
    };
  }
  return undefined;
}

/** An escalation (or, with `--notify-only`, its notice): store/escalation.ts writes the record this reads. */
async function escalationOf(
  record: Record<string, unknown>,
  stream: Mailable['stream'],
  tickets: Map<number, Promise<Ticket | undefined>>,
): Promise<Mailable | undefined> {
  const id = Number(record.ticket);
  if (!tickets.has(id))
    tickets.set(
      id,
      readTicket(id).then((c) => c?.ticket),
    );
  const ticket = await tickets.get(id);
  if (!ticket) return undefined;
  return {
    change: { type: 'escalated', ticket: facts(ticket), actor: null },
    ticket: id,
    queue: ticket.queue,
    followup: (record.followup as number | null) ?? null,
    stream,
  };
}

/** Whether the ticket's latest change came with a followup that made it (its date and status). */
async function byFollowup(ticket: number, after: Ticket): Promise<boolean> {
  const collection = await readTicket(ticket);
  return !!collection?.followups.some((f) => f.date === after.modified && f.new_status === after.status);
}

/** Who a change's mail may go to, from its queue, the ticket's CC list, its assignee and its acting user. */
async function audienceOf(m: Mailable, queue: Queue | undefined, settings: MailSettings): Promise<MailAudience> {
  const assignee = m.change.ticket.assigned_to;
  const users = [assignee, m.change.actor].filter((u): u is number => u !== null);
  const [refs, ticketCc] = await Promise.all([
    users.length ? loadReferences({ queues: [], users, tickets: [] }) : undefined,
    ticketCcAddresses(m.ticket),
  ]);
  const emailOf = (user: number | null) => (user === null ? null : refs?.users.get(user)?.email || null);
  return {
    queueAddress: queue?.email_address ?? null,
    newTicketCc: ccAddresses(queue?.new_ticket_cc),
    updatedTicketCc: ccAddresses(queue?.updated_ticket_cc),
    ticketCc,
    assigneeEmail: emailOf(assignee),
    actorEmail: emailOf(m.change.actor) ?? m.author ?? null,
    disabled: new Set([...settings.disabledKinds, ...(queue?.disabled_mail ?? [])]),
    onTicketUpdates: settings.onTicketUpdates,
  };
}

/**
 * The entry point: the mails of a batch of the table's stream, recorded and queued. Throws when a
 * write or the queue fails, for the batch to be retried (which changes nothing already done).
 */
/**
 * Changes worked on at once: a batch's tickets are independent (each mail's id is its own), and a burst's batch is
 * large.
 */
const CONCURRENCY = 16;

export async function queueMailFor(
  changes: TableChange[],
  queue: MailQueue,
  settings: MailSettings = config.mail.settings,
): Promise<void> {
  if (settings.transport === 'off') return;
  const tickets = new Map<number, Promise<Ticket | undefined>>();
  const one = async (change: TableChange) => {
    const m = await mailableOf(change, settings, tickets);
    if (!m) return;
    const planned = planMail(m.change, await audienceOf(m, await queueForMail(m.queue), settings));
    // The log shows when a mail was queued; its id keeps the change's place in the stream.
    const at = new Date().toISOString();
    for (const { kind, recipient } of planned) {
      const mail: MailRecord = {
        id: mailId(m.stream, kind, recipient),
        ticket: m.ticket,
        followup: m.followup,
        kind,
        recipient,
        status: 'queued',
        subject: null,
        message_id: null,
        attempts: 0,
        created: at,
        sent: null,
        updated: at,
        error: null,
        ...eventActor(change.newImage?.[WRITTEN_BY]),
      };
      const created = await queueMail(mail);
      // Recorded before (a retried batch, a restart reading the stream again): queued again unless
      // settled; the sender's claim lets one attempt through (a `sending` one once its lease ran out).
      const again = created ? undefined : await getMail(mail.ticket, mail.id);
      if (created || again?.status === 'queued' || again?.status === 'sending')
        await queue.enqueue({ ticket: mail.ticket, id: mail.id }, 0);
    }
  };
  // Every change is worked on even when one fails (its batch is retried whole, which is idempotent).
  let failure: Error | undefined;
  let next = 0;
  const worker = async () => {
    while (next < changes.length)
      await one(changes[next++]!).catch(
        (error: unknown) => (failure ??= error instanceof Error ? error : new Error(String(error))),
      );
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, changes.length) }, worker));
  if (failure) throw failure;
}
