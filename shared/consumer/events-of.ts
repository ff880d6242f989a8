/**
 * Change events from the table's stream (issue 15): what one stream record of a ticket, followup or
 * attachment item means to an integration. Pure: the stream consumer (consumer/change-feed.ts) writes
 * what this returns to the change feed, whose items the dispatcher sends to subscriptions.
 *
 * The records are the items' own writes, so a change committed is a record, and a record is a change
 * committed: the stream is the outbox (docs/data-model.md, "The change feed"). What is not a change
 * an integration can see gives no event:
 * - MODIFYs of bookkeeping only: `version`, `modified`, index keys (a status change re-keying the
 *   collection in gsi2, the consumer's own repairs), the opening followup leaving the ticket item;
 * - the INSERT of an opening followup written out of its ticket item (marked `written_out`), which
 *   was already announced with its ticket (`followup.created` beside `ticket.created`);
 * - merge pointers and everything outside ticket collections;
 * - the writes of `import-django` (store/items.ts `writtenByImport`): history, not news.
 * Followups and attachments removed with their ticket are left out by the consumer, which knows
 * whether the ticket is gone (`ticket.deleted` says it).
 */
import { createHash } from 'node:crypto';
import type { CustomFieldDefinition } from '../domain/custom-fields';
import { storedDateTime, wireDateTime } from '../domain/datetime';
import { privateTicketFields } from '../domain/disclosure';
import type { ChangeEvent, EventType, FieldChange, JsonValue } from '../domain/events';
import type { Attachment, Followup, Ticket } from '../domain/records';
import { attachmentView, followupView, ticketView } from '../domain/views';
import { MAIL_PREFIX, TICKET_PREFIX } from '../store/keys';
import type { MailRecord } from '../domain/mail';
import { openingOf, strip, writtenByImport, WRITTEN_OUT } from '../store/items';
import type { StreamPosition, TableChange } from './changes';
import { eventActor } from '../domain/actor';
import { WRITTEN_BY } from '../store/actor';

type Item = Record<string, unknown>;
type Data = Record<string, JsonValue>;

/** An event and where it goes in the feed: its stream record's position and its index in that record. */
export interface DerivedEvent {
  event: ChangeEvent;
  stream: StreamPosition;
  index: number;
}

export interface EventContext {
  /** The custom field definitions (a ticket's `custom_<name>` keys). */
  defs: CustomFieldDefinition[];
  /** The API's address for attachment links (`HELPDESK_PUBLIC_URL`); '' gives paths. */
  baseUrl: string;
}

/** Stable across retries of the record: the same id on every delivery and in the feed. */
export function eventId(stream: Pick<StreamPosition, 'id'>, index: number): string {
  return `evt_${createHash('sha256').update(`${stream.id}#${index}`).digest('base64url').slice(0, 24)}`;
}

/** The ticket's fields as staff see them (GET without `followup_set`: followups have events of their own). */
function ticketData(item: Item, ctx: EventContext): Data {
  const { followup_set: _, ...fields } = ticketView(
    ctx.baseUrl,
    { ticket: strip<Ticket>(item), followups: [], attachments: [], mergedFrom: [] },
    ctx.defs,
  );
  return fields;
}

/** A followup as staff see it (without `followupattachment_set`: attachments have events of their own). */
function followupData(f: Followup, ctx: EventContext): Data {
  const { followupattachment_set: _, ...fields } = followupView(ctx.baseUrl, f, []);
  return fields;
}

/** An attachment record as staff see it, with its ticket (the view has its followup). */
function attachmentData(a: Attachment, ctx: EventContext): Data {
  return { ...attachmentView(ctx.baseUrl, a), ticket: a.ticket };
}

/** The fields whose values differ, with both values; keys in the order of the record after. */
export function fieldChanges(before: Data, after: Data): Record<string, FieldChange> {
  const changes: Record<string, FieldChange> = {};
  for (const key of new Set([...Object.keys(after), ...Object.keys(before)])) {
    const old = before[key] ?? null;
    const now = after[key] ?? null;
    if (JSON.stringify(old) !== JSON.stringify(now)) changes[key] = { old, new: now };
  }
  return changes;
}

/** The ticket fields holding staff-only text in the images, or undefined when neither has any. */
function ticketPrivateFields(
  oldImage: Item | undefined,
  newImage: Item | undefined,
): { before: string[]; after: string[] } | undefined {
  const before = oldImage ? privateTicketFields(strip<Ticket>(oldImage)) : [];
  const after = newImage ? privateTicketFields(strip<Ticket>(newImage)) : [];
  return before.length || after.length ? { before, after } : undefined;
}

/** An event's `created` in the API's wire form, from a stored date-time or the stream record's time. */
const wire = (stored: string) => wireDateTime(stored)!;
const iso = (ms: number) => wire(storedDateTime(new Date(ms)));

/** Statuses of a mail log entry that are events: the mail service's word that a mail did not reach its recipient. */
const MAIL_EVENTS: Readonly<Record<string, EventType>> = { bounced: 'mail.bounced', complained: 'mail.complained' };

/**
 * Whether a record is a mail log entry turning bounced or complained (SES's events, recorded by
 * shared/mail/ses-events.ts).
 */
export function isMailStatusEvent(change: TableChange): boolean {
  const status = change.newImage?.status;
  return (
    change.eventName === 'MODIFY' &&
    change.keys.PK.startsWith(MAIL_PREFIX) &&
    typeof status === 'string' &&
    status in MAIL_EVENTS &&
    change.oldImage?.status !== status
  );
}

/** `mail.bounced` / `mail.complained`: the mail as GET /api/tickets/{id}/emails/ lists it. */
function mailEvent(change: TableChange): DerivedEvent[] {
  const mail = strip<MailRecord>(change.newImage!);
  const data: Data = {
    id: mail.id,
    kind: mail.kind,
    recipient: mail.recipient,
    status: mail.status,
    subject: mail.subject,
    message_id: mail.message_id,
    error: mail.error,
    created: mail.created,
    sent: mail.sent,
    updated: mail.updated,
  };
  const stream = change.stream!;
  const event: ChangeEvent = {
    id: eventId(stream, 0),
    event: MAIL_EVENTS[mail.status]!,
    created: iso(stream.at),
    ticket: mail.ticket,
    followup: mail.followup,
    attachment: null,
    // A delivery report (SES, the sender): no one's action.
    actor: null,
    source: 'system',
    changes: { status: { old: (change.oldImage?.status as string | undefined) ?? null, new: mail.status } },
    data,
  };
  return [{ stream, index: 0, event }];
}

/**
 * The events of one record. `deletedBy`: a REMOVE's actor, as its delete recorded it (store/actor.ts
 * `deletionRecord`, read by the batch: change-feed.ts); none (an item deleted before it was recorded, or by the
 * consumer's own repair): unknown.
 */
export function eventsOf(change: TableChange, ctx: EventContext, deletedBy?: unknown): DerivedEvent[] {
  const { stream, eventName, newImage, oldImage } = change;
  // History brought in by import-django is no change to announce (no feed event, so no webhook).
  if (writtenByImport(change)) return [];
  if (stream && isMailStatusEvent(change)) return mailEvent(change);
  if (!stream || !change.keys.PK.startsWith(TICKET_PREFIX)) return [];
  const image = (newImage ?? oldImage)!;
  const ticket = Number(change.keys.PK.slice(TICKET_PREFIX.length));
  const out: DerivedEvent[] = [];
  // A ticket's fields holding text only staff may see, before and after (domain/disclosure.ts).
  const privateFields = image.type === 'ticket' ? ticketPrivateFields(oldImage, newImage) : undefined;
  // The write's own record of its actor; a deletion's is beside it (the old image names the writer before it).
  const by = eventActor(eventName === 'REMOVE' ? deletedBy : newImage?.[WRITTEN_BY]);
  const add = (
    event: EventType,
    created: string,
    data: Data,
    ids: { followup?: number; attachment?: number },
    changes: Record<string, FieldChange> | null = null,
  ) =>
    out.push({
      stream,
      index: out.length,
      event: {
        id: eventId(stream, out.length),
        event,
        created,
        ticket,
        followup: ids.followup ?? null,
        attachment: ids.attachment ?? null,
        ...by,
        changes,
        data,
        ...(privateFields ? { private_fields: privateFields } : {}),
      },
    });

  switch (image.type) {
    case 'ticket': {
      if (eventName === 'INSERT') {
        const item = newImage!;
        add('ticket.created', wire(strip<Ticket>(item).created), ticketData(item, ctx), {});
        const opening = openingOf(item);
        if (opening) add('followup.created', wire(opening.date), followupData(opening, ctx), { followup: opening.id });
      } else if (eventName === 'MODIFY') {
        const after = ticketData(newImage!, ctx);
        const changes = fieldChanges(ticketData(oldImage!, ctx), after);
        if (!Object.keys(changes).length) break;
        const created = wire(strip<Ticket>(newImage!).modified);
        add('ticket.updated', created, after, {}, changes);
        if (changes.status) add('ticket.status_changed', created, after, {}, { status: changes.status });
      } else {
        add('ticket.deleted', iso(stream.at), ticketData(oldImage!, ctx), {});
      }
      break;
    }
    case 'followup': {
      if (eventName === 'INSERT') {
        if (newImage![WRITTEN_OUT]) break; // announced with its ticket
        const f = strip<Followup>(newImage!);
        add('followup.created', wire(f.date), followupData(f, ctx), { followup: f.id });
      } else if (eventName === 'MODIFY') {
        const f = strip<Followup>(newImage!);
        const after = followupData(f, ctx);
        const changes = fieldChanges(followupData(strip<Followup>(oldImage!), ctx), after);
        if (Object.keys(changes).length) add('followup.updated', iso(stream.at), after, { followup: f.id }, changes);
      } else {
        const f = strip<Followup>(oldImage!);
        add('followup.deleted', iso(stream.at), followupData(f, ctx), { followup: f.id });
      }
      break;
    }
    case 'attachment': {
      // An attachment record is never edited in place: its MODIFYs are re-keying.
      if (eventName === 'MODIFY') break;
      const a = strip<Attachment>((eventName === 'INSERT' ? newImage : oldImage)!);
      add(
        eventName === 'INSERT' ? 'attachment.created' : 'attachment.deleted',
        iso(stream.at),
        attachmentData(a, ctx),
        { followup: a.followup, attachment: a.id },
      );
      break;
    }
    default:
      break;
  }
  return out;
}
