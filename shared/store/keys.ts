/**
 * The only place that spells partition and sort keys of the single table. See docs/data-model.md.
 *
 * A ticket's item collection (PK `TICKET#<id>`) holds the ticket, its followups, their attachment
 * records and merge pointers, so one Query reads a ticket whole. Ticket, followup and attachment
 * items also carry GSI keys that lay every collection out in id order (gsi1) and by status (gsi2).
 */

/** Zero-padded ids sort as numbers in string keys. */
const pad = (id: number) => String(id).padStart(12, '0');

export const TICKET_PREFIX = 'TICKET#';
export const INDEX_PARTITION = 'TICKET_INDEX';
/** Ticket ids per block of the ticket index (one item of < 1 KB per block). */
export const INDEX_BLOCK_SIZE = 100;

export type ItemType = 'ticket' | 'followup' | 'attachment' | 'merged';

export const keys = {
  ticketPartition: (ticket: number) => `${TICKET_PREFIX}${ticket}`,
  ticket: (ticket: number) => ({ PK: `${TICKET_PREFIX}${ticket}`, SK: 'TICKET' }),
  followup: (ticket: number, id: number) => ({ PK: `${TICKET_PREFIX}${ticket}`, SK: `FOLLOWUP#${pad(id)}` }),
  attachment: (ticket: number, id: number) => ({ PK: `${TICKET_PREFIX}${ticket}`, SK: `ATTACHMENT#${pad(id)}` }),
  /** In ticket `target`'s collection: ticket `source` is merged into it (deleted with it). */
  mergedFrom: (target: number, source: number) => ({ PK: `${TICKET_PREFIX}${target}`, SK: `MERGED#${pad(source)}` }),

  /** gsi1: all collections in ticket id order. */
  listAll: (ticket: number, sk: string) => ({ GSI1PK: 'TICKETS', GSI1SK: `${pad(ticket)}#${sk}` }),
  listAllRange: (first: number, last: number) => ({ pk: 'TICKETS', from: `${pad(first)}#`, to: `${pad(last)}#~` }),
  /** gsi2: collections partitioned by their ticket's status. */
  listByStatus: (status: number, ticket: number, sk: string) => ({ GSI2PK: `TICKETS#STATUS#${status}`, GSI2SK: `${pad(ticket)}#${sk}` }),
  listByStatusRange: (status: number, first: number, last: number) => ({
    pk: `TICKETS#STATUS#${status}`,
    from: `${pad(first)}#`,
    to: `${pad(last)}#~`,
  }),

  /** The ticket index: which ticket ids exist and their status, a block of ids per item. */
  indexBlock: (block: number) => ({ PK: INDEX_PARTITION, SK: `BLOCK#${pad(block)}` }),
  indexSlot: (ticket: number) => ({ block: Math.floor(ticket / INDEX_BLOCK_SIZE), attribute: `s${ticket % INDEX_BLOCK_SIZE}` }),

  user: (username: string) => ({ PK: `USER#${username}`, SK: 'USER' }),
  userById: (id: number) => ({ PK: `USERID#${id}`, SK: 'USERID' }),
  /** Queues share one partition, so one Query lists them; the slug item makes slugs unique. */
  queuePartition: 'QUEUES',
  queue: (id: number) => ({ PK: 'QUEUES', SK: `QUEUE#${pad(id)}` }),
  queueSlug: (slug: string) => ({ PK: 'QUEUES', SK: `SLUG#${slug}` }),
  /** Custom field definitions share one partition, read whole (and cached) by every ticket handler. */
  customFieldPartition: 'CUSTOM_FIELDS',
  customField: (name: string) => ({ PK: 'CUSTOM_FIELDS', SK: `FIELD#${name}` }),
  /** One item holds every id counter (`ticket`, `followup`, `attachment`, `user`, `queue`). */
  counters: { PK: 'COUNTER', SK: 'COUNTER' },
} as const;

/** S3 object key of an attachment: never built from the client's file name. */
export function attachmentObjectKey(ticket: number, uuid: string): string {
  return `attachments/${ticket}/${uuid}`;
}
