/** Turning records into table items and back; the attributes listed here never leave the store. */
import type { Attachment, Followup, Ticket, TicketCollection } from '../domain/records';
import { KEY_ATTRIBUTES, keys, type ItemType } from './keys';
import { attachmentLocation, type AttachmentLocation } from '../domain/attachment-location';
import { WRITTEN_BY, writtenBy } from './actor';

type Item = Record<string, unknown>;

/**
 * Marks the item of an opening followup written out of its ticket item (followups.ts `writeOut`):
 * its INSERT in the stream is no new followup (consumer/events-of.ts). The next edit's put drops it.
 */
export const WRITTEN_OUT = 'written_out';

/**
 * On a ticket item: the `version` written by the last write that took a reservation in the ticket's
 * queue (a create, a move: store/queue-reservations.ts `reserveInQueue`). The stream consumer counts a record
 * whose version it is as an arrival in the queue (domain/queue-delete.ts).
 */
export const RESERVATION_VERSION = 'reservation_version';

/**
 * The user whose PUT or PATCH last wrote a ticket item (tickets.ts `updateTicket`): the mail
 * consumer reads it from the stream record's new image, so that the acting user is never mailed
 * about their own change (domain/mail-recipients.ts). A few bytes on the item the request writes
 * anyway: no write of its own. Not part of the record.
 */
export const UPDATED_BY = 'updated_by';

/**
 * Marks the item of an escalation's followup (store/escalation.ts): it mails as an escalation (from
 * the escalation record), not as a followup. Not part of the record.
 */
export const ESCALATION = 'escalation';

/**
 * Marks an item written by `import-django` (store/django-import.ts), with the run's id: the mail and
 * webhook consumers skip the record that wrote it (`writtenByImport`), while counts, listings and
 * search take it in as any other. A later write of the item by the API keeps or drops the mark, and
 * either way is no import's. Not part of the record.
 */
export const IMPORTED = 'imported';

/** Whether a stream record is the import's own write (the mark is new in it): nobody is mailed, no webhook called. */
export function writtenByImport(change: { newImage?: Item; oldImage?: Item }): boolean {
  const mark = change.newImage?.[IMPORTED];
  return mark !== undefined && mark !== change.oldImage?.[IMPORTED];
}

/**
 * On a ticket item that a create wrote with nothing else of its collection (no attachment: store/tickets.ts
 * `createTicket`): its INSERT's image is then the whole collection, and the stream consumer makes the ticket's page
 * snapshot from it instead of reading the collection (consumer/page-snapshots.ts). Read on the INSERT only; later
 * writes leave it as it is. Not part of the record.
 */
export const CREATED_ALONE = 'created_alone';

// `collection_size` is no longer written; tickets stored before still carry it. `opening`: below.
const INTERNAL = new Set<string>([
  ...KEY_ATTRIBUTES,
  'type',
  'collection_size',
  'version',
  'opening',
  WRITTEN_OUT,
  RESERVATION_VERSION,
  UPDATED_BY,
  ESCALATION,
  IMPORTED,
  WRITTEN_BY,
  CREATED_ALONE,
]);

/**
 * A new ticket's `version`; every later write of the ticket item adds 1, and so does every edit or
 * delete in its collection (see shared/domain/etag.ts: an added followup or attachment shows in
 * the tag through the collection's size instead).
 */
export const FIRST_VERSION = 1;

/**
 * The record without the storage attributes: copied key by key rather than copied whole and then
 * deleted from, since a delete turns an object into a slow dictionary for everything after (the
 * views read and JSON.stringify every record of a list page).
 */
function strip<T>(item: Item): T {
  const record: Item = {};
  for (const key in item) if (!INTERNAL.has(key)) record[key] = item[key];
  return record as T;
}

/** Each record's attributes, every one named: a field added to a record and not here fails to compile. */
const TICKET_ATTRIBUTES = {
  id: 1,
  queue: 1,
  title: 1,
  description: 1,
  resolution: 1,
  resolution_private: 1,
  submitter_email: 1,
  assigned_to: 1,
  status: 1,
  on_hold: 1,
  priority: 1,
  due_date: 1,
  merged_to: 1,
  secret_key: 1,
  created: 1,
  modified: 1,
  last_escalation: 1,
  custom: 1,
} satisfies Record<keyof Ticket, 1>;
const FOLLOWUP_ATTRIBUTES = {
  id: 1,
  ticket: 1,
  user: 1,
  title: 1,
  comment: 1,
  public: 1,
  new_status: 1,
  time_spent: 1,
  date: 1,
  message_id: 1,
  changes: 1,
} satisfies Record<keyof Followup, 1>;
const ATTACHMENT_ATTRIBUTES = {
  id: 1,
  ticket: 1,
  followup: 1,
  filename: 1,
  mime_type: 1,
  size: 1,
  object_key: 1,
} satisfies Record<keyof Attachment, 1>;

/**
 * What a read of collections takes of their items (store/tickets.ts: a ticket whole, a list page): the records'
 * attributes and what collectionsFrom reads besides (a merged item's `source`), not the index keys and write marks,
 * which are a third of a list page's answer (each byte parsed). As a ProjectionExpression, every name aliased (many
 * are reserved words).
 */
export const COLLECTION_PROJECTION = /* @__PURE__ */ (() => {
  const names = [
    ...new Set([
      'PK',
      'SK',
      'type',
      'version',
      'opening',
      'source',
      ...Object.keys(TICKET_ATTRIBUTES),
      ...Object.keys(FOLLOWUP_ATTRIBUTES),
      ...Object.keys(ATTACHMENT_ATTRIBUTES),
    ]),
  ];
  return {
    ProjectionExpression: names.map((_, i) => `#c${i}`).join(','),
    ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#c${i}`, name])),
  };
})();

/** Index keys shared by every item of a ticket's collection that appears in list pages. */
function listKeys(ticket: number, status: number, sk: string) {
  return { ...keys.listAll(ticket, sk), ...keys.listByStatus(status, ticket, sk) };
}

/**
 * A new ticket's item, holding its opening followup (`opening`, the followup without its `ticket`)
 * until that followup is first edited, moved or deleted (followups.ts writes it out as an item of
 * its own then): a ticket and its opening followup are one item, so a create is one write and its
 * index entries are the ticket's alone (docs/data-model.md, "Write units"). `alone`: the create writes nothing else
 * into the collection (CREATED_ALONE).
 */
export function ticketItem(ticket: Ticket, opening?: Followup, { alone = false } = {}): Item {
  const k = keys.ticket(ticket.id);
  const submitter = ticket.submitter_email ? keys.bySubmitter(ticket.submitter_email, ticket.id) : {};
  const inline = opening ? (({ ticket: _, ...rest }) => rest)(opening) : undefined;
  return {
    ...k,
    ...listKeys(ticket.id, ticket.status, k.SK),
    ...submitter,
    type: 'ticket' satisfies ItemType,
    version: FIRST_VERSION,
    [RESERVATION_VERSION]: FIRST_VERSION,
    ...ticket,
    ...(inline ? { opening: inline } : {}),
    ...(alone ? { [CREATED_ALONE]: true } : {}),
    ...writtenBy(),
  };
}

/** The opening followup a ticket item still holds, if any. */
export function openingOf(ticketItem: Item): Followup | undefined {
  const opening = ticketItem.opening as Omit<Followup, 'ticket'> | undefined;
  return opening ? { ...opening, ticket: Number(ticketItem.id) } : undefined;
}

export function followupItem(f: Followup, ticketStatus: number): Item {
  const k = keys.followup(f.ticket, f.id);
  return { ...k, ...listKeys(f.ticket, ticketStatus, k.SK), type: 'followup' satisfies ItemType, ...f, ...writtenBy() };
}

export function attachmentItem(a: Attachment, ticketStatus: number): Item {
  const k = keys.attachment(a.ticket, a.id);
  return {
    ...k,
    ...listKeys(a.ticket, ticketStatus, k.SK),
    type: 'attachment' satisfies ItemType,
    ...a,
    ...writtenBy(),
  };
}

/** Where followup `f` lives (keys.ts `ref`). */
export function followupRefItem(f: Followup): Item {
  return { ...keys.ref('followup', f.id), ...keys.refList('followup', f.id), type: 'ref', id: f.id, ticket: f.ticket };
}

/** Where attachment `a` lives, and its file name (what the attachment list orders by). */
export function attachmentRefItem(a: Attachment): Item {
  return {
    ...keys.ref('attachment', a.id),
    ...keys.refList('attachment', a.id),
    type: 'ref',
    ...attachmentLocation(a),
  };
}

export function mergedItem(target: number, source: number): Item {
  return { ...keys.mergedFrom(target, source), type: 'merged' satisfies ItemType, source };
}

export interface ReadCollection extends TicketCollection {
  /**
   * The ticket item's `version` (see FIRST_VERSION), the condition of every write of a ticket that
   * was read first (0: an item stored before versions existed).
   */
  version: number;
  /** Keys of every item in the collection (for deletes and status re-keying). */
  itemKeys: { PK: string; SK: string; type: ItemType }[];
  /** The id of the opening followup when the ticket item still holds it (items.ts `ticketItem`). */
  inlineFollowup?: number;
}

/** Groups the items of one or more collections by ticket id. */
export function collectionsFrom(items: Item[]): Map<number, ReadCollection> {
  const byPartition = new Map<string, Item[]>();
  for (const item of items) {
    const pk = item.PK as string;
    let list = byPartition.get(pk);
    if (!list) byPartition.set(pk, (list = []));
    list.push(item);
  }
  const result = new Map<number, ReadCollection>();
  for (const group of byPartition.values()) {
    const ticketItem = group.find((i) => i.type === 'ticket');
    if (!ticketItem) continue;
    const ticket = strip<Ticket>(ticketItem);
    const opening = openingOf(ticketItem);
    const stored = group.filter((i) => i.type === 'followup').map((i) => strip<Followup>(i));
    result.set(ticket.id, {
      ticket,
      followups: opening ? [opening, ...stored].sort((a, b) => a.id - b.id) : stored,
      attachments: group.filter((i) => i.type === 'attachment').map((i) => strip<Attachment>(i)),
      mergedFrom: group.filter((i) => i.type === 'merged').map((i) => i.source as number),
      version: Number(ticketItem.version ?? 0),
      itemKeys: group.map((i) => ({ PK: i.PK as string, SK: i.SK as string, type: i.type as ItemType })),
      ...(opening ? { inlineFollowup: opening.id } : {}),
    });
  }
  return result;
}

export { strip };
export type { AttachmentLocation };
