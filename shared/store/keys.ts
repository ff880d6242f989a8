/**
 * The only place that spells the single table's keys: the key and index attribute names, the index
 * names, the key conditions on them, and every partition and sort key value. See docs/data-model.md.
 *
 * A ticket's item collection (PK `TICKET#<id>`) holds the ticket, its followups, their attachment
 * records and merge pointers, so one Query reads a ticket whole. Ticket, followup and attachment
 * items also carry GSI keys that lay every collection out in id order (gsi1) and by status (gsi2).
 */

import {
  isWholeTableDimension,
  LISTED_DIMENSIONS,
  orderOf,
  type ListedDimension,
  type ListingOrder,
  type ListingSourceDimension,
} from '../domain/listing-dimensions';
import type { ViewCountItem } from '../domain/ticket-counts';

export { isWholeTableDimension, orderOf };

/** An id-order sort key: the zero-padded id alone. */
const ID_ONLY = /^\d{12}$/;

/** Zero-padded ids sort as numbers in string keys. */
const pad = (id: number) => String(id).padStart(12, '0');

/** The sort key of a ticket id in a listing partition in id order, or of a sort value and id. */
const listingSortKey = (ticket: number, sort?: string) => (sort === undefined ? pad(ticket) : `${sort}#${pad(ticket)}`);

/** The table's key attributes (schema.ts builds the table from these and INDEXES). */
export const KEY = { partition: 'PK', sort: 'SK' } as const;

/** The global secondary indexes: each one's name and key attributes. */
export const INDEXES = {
  /** Every item of every ticket collection, in ticket id order: list pages without a filter. */
  gsi1: { name: 'gsi1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK', projection: 'ALL' },
  /** The same items partitioned by their ticket's status: list pages filtered by `?status=`. */
  gsi2: { name: 'gsi2', partitionKey: 'GSI2PK', sortKey: 'GSI2SK', projection: 'ALL' },
  /** Ticket items by submitter e-mail (sparse): user_tickets. */
  gsi3: { name: 'gsi3', partitionKey: 'GSI3PK', sortKey: 'GSI3SK', projection: 'ALL' },
  /**
   * Retired: the listing records of the versions before the listings table (one item per ticket and dimension). Nothing
   * reads or writes it; it stays for one version, so that a deploy's functions of the version before read their lists
   * while the deploy rolls out, and the next version drops it (docs/data-model.md, "Upgrading a table").
   */
  gsi4: { name: 'gsi4', partitionKey: 'GSI4PK', sortKey: 'GSI4SK', projection: 'KEYS_ONLY' },
} as const;
export type IndexName = keyof typeof INDEXES;

/** An index's key attributes (INDEXES, LISTING_INDEXES). */
export interface IndexKeys {
  partitionKey: string;
  sortKey: string;
}

/**
 * The listings table (`<TABLE_NAME>-listings`, docs/data-model.md "Filtered lists"): one item per ticket
 * (`LISTED#<id>`), kept by the stream consumer, carrying its keys in every listing dimension, each dimension an index
 * of its own: a partition per filter value (queue, assignee, status × queue, status × assignee) in id order, and one
 * for every ticket by created, modified, priority and due date. Keys only, but the agent views', which project the
 * values the item carries for them (LISTING_CARRIED: every order's sort value and the other view's value), so that a
 * view is sorted in any order from one Query and a change of those values updates its entry rather than moving it.
 */
export interface ListingIndex extends IndexKeys {
  name: string;
  /** What an agent view's index projects: the item's sort values, then the other view's value (LISTING_CARRIED). */
  carries?: readonly [string, string];
}
/**
 * What a listing item carries for the agent views' indexes, which project it: the ticket's sort values in every order
 * (`<created>#<modified>#<priority>#<due or ~>`), its queue and its assignee (`none` for nobody).
 */
export const LISTING_CARRIED = { sorts: 'SV', queue: 'Q', assignee: 'A' } as const;
/**
 * A listing index. Its attribute names are short: DynamoDB Local ends a Query page at 1 MB of the table's items, not
 * of the index's entries, so an agent view read whole (up to 2,000 entries) fits one page only while the item stays
 * under 524 bytes (tests/unit/listings.test.ts).
 */
const listingIndex = (name: string, attribute: string, carries?: readonly [string, string]): ListingIndex => ({
  name,
  partitionKey: `${attribute}PK`,
  sortKey: `${attribute}SK`,
  ...(carries ? { carries } : {}),
});
export const LISTING_INDEXES: Record<ListedDimension, ListingIndex> = /* @__PURE__ */ (() => ({
  queue: listingIndex('queue', 'Q'),
  assigned: listingIndex('assigned', 'A'),
  created: listingIndex('created', 'C'),
  modified: listingIndex('modified', 'M'),
  'all@priority': listingIndex('all-priority', 'P'),
  'all@due': listingIndex('all-due', 'D'),
  'status-queue': listingIndex('status-queue', 'SQ', [LISTING_CARRIED.sorts, LISTING_CARRIED.assignee]),
  'status-assigned': listingIndex('status-assigned', 'SA', [LISTING_CARRIED.sorts, LISTING_CARRIED.queue]),
}))();

/**
 * A ticket's keys in one dimension's index (LISTING_INDEXES): `value` is the filter value of its partition (queue,
 * assignee, `none` for nobody, `<status>#…` for the agent views; none for the whole-table dimensions), `sort` what
 * the partition is sorted by before the id (a time, a priority, a due date or `~`; none in id order). Outside `keys`,
 * so that the functions that keep no listings leave LISTING_INDEXES out of their bundles.
 */
export function listingKeys(
  dimension: ListedDimension,
  ticket: number,
  value: string | undefined,
  sort: string | undefined,
): Record<string, string> {
  const { partitionKey, sortKey } = LISTING_INDEXES[dimension];
  return {
    [partitionKey]: value === undefined ? `LIST#${dimension}` : `LIST#${dimension}#${value}`,
    [sortKey]: listingSortKey(ticket, sort),
  };
}

/** Every key attribute an item may carry, the indexes' included: never part of a record read back. */
export const KEY_ATTRIBUTES: readonly string[] = [
  KEY.partition,
  KEY.sort,
  ...Object.values(INDEXES).flatMap((i) => [i.partitionKey, i.sortKey]),
];

/** Condition of a write: the item is there (an update, a delete, a check). */
export const ITEM_EXISTS = `attribute_exists(${KEY.partition})`;
/** Condition of a write: no item has this key yet (a create). */
export const ITEM_IS_NEW = `attribute_not_exists(${KEY.partition})`;

/** Key conditions of a Query on the table: `:pk` is the partition, `:sk` the sort key bound. */
export const IN_PARTITION = `${KEY.partition} = :pk`;
export const SORT_BELOW = `${IN_PARTITION} AND ${KEY.sort} < :sk`;
export const SORT_UP_TO = `${IN_PARTITION} AND ${KEY.sort} <= :sk`;
export const SORT_BEGINS_WITH = `${IN_PARTITION} AND begins_with(${KEY.sort}, :sk)`;

/**
 * Key condition of a Query on an index: its partition `:pk`, and when `from` is given, sort keys from `:from` on (or
 * below it).
 */
export function inIndex(index: IndexName | IndexKeys, from?: 'from' | 'below'): string {
  const { partitionKey, sortKey } = typeof index === 'string' ? INDEXES[index] : index;
  if (from === undefined) return `${partitionKey} = :pk`;
  return `${partitionKey} = :pk AND ${sortKey} ${from === 'from' ? '>=' : '<'} :from`;
}

/**
 * Key condition of a Query of an index's partition `:pk` (a listing index, gsi3 submitters):
 * sort keys above `:lo` (`gt`, or from it: `ge`), below `:hi`, or between `:lo` and `:hi` (both included).
 */
export function inSortRange(index: IndexKeys, bound: 'none' | 'gt' | 'ge' | 'lt' | 'between'): string {
  const { partitionKey: pk, sortKey: sk } = index;
  const ops = {
    none: '',
    gt: ` AND ${sk} > :lo`,
    ge: ` AND ${sk} >= :lo`,
    lt: ` AND ${sk} < :hi`,
    between: ` AND ${sk} BETWEEN :lo AND :hi`,
  };
  return `${pk} = :pk${ops[bound]}`;
}

/** The partitions of deletions' actors (keys.deletion). */
const DELETION_PREFIX = 'DELETED#';
export const TICKET_PREFIX = 'TICKET#';
/** The sort key of a ticket's own item in its collection (and the suffix of its list sort keys). */
export const TICKET_SORT_KEY = 'TICKET';
const LISTED_PREFIX = 'LISTED#';
/** The sort key of a ticket's page snapshot in its table partition `LISTED#<id>` (keys.pageSnapshot). */
export const PAGE_SNAPSHOT_SORT_KEY = 'PAGE';
/**
 * The dimensions a ticket is listed in (its listing item: store/listings.ts; domain/ticket-list-query.ts says which
 * list reads which).
 */
export const LISTING_DIMENSIONS = LISTED_DIMENSIONS;
export type ListingDimension = ListedDimension;
export type { ListingOrder };
/**
 * The form of a sort key of each order's partitions (a cursor's, checked before it is used): a stored date-time, a
 * priority digit, a due date or `~`, then the id.
 */
const SORT_KEY_FORMS: Record<ListingOrder, RegExp> = {
  id: /^\d{12}$/,
  created: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z#\d{12}$/,
  modified: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z#\d{12}$/,
  priority: /^\d#\d{12}$/,
  due: /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z|~)#\d{12}$/,
};
/**
 * Whether `sk` has the form of a sort key of `dimension`'s partitions (a cursor's, say). Outside `keys`, so that the
 * functions that do not list leave it out of their bundles.
 */
export function isListingSortKey(dimension: ListingSourceDimension | 'submitter', sk: string): boolean {
  return SORT_KEY_FORMS[dimension === 'submitter' ? 'id' : orderOf(dimension)].test(sk);
}
/** Partition key prefix of failed-login items: the only items every function may write. */
export const LOGIN_PREFIX = 'LOGIN#';
/** Partition key prefix of the inbound mail records (store/inbound-mail.ts). */
const MAIL_IN_PREFIX = 'MAIL_IN#';
/** Partition key prefix of a ticket's mail log (the change feed reads its bounces from the stream). */
export const MAIL_PREFIX = 'MAIL#';
const MAIL_SORT_PREFIX = 'MAIL#';
const MESSAGE_ID_PREFIX = 'MESSAGE_ID#';
export type ItemType = 'ticket' | 'followup' | 'attachment' | 'merged';
/** Partition key prefix of a ticket's escalation records (keys.escalation); their item type. */
export const ESCALATION_PREFIX = 'ESCALATED#';
export const ESCALATION_ITEM_TYPE = 'escalation';

/** The kinds of record found by their own id through a ref item. */
export type RefKind = 'followup' | 'attachment';

export const keys = {
  ticketPartition: (ticket: number) => `${TICKET_PREFIX}${ticket}`,
  ticket: (ticket: number) => ({ PK: `${TICKET_PREFIX}${ticket}`, SK: TICKET_SORT_KEY }),
  followup: (ticket: number, id: number) => ({ PK: `${TICKET_PREFIX}${ticket}`, SK: `FOLLOWUP#${pad(id)}` }),
  attachment: (ticket: number, id: number) => ({ PK: `${TICKET_PREFIX}${ticket}`, SK: `ATTACHMENT#${pad(id)}` }),
  /** In ticket `target`'s collection: ticket `source` is merged into it (deleted with it). */
  mergedFrom: (target: number, source: number) => ({ PK: `${TICKET_PREFIX}${target}`, SK: `MERGED#${pad(source)}` }),

  /** gsi1: all collections in ticket id order. */
  listAll: (ticket: number, sk: string) => ({ GSI1PK: 'TICKETS', GSI1SK: `${pad(ticket)}#${sk}` }),
  listAllPartition: 'TICKETS',
  /** gsi2: collections partitioned by their ticket's status. */
  listByStatus: (status: number, ticket: number, sk: string) => ({
    GSI2PK: `TICKETS#STATUS#${status}`,
    GSI2SK: `${pad(ticket)}#${sk}`,
  }),
  listByStatusPartition: (status: number) => `TICKETS#STATUS#${status}`,
  /** The first sort key of ticket `ticket`'s items in gsi1 and gsi2. */
  listFrom: (ticket: number) => `${pad(ticket)}#`,

  /**
   * gsi3: ticket items by submitter e-mail, for user_tickets and `?submitter_email=` (sparse: only
   * tickets with one). The address in lower case (compared without case, stored as given: issue 32);
   * a table written before is brought up to it by the backfill (store/backfill.ts).
   */
  bySubmitter: (email: string, ticket: number) => ({ GSI3PK: `SUBMITTER#${email.toLowerCase()}`, GSI3SK: pad(ticket) }),
  submitterPartition: (email: string) => `SUBMITTER#${email.toLowerCase()}`,

  /**
   * Where a followup or attachment lives (its ticket; an attachment's followup and file name too),
   * one small item per record written in the record's own transaction, so finding a record by id is
   * one consistent GetItem and no two writers share an item. In gsi1 under `FOLLOWUPS` /
   * `ATTACHMENTS`, in id order, for the staff-wide lists.
   */
  ref: (kind: RefKind, id: number) => ({ PK: `${kind.toUpperCase()}#${id}`, SK: 'REF' }),
  refList: (kind: RefKind, id: number) => ({ GSI1PK: `${kind.toUpperCase()}S`, GSI1SK: pad(id) }),
  refListPartition: (kind: RefKind) => `${kind.toUpperCase()}S`,

  /**
   * Ticket counts (consumer/ticket-counts.ts): written only by the stream consumer, never by a request. One
   * partition: the totals item first (`!TOTALS`, so a Query from the start begins with it) and one block item per
   * 1,000 ticket ids after it. `~TOTALS` is an earlier version's twin at the end (issue 33: no longer written or read,
   * deleted by the backfill).
   */
  countsPartition: 'COUNTS#ticket',
  countsTotals: { PK: 'COUNTS#ticket', SK: '!TOTALS' },
  countsTotalsRetired: { PK: 'COUNTS#ticket', SK: '~TOTALS' },
  countsBlockPrefix: 'BLOCK#',
  countsBlock: (block: number) => ({ PK: 'COUNTS#ticket', SK: `BLOCK#${pad(block)}` }),
  isCountsBlock: (sk: string) => sk.startsWith('BLOCK#'),
  /**
   * The agent views' counts (domain/ticket-counts.ts viewCountItems), written by the same consumer
   * transactions: one small item per view partition without its status (`sq#<queue>`,
   * `sa#<assignee>`, `sqa#<queue>#<assignee>`, each holding `s<status>`), so the totals stay
   * bounded by queues + assignees and a view's count is one GetItem.
   */
  countsViewPartition: 'COUNTS#view',
  countsView: ({ view, queue, assignee }: ViewCountItem) => ({
    PK: 'COUNTS#view',
    SK: [view, ...(queue === undefined ? [] : [queue]), ...(assignee === undefined ? [] : [assignee])].join('#'),
  }),
  blockNumber: (sk: string) => Number(sk.slice('BLOCK#'.length)),
  /**
   * What the counts hold of one ticket (its status and queue, and the ticket item version they
   * come from): the consumer's record of what it counted, so a duplicate or late stream record is
   * recognised and a deleted ticket is uncounted exactly once.
   */
  counted: (ticket: number) => ({ PK: `COUNTED#${ticket}`, SK: 'COUNTED' }),

  /** A ticket's listing item in the listings table (LISTING_INDEXES; consumer/listings.ts). */
  listed: (ticket: number) => ({ PK: `${LISTED_PREFIX}${ticket}` }),
  /**
   * A listing record of the versions before the listings table (one item per ticket and dimension, in the table,
   * indexed by gsi4), which the backfill deletes: what a table upgraded from them holds.
   */
  retiredListing: (ticket: number, dimension: string) => ({ PK: `${LISTED_PREFIX}${ticket}`, SK: dimension }),
  /** The ticket of a listing (or gsi3) sort key: its last 12 characters (the id alone in id order). */
  ticketOfSortKey: (sk: string) => Number(sk.slice(-12)),
  /**
   * What a Query reads above a position `key` from: the key itself, or for an id-order position (an id) a key above
   * it and below the next id's, so that a page after a cursor leaves the cursor's ticket out.
   */
  aboveKey: (key: string) => (ID_ONLY.test(key) ? `${key}#~` : key),
  listingPartition: (dimension: ListingDimension, value?: string) =>
    value === undefined ? `LIST#${dimension}` : `LIST#${dimension}#${value}`,
  /** A sort key within the range of one sort value (`<value>#<rest>`: a priority's tickets in `all@priority`). */
  prefixedSortKey: (value: string, rest: string) => `${value}#${rest}`,
  unprefixedSortKey: (value: string, sk: string) => sk.slice(value.length + 1),
  listingSortKey,
  /**
   * A ticket's page snapshot (consumer/page-snapshots.ts): its collection as a list page shows it, kept
   * by the stream consumer, so a filtered page reads its tickets in one BatchGetItem.
   */
  pageSnapshot: (ticket: number) => ({ PK: `${LISTED_PREFIX}${ticket}`, SK: PAGE_SNAPSHOT_SORT_KEY }),

  user: (username: string) => ({ PK: `USER#${username}`, SK: 'USER' }),
  /**
   * Failed logins of a username (known or not) from one source address (login-attempts.ts); expires
   * with `expires_at`. Under the `LOGIN#` prefix, so that functions that may not write the table
   * otherwise can be allowed to write these items only (api-stack.ts).
   */
  loginAttempts: (username: string, source: string) => ({ PK: `${LOGIN_PREFIX}${username}`, SK: `FROM#${source}` }),
  /** Failed logins from one source address across usernames (password spraying). */
  sourceLoginAttempts: (source: string) => ({ PK: `${LOGIN_PREFIX}${source}`, SK: 'SOURCE' }),
  /**
   * An OpenID Connect identity (issuer and subject) bound to a user (store/identities.ts): what a
   * bearer token's sign-in reads, one GetItem. The issuer is hashed to keep the key short.
   */
  identity: (issuerHash: string, subject: string) => ({ PK: `IDENTITY#${issuerHash}#${subject}`, SK: 'IDENTITY' }),
  /** User summaries share one partition, so one Query lists users. */
  usersPartition: 'USERS',
  userById: (id: number) => ({ PK: 'USERS', SK: `USER#${pad(id)}` }),
  /** Queues share one partition, so one Query lists them; the slug item makes slugs unique. */
  queuePartition: 'QUEUES',
  queue: (id: number) => ({ PK: 'QUEUES', SK: `QUEUE#${pad(id)}` }),
  /** The sort keys of queue items (not their slug items). */
  queueSortPrefix: 'QUEUE#',
  queueSlug: (slug: string) => ({ PK: 'QUEUES', SK: `SLUG#${slug}` }),
  /** Custom field definitions share one partition, read whole (and cached) by every ticket handler. */
  customFieldPartition: 'CUSTOM_FIELDS',
  customField: (name: string) => ({ PK: 'CUSTOM_FIELDS', SK: `FIELD#${name}` }),
  /** An API token by the SHA-256 of its key (what Token authentication reads, one GetItem). */
  token: (keyHash: string) => ({ PK: `TOKEN#${keyHash}`, SK: 'TOKEN' }),
  /** Token summaries (never the key) share one partition, so one Query lists them. */
  tokensPartition: 'TOKENS',
  tokenById: (id: number) => ({ PK: 'TOKENS', SK: `TOKEN#${pad(id)}` }),
  /** One item holds every id counter (`ticket`, `followup`, `attachment`, `user`, `queue`, `token`, `ticket_cc`). */
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
  /** Webhook subscriptions share one partition, in creation order: one Query lists them all. */
  subscriptionsPartition: 'WEBHOOK_SUBSCRIPTIONS',
  subscription: (id: string) => ({ PK: 'WEBHOOK_SUBSCRIPTIONS', SK: `SUBSCRIPTION#${id}` }),
  /** What the subscriptions' sort keys begin with (the partition also holds their count). */
  subscriptionPrefix: 'SUBSCRIPTION#',
  /** How many subscriptions there are, beside them: a create raises it before its write, a delete lowers it after. */
  subscriptionCount: { PK: 'WEBHOOK_SUBSCRIPTIONS', SK: 'COUNT' },

  /**
   * The change feed (store/change-feed.ts): one item per change event in one partition, in order of
   * `<time>#<stream sequence number:40>#<index>` (written only by the stream consumer).
   */
  eventsPartition: 'EVENTS',
  changeEvent: (position: string) => ({ PK: 'EVENTS', SK: position }),
  /** The key the feed's cursors are signed with (made by the feed's first read), in a partition of its own. */
  feedCursorKeyPartition: 'EVENTS_CURSOR_KEY',
  feedCursorKey: { PK: 'EVENTS_CURSOR_KEY', SK: 'KEY' },
  /**
   * A change event's position in the feed: its time (ISO, ms), the stream record's sequence number, the event's index
   * in that record.
   */
  eventPosition: (time: string, sequence: string, index: number) => `${time}#${sequence.padStart(40, '0')}#${index}`,
  /** What every position given out is checked against (a cursor names one). */
  eventPositionPattern: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z#\d{40}#\d$/,
  /**
   * The events written late (at the time of writing, not at their own place: change-feed.ts
   * `feedPosition`), by id: where a late retry or a replay of their records finds them.
   */
  lateEventsPartition: 'EVENTS_LATE',
  lateEvent: (id: string) => ({ PK: 'EVENTS_LATE', SK: id }),

  /**
   * Inbound mail (store/inbound-mail.ts): one record per received Message-ID (by its SHA-256, so any
   * length fits a key), written in the transaction that applies the message, so a message delivered
   * twice is applied once; what it became (ticket, followup, dropped, held) is on it.
   */
  inboundMessage: (idHash: string) => ({ PK: `${MAIL_IN_PREFIX}${idHash}`, SK: 'MESSAGE' }),
  /** Messages that failed or wait for review, in one partition in order of arrival (the operators' list). */
  mailProblemsPartition: 'MAIL_IN_PROBLEMS',
  mailProblem: (id: string) => ({ PK: 'MAIL_IN_PROBLEMS', SK: id }),
  /**
   * New tickets and replies from one sender within one hour (the rate limits; expires with the hour).
   * The sender folded (lower case, no `+tag`: store/inbound-mail.ts), so that `rl+1@x` counts as `rl@x`.
   */
  mailSenderHour: (sender: string, hour: string) => ({ PK: `${MAIL_IN_PREFIX}SENDER#${sender}`, SK: `HOUR#${hour}` }),
  /** Replies by mail to one ticket within one hour, from anyone. */
  mailTicketHour: (ticket: number, hour: string) => ({ PK: `${MAIL_IN_PREFIX}TICKET#${ticket}`, SK: `HOUR#${hour}` }),
  /**
   * A ticket's mail log (store/mail-log.ts): one item per mail, that is per (change, kind,
   * recipient), in a partition of the ticket's own (not its collection: reading a ticket never
   * reads its mail), sorted by `<commit time>#<hash>` (domain/mail.ts `mailId`), so one Query
   * lists the ticket's mail in order. The item's conditional put is what makes a change mailed
   * once to an address, whoever retries.
   */
  mailPartition: (ticket: number) => `${MAIL_PREFIX}${ticket}`,
  mail: (ticket: number, id: string) => ({ PK: `${MAIL_PREFIX}${ticket}`, SK: `${MAIL_SORT_PREFIX}${id}` }),
  mailIdOfSortKey: (sk: string) => sk.slice(MAIL_SORT_PREFIX.length),
  /**
   * The mails that ended `failed` (store/mail-log.ts `listFailedMail`), in one partition in commit
   * order: what an operator lists (CLI `failed-mail`) where AWS also dead-letters and alarms.
   */
  failedMailPartition: 'MAIL_FAILED',
  failedMail: (ticket: number, id: string) => ({ PK: 'MAIL_FAILED', SK: `${id}#${pad(ticket)}` }),
  /**
   * A sent mail's Message-ID (as the recipient sees it: on SES the one SES assigned) and the mail it
   * is (ticket, mail id): what mail in looks a reply's In-Reply-To and References up by, and what
   * SES's events name a mail by.
   */
  messageId: (messageId: string) => ({ PK: `${MESSAGE_ID_PREFIX}${messageId}`, SK: 'MESSAGE_ID' }),

  /**
   * A ticket's CC list (upstream's TicketCC, store/ticket-ccs.ts): a partition per ticket, one item
   * per address or user, so each is on the list once (the sort key is the uniqueness claim: an
   * address in lower case, issue 32; items written before keep the address as given, and are read
   * by the partition's Query all the same). `REMOVED#<address>`: an address staff removed, which
   * mail does not add again.
   */
  ticketCcPartition: (ticket: number) => `CC#${ticket}`,
  ticketCcAddress: (ticket: number, email: string) => ({ PK: `CC#${ticket}`, SK: `EMAIL#${email.toLowerCase()}` }),
  ticketCcAddressAsGiven: (ticket: number, email: string) => ({ PK: `CC#${ticket}`, SK: `EMAIL#${email}` }),
  ticketCcRemovedPrefix: 'REMOVED#',
  ticketCcRemoved: (ticket: number, email: string) => ({ PK: `CC#${ticket}`, SK: `REMOVED#${email.toLowerCase()}` }),
  ticketCcUser: (ticket: number, user: number) => ({ PK: `CC#${ticket}`, SK: `USER#${pad(user)}` }),
  /** The suppression list (store/suppressions.ts): one partition, one item per (lower-case) address. */
  suppressionPartition: 'SUPPRESSED',
  suppression: (address: string) => ({ PK: 'SUPPRESSED', SK: `ADDRESS#${address}` }),
  /**
   * Operators' mail template overrides (store/template-overrides.ts): one partition, read whole; queue 0 is every
   * queue.
   */
  templateOverridePartition: 'MAIL_TEMPLATES',
  templateOverride: (kind: string, queue: number | null) => ({
    PK: 'MAIL_TEMPLATES',
    SK: `TEMPLATE#${kind}#${pad(queue ?? 0)}`,
  }),
  /**
   * Escalation exclusions (upstream's EscalationExclusion, store/escalation.ts): one partition, read whole by a run.
   */
  exclusionPartition: 'ESCALATION_EXCLUSIONS',
  exclusion: (id: number) => ({ PK: 'ESCALATION_EXCLUSIONS', SK: `EXCLUSION#${pad(id)}` }),
  /**
   * A ticket's escalation on one day (store/escalation.ts): written by the run with its change,
   * conditional on being new, so a day never escalates a ticket twice; its stream INSERT is what
   * the mail consumer mails the escalation from. Expires after a while. A `--notify-only` run's
   * record is a notice of its own, so it neither blocks nor repeats the day's escalation.
   */
  ignoredSenderPartition: 'IGNORED_SENDERS',
  /**
   * An ignored sender (upstream's IgnoreEmail, store/ignored-senders.ts): one partition, read whole (and cached) by
   * mail in.
   */
  ignoredSender: (id: number) => ({ PK: 'IGNORED_SENDERS', SK: `SENDER#${pad(id)}` }),
  /**
   * Time spent (consumer/time-spent.ts, store/time-spent.ts), written only by the stream consumer. Per
   * ticket with time, one summary item: each day's followups with time and the queue that day is
   * counted under. Per view (`ticket`, `queue`, `user`) one partition of day cells, sorted by day, then
   * queue (so a staff user's queues can filter every view), then ticket or user: a range of days is one
   * Query of its cells, never a read of the followups.
   */
  timeSpentTicket: (ticket: number) => ({ PK: `TIMESPENT#TICKET#${ticket}`, SK: 'SUMMARY' }),
  timeSpentPartition: (by: string) => `TIMESPENT#BY#${by}`,
  timeSpentCell: (by: string, day: string, queue: number | null, value: number | null) => ({
    PK: `TIMESPENT#BY#${by}`,
    SK: [
      day,
      queue === null ? 'none' : pad(queue),
      ...(by === 'queue' ? [] : [value === null ? 'none' : pad(value)]),
    ].join('#'),
  }),
  /** The first and last sort key of a day's cells (a range Query: BETWEEN the first's and the last's). */
  timeSpentDayFirst: (day: string) => `${day}#`,
  timeSpentDayLast: (day: string) => `${day}#~`,
  /**
   * Who deleted a ticket, followup or attachment (store/actor.ts `deletionRecord`): a stream REMOVE record carries
   * only the item as it was, so the delete writes this beside it and the change feed reads it (expires in 2 days).
   */
  deletion: (kind: 'ticket' | 'followup' | 'attachment', id: number) => ({
    PK: `${DELETION_PREFIX}${kind.toUpperCase()}#${id}`,
    SK: 'BY',
  }),
  escalation: (ticket: number, day: string, notice: boolean) => ({
    PK: `${ESCALATION_PREFIX}${ticket}`,
    SK: `${notice ? 'NOTICE' : 'DAY'}#${day}`,
  }),
} as const;

/**
 * The partition keys of each kind of item as IAM `dynamodb:LeadingKeys` patterns (`StringLike`), for
 * the functions' grants (shared/api/table-access.ts): each names exactly the partitions above.
 */
export const PARTITIONS = {
  ticket: `${TICKET_PREFIX}*`,
  followupRef: 'FOLLOWUP#*',
  attachmentRef: 'ATTACHMENT#*',
  counts: keys.countsPartition,
  countsViews: keys.countsViewPartition,
  counted: 'COUNTED#*',
  listed: `${LISTED_PREFIX}*`,
  user: 'USER#*',
  identity: 'IDENTITY#*',
  loginAttempts: `${LOGIN_PREFIX}*`,
  users: keys.usersPartition,
  queues: keys.queuePartition,
  customFields: keys.customFieldPartition,
  token: 'TOKEN#*',
  tokens: keys.tokensPartition,
  counters: keys.counters.PK,
  idempotency: 'IDEMPOTENCY#*',
  fileCleanups: keys.fileCleanupPartition,
  outbox: keys.outboxPartition,
  deliveries: keys.deliveriesPartition,
  subscriptions: keys.subscriptionsPartition,
  events: keys.eventsPartition,
  feedCursorKey: keys.feedCursorKeyPartition,
  lateEvents: keys.lateEventsPartition,
  inboundMail: `${MAIL_IN_PREFIX}*`,
  mailProblems: keys.mailProblemsPartition,
  mail: `${MAIL_PREFIX}*`,
  failedMail: keys.failedMailPartition,
  messageIds: `${MESSAGE_ID_PREFIX}*`,
  ticketCc: 'CC#*',
  suppressions: keys.suppressionPartition,
  templateOverrides: keys.templateOverridePartition,
  exclusions: keys.exclusionPartition,
  escalations: `${ESCALATION_PREFIX}*`,
  ignoredSenders: keys.ignoredSenderPartition,
  timeSpentTickets: 'TIMESPENT#TICKET#*',
  timeSpentCells: 'TIMESPENT#BY#*',
  deletions: `${DELETION_PREFIX}*`,
} as const;

/**
 * The partition keys the ticket counts consumer touches: the counts and counted states, listing records, ticket
 * collections (repairs), refs and file cleanup records.
 */
export const COUNT_KEY_PATTERNS = [
  PARTITIONS.counts,
  PARTITIONS.countsViews,
  PARTITIONS.counted,
  PARTITIONS.listed,
  PARTITIONS.ticket,
  PARTITIONS.followupRef,
  PARTITIONS.attachmentRef,
  PARTITIONS.fileCleanups,
];

/** Every attachment object lives under this prefix (the functions may touch nothing else). */
export const ATTACHMENT_PREFIX = 'attachments/';

/**
 * Answers too large for a function to return (middleware/large-answers.ts) are parked under this prefix, each once, for
 * the presigned link of a 303; the bucket's lifecycle deletes them after a day (infra/data-stack.ts).
 */
export const LARGE_ANSWER_PREFIX = 'answers/';

/** S3 object key of an attachment: never built from the client's file name. */
export function attachmentObjectKey(ticket: number, uuid: string): string {
  return `${ATTACHMENT_PREFIX}${ticket}/${uuid}`;
}

/** Raw received messages live under this prefix of the mail bucket (SES's S3 action writes there too). */
export const INBOUND_MAIL_PREFIX = 'inbound/';
/** Where the IMAP poller keeps what it read (imapMessageKey). */
export const INBOUND_IMAP_PREFIX = `${INBOUND_MAIL_PREFIX}imap/`;

/**
 * Where a message read from an IMAP mailbox is kept: named by the SHA-256 of its bytes, so that the
 * same message read again (a run that stopped before marking it) is stored over itself, not twice.
 */
export function imapMessageKey(sha256: string): string {
  return `${INBOUND_IMAP_PREFIX}${sha256}`;
}
