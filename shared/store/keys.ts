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
/** Partition key prefix of failed-login items: the only items every function may write. */
export const LOGIN_PREFIX = 'LOGIN#';
/** Ids per block of an id index (one small item per block). */
export const INDEX_BLOCK_SIZE = 100;

/** The id indexes: which tickets, followups and attachments exist, and what lists need of them. */
export type IndexKind = 'ticket' | 'followup' | 'attachment';

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
  listAllPartition: 'TICKETS',
  /** gsi2: collections partitioned by their ticket's status. */
  listByStatus: (status: number, ticket: number, sk: string) => ({ GSI2PK: `TICKETS#STATUS#${status}`, GSI2SK: `${pad(ticket)}#${sk}` }),
  listByStatusPartition: (status: number) => `TICKETS#STATUS#${status}`,
  /** The first sort key of ticket `ticket`'s items in gsi1 and gsi2. */
  listFrom: (ticket: number) => `${pad(ticket)}#`,

  /** gsi3: ticket items by submitter e-mail, for user_tickets (sparse: only tickets with one). */
  bySubmitter: (email: string, ticket: number) => ({ GSI3PK: `SUBMITTER#${email}`, GSI3SK: pad(ticket) }),
  submitterPartition: (email: string) => `SUBMITTER#${email}`,

  /** An id index: one item per block of ids (see id-index.ts for what each kind keeps in it). */
  indexPartition: (kind: IndexKind) => `INDEX#${kind}`,
  indexBlock: (kind: IndexKind, block: number) => ({ PK: `INDEX#${kind}`, SK: `BLOCK#${pad(block)}` }),
  indexSlot: (id: number) => ({ block: Math.floor(id / INDEX_BLOCK_SIZE), attribute: `s${id % INDEX_BLOCK_SIZE}` }),
  blockNumber: (sk: string) => Number(sk.slice('BLOCK#'.length)),

  user: (username: string) => ({ PK: `USER#${username}`, SK: 'USER' }),
  /**
   * Failed logins of a username (known or not), read with its user item in one BatchGet
   * (login-attempts.ts); expires with `expires_at`. A partition of its own, so that functions that
   * may not write the table otherwise can be allowed to write these items only (api-stack.ts).
   */
  loginAttempts: (username: string) => ({ PK: `${LOGIN_PREFIX}${username}`, SK: 'LOGIN' }),
  /** User summaries share one partition, so one Query lists users. */
  usersPartition: 'USERS',
  userById: (id: number) => ({ PK: 'USERS', SK: `USER#${pad(id)}` }),
  /** Queues share one partition, so one Query lists them; the slug item makes slugs unique. */
  queuePartition: 'QUEUES',
  queue: (id: number) => ({ PK: 'QUEUES', SK: `QUEUE#${pad(id)}` }),
  queueSlug: (slug: string) => ({ PK: 'QUEUES', SK: `SLUG#${slug}` }),
  /** Custom field definitions share one partition, read whole (and cached) by every ticket handler. */
  customFieldPartition: 'CUSTOM_FIELDS',
  customField: (name: string) => ({ PK: 'CUSTOM_FIELDS', SK: `FIELD#${name}` }),
  /** An API token by the SHA-256 of its key (what Token authentication reads, one GetItem). */
  token: (keyHash: string) => ({ PK: `TOKEN#${keyHash}`, SK: 'TOKEN' }),
  /** Token summaries (never the key) share one partition, so one Query lists them. */
  tokensPartition: 'TOKENS',
  tokenById: (id: number) => ({ PK: 'TOKENS', SK: `TOKEN#${pad(id)}` }),
  /** One item holds every id counter (`ticket`, `followup`, `attachment`, `user`, `queue`, `token`). */
  counters: { PK: 'COUNTER', SK: 'COUNTER' },

  /** One POST's Idempotency-Key, scoped to its user and operation (expires after a day). */
  idempotencyKey: (scope: string) => ({ PK: `IDEMPOTENCY#${scope}`, SK: 'IDEMPOTENCY' }),

  /**
   * S3 objects that may have no record pointing at them (store/file-cleanups.ts), in one partition
   * ordered by when they are due, so one Query finds the due ones.
   */
  fileCleanupPartition: 'FILE_CLEANUPS',
  fileCleanup: (due: string, id: string) => ({ PK: 'FILE_CLEANUPS', SK: `DUE#${due}#${id}` }),
  /** Sorts after every cleanup due at or before `due` (an ISO time). */
  fileCleanupsDueBy: (due: string) => `DUE#${due}#~`,

  /** Webhook events written with the change that caused them, until dispatched (the outbox). */
  outboxPartition: 'OUTBOX',
  outboxEvent: (id: string) => ({ PK: 'OUTBOX', SK: `EVENT#${id}` }),
  /** One item per webhook delivery, in one partition read newest first by the delivery log. */
  deliveriesPartition: 'WEBHOOK_DELIVERIES',
  delivery: (id: string) => ({ PK: 'WEBHOOK_DELIVERIES', SK: `DELIVERY#${id}` }),
  deliveryFromSortKey: (sk: string) => sk.slice('DELIVERY#'.length),
} as const;

/** Every attachment object lives under this prefix (the functions may touch nothing else). */
export const ATTACHMENT_PREFIX = 'attachments/';

/** S3 object key of an attachment: never built from the client's file name. */
export function attachmentObjectKey(ticket: number, uuid: string): string {
  return `${ATTACHMENT_PREFIX}${ticket}/${uuid}`;
}
