/**
 * Least privilege on the table: what a DynamoDB call needs from IAM, and what a function is granted.
 *
 * Each route declares the grants of its function (routes.ts `table`): DynamoDB actions on the
 * items whose partition keys match given patterns (`dynamodb:LeadingKeys`, the keys spelled in
 * shared/store/keys.ts), and Query on named indexes. The CDK stack turns them into the function's
 * policy (api-stack.ts), and the local runtime refuses any call they do not allow, as IAM would
 * (infra/local/table-access.ts), so a test that reaches a call a route did not declare fails.
 */

import { COUNT_KEY_PATTERNS, INDEXES, PARTITIONS, type IndexName } from '../store/keys';

/** The IAM actions the functions use (a transaction needs the action of each of its items). */
export type TableAction =
  | 'GetItem'
  | 'BatchGetItem'
  | 'Query'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'ConditionCheckItem'
  | 'BatchWriteItem';
export type { IndexName };

/**
 * `actions` on the items whose partition key matches one of `keys` (IAM `StringLike` patterns:
 * `TICKET#*`, `COUNTER`), or Query on `index`. Index queries are granted by index and action only:
 * IAM documents `dynamodb:LeadingKeys` as the table's partition key. `listings`: actions on the listings table
 * (store/schema.ts LISTINGS_SCHEMA), whose every item is a ticket's listing item; its Query, on its indexes.
 */
export type TableGrant =
  | { actions: readonly TableAction[]; keys: readonly string[] }
  | { index: IndexName }
  | { listings: readonly TableAction[] };

/** One permission a call needs: an action on items of one partition, or a Query of an index. */
export interface TableRequest {
  action: TableAction;
  /** The partition key value (of the table, or of the index for an index Query). */
  partition: string;
  index?: string;
  /** A call on the listings table (else the table). */
  listings?: true;
}

type Attributes = Record<string, unknown>;
interface KeyedAction {
  Key?: Attributes;
  Item?: Attributes;
}

const ACTION_OF: Record<string, TableAction> = {
  Get: 'GetItem',
  BatchGet: 'BatchGetItem',
  Query: 'Query',
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
};

const partitionOf = (action: KeyedAction): string => String((action.Key ?? action.Item ?? {}).PK);

/**
 * The permissions a call needs, from its operation (`GetItem`, `Query` ...) and its input (the
 * document client's, with native values); a call on `listingsTable` (the listings table's name) is on it. Throws for an
 * operation no function is meant to call.
 */
export function tableRequests(operation: string, input: Attributes, listingsTable?: string): TableRequest[] {
  const requestItems = input.RequestItems as Attributes | undefined;
  const named = input.TableName ?? (requestItems && Object.keys(requestItems)[0]);
  if (listingsTable !== undefined && named === listingsTable)
    return requestsOnTable(operation, input).map((request) => ({ ...request, listings: true }));
  return requestsOnTable(operation, input);
}

function requestsOnTable(operation: string, input: Attributes): TableRequest[] {
  switch (operation) {
    case 'GetItem':
    case 'PutItem':
    case 'UpdateItem':
    case 'DeleteItem':
      return [{ action: operation, partition: partitionOf(input) }];
    case 'Query': {
      const values = (input.ExpressionAttributeValues ?? {}) as Attributes;
      const index = input.IndexName as string | undefined;
      return [{ action: 'Query', partition: String(values[':pk']), ...(index ? { index } : {}) }];
    }
    case 'BatchGetItem':
      return Object.values(input.RequestItems as Record<string, { Keys: Attributes[] }>).flatMap(({ Keys }) =>
        Keys.map((Key) => ({ action: 'BatchGetItem' as const, partition: partitionOf({ Key }) })),
      );
    case 'BatchWriteItem':
      return Object.values(
        input.RequestItems as Record<
          string,
          { PutRequest?: { Item: Attributes }; DeleteRequest?: { Key: Attributes } }[]
        >,
      ).flatMap((requests) =>
        requests.map((r) => ({
          action: 'BatchWriteItem' as const,
          partition: partitionOf({ Item: r.PutRequest?.Item, Key: r.DeleteRequest?.Key }),
        })),
      );
    case 'TransactWriteItems':
      return (input.TransactItems as Record<string, KeyedAction>[]).map((item) => {
        const [kind, action] = Object.entries(item)[0]!;
        return { action: ACTION_OF[kind]!, partition: partitionOf(action) };
      });
    default:
      throw new Error(`${operation} is not an operation the functions call`);
  }
}

const compiled = new Map<string, RegExp>();

/** IAM's `StringLike`: `*` matches any characters (newlines too, as IAM's does), `?` one. */
function matches(pattern: string, value: string): boolean {
  let re = compiled.get(pattern);
  if (!re) {
    const source = pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.');
    re = new RegExp(`^${source}$`, 's');
    compiled.set(pattern, re);
  }
  return re.test(value);
}

/** Whether `grants` allow `request`. */
export function allows(grants: readonly TableGrant[], request: TableRequest): boolean {
  return grants.some((grant) => {
    if ('listings' in grant) return request.listings === true && grant.listings.includes(request.action);
    if (request.listings) return false;
    return 'index' in grant
      ? request.action === 'Query' && request.index === grant.index
      : request.index === undefined &&
          grant.actions.includes(request.action) &&
          grant.keys.some((k) => matches(k, request.partition));
  });
}

/** `actions` on the partitions matching `keys`. */
export const on = (actions: readonly TableAction[], ...keys: string[]): TableGrant => ({ actions, keys });
const P = PARTITIONS;
const READ: readonly TableAction[] = ['GetItem', 'BatchGetItem', 'Query'];
const WRITE: readonly TableAction[] = ['PutItem', 'UpdateItem', 'DeleteItem'];

/**
 * The grants the routes are made of. Every route authenticates (the user or token, and the failed
 * login counts); every POST may carry an Idempotency-Key: `grantsOf` adds both to each route's own.
 */
export const GRANTS = {
  // UpdateItem on a user's item: the rehash of a password verified against an older encoding (middleware/auth.ts).
  authenticate: [
    on(['GetItem'], P.user, P.token),
    on(['UpdateItem'], P.user),
    on(['GetItem', ...WRITE], P.loginAttempts),
  ],
  /**
   * With the `oidc` class: a bearer token's identity binding, and what a first sign-in does (the
   * users read for a verified address, the binding written, a user created: a new id and both user
   * items) or a groups claim changes (the user's staff flag saved). middleware/oidc.ts.
   */
  oidcSignIn: [
    on(['GetItem', 'PutItem'], P.identity),
    on(['Query', 'PutItem'], P.users),
    on(['PutItem'], P.user),
    on(['UpdateItem'], P.counters),
  ],
  idempotencyKeys: [on(['GetItem', ...WRITE], P.idempotency)],
  /** Per-queue permissions (middleware/queue-access.ts): every staff route may read the queues. */
  queueScope: [on(['Query'], P.queues)],
  /**
   * What a limited staff member may see of a list that is not of tickets: the listing entries of their
   * queues and of their tickets (the listings table's indexes), or one ticket item by id.
   */
  visibleTickets: [{ listings: ['Query'] }, on(['GetItem'], P.ticket)],
  /** Custom field definitions, which decide a ticket's `custom_*` keys and its ETag. */
  customFieldDefinitions: [on(['Query'], P.customFields)],
  /** A new id: the counter's `ADD`. */
  newIds: [on(['UpdateItem'], P.counters)],
  readTickets: [on(READ, P.ticket)],
  /** Ticket collections: tickets, followups, attachment records, merge pointers. */
  writeTickets: [on([...READ, ...WRITE, 'ConditionCheckItem'], P.ticket)],
  /** Where a followup or attachment lives (ref items), by id. */
  readRefs: [on(['GetItem', 'BatchGetItem'], P.followupRef, P.attachmentRef)],
  /** BatchWriteItem: the refs of creates made at once in one process, together (store/tickets.ts `putOpeningRef`). */
  writeRefs: [
    on(['GetItem', 'BatchGetItem', 'PutItem', 'BatchWriteItem', 'DeleteItem'], P.followupRef, P.attachmentRef),
  ],
  userSummaries: [on(['BatchGetItem'], P.users)],
  /** What a ticket names: its queue, its assignee (user summaries), its merge target. */
  ticketReferences: [on(['BatchGetItem'], P.queues, P.users, P.ticket)],
  /** A reservation in the queue a write puts a ticket into (store/queues.ts `reserveInQueue`; read when refused). */
  queueReservations: [on(['UpdateItem', 'GetItem'], P.queues)],
  /** The record of files that may have no attachment record yet (store/file-cleanups.ts). */
  fileCleanups: [on(WRITE, P.fileCleanups)],
  /** A webhook event written with the change it announces. */
  outbox: [on(['PutItem'], P.outbox)],
  countsTotals: [on(['Query'], P.counts)],
  /**
   * Agent views' count items (store/ticket-counts.ts readViewCounts): a list's count, a limited staff member's terms,
   * and the size of a view read whole.
   */
  viewCounts: [on(['BatchGetItem'], P.countsViews)],
  listTickets: [{ index: INDEXES.gsi1.name }, { index: INDEXES.gsi2.name }],
  /**
   * Filtered lists: the page's ids from the listings table's indexes or gsi3 (submitter), their page
   * snapshots (`LISTED#<id>` / `PAGE`, BatchGetItem), and the collection of a ticket without one (Query).
   */
  filteredTickets: [
    { index: INDEXES.gsi3.name },
    { listings: ['Query'] },
    on(['BatchGetItem'], P.listed),
    on(['Query'], P.ticket),
  ],
  ticketsBySubmitter: [{ index: INDEXES.gsi3.name }],
  /** The staff-wide lists of followups and attachments (refs in gsi1). */
  listRefs: [{ index: INDEXES.gsi1.name }],
  readQueues: [on(['GetItem', 'Query'], P.queues)],
  writeQueues: [on(['GetItem', 'Query', ...WRITE], P.queues)],
  readCustomFields: [on(['GetItem', 'Query'], P.customFields)],
  writeCustomFields: [on(['GetItem', 'Query', 'PutItem', 'DeleteItem'], P.customFields)],
  createUsers: [on(['PutItem'], P.user, P.users)],
  /** User summaries by id, and the list of them (GET /api/users/). */
  readUsers: [on(['GetItem', 'Query'], P.users)],
  /** A user changed (store/user-changes.ts): both items, the queues named, the tokens a deactivation revokes. */
  changeUsers: [
    on(['GetItem', 'PutItem'], P.user, P.users),
    on(['Query'], P.queues),
    on(['Query', 'DeleteItem'], P.tokens),
    on(['DeleteItem'], P.token),
  ],
  readTokens: [on(['GetItem', 'Query'], P.tokens)],
  writeTokens: [on(['GetItem', 'Query', 'PutItem', 'DeleteItem'], P.token, P.tokens)],
  readDeliveries: [on(['GetItem', 'Query'], P.deliveries)],
  redeliver: [on(['GetItem', 'UpdateItem'], P.deliveries)],
  readSubscriptions: [on(['GetItem', 'Query'], P.subscriptions)],
  writeSubscriptions: [on(['GetItem', 'Query', ...WRITE], P.subscriptions)],
  /** A ticket's CC list (store/ticket-ccs.ts): its ticket is read first; a user entry's user is checked. */
  readTicketCcs: [on(['Query'], P.ticketCc), on(['GetItem', 'Query'], P.ticket)],
  writeTicketCcs: [
    on(['Query', 'PutItem', 'DeleteItem'], P.ticketCc),
    on(['GetItem', 'Query'], P.ticket),
    on(['UpdateItem'], P.counters),
    on(['BatchGetItem'], P.users),
  ],
  /** The suppression list (store/suppressions.ts). */
  readSuppressions: [on(['Query', 'BatchGetItem'], P.suppressions)],
  writeSuppressions: [on(['Query', 'BatchGetItem', 'DeleteItem'], P.suppressions)],
  /** Mail template overrides (store/template-overrides.ts), and the queue an override names. */
  readTemplateOverrides: [on(['Query'], P.templateOverrides)],
  /** One kind's template as a queue's mails use it: the overrides, and that the queue exists. */
  readQueueTemplate: [on(['Query'], P.templateOverrides), on(['GetItem'], P.queues)],
  writeTemplateOverrides: [on(['Query', 'PutItem', 'DeleteItem'], P.templateOverrides), on(['GetItem'], P.queues)],
  /** Mail in's kept messages (store/inbound-mail.ts `listProblems`). */
  readMailProblems: [on(['Query'], P.mailProblems)],
  /**
   * A delete's record of who deleted (store/actor.ts deletionRecord): the ticket, followup and attachment deletes; a
   * lone ticket's, taken back when its delete fails.
   */
  recordDeletions: [on(['PutItem', 'DeleteItem'], P.deletions)],
  /**
   * Releasing a problem (mail-in/problems.ts): an unverified reply's problem, its message's record, then its followup;
   * a held or failed one's mark (the release function it invokes does the rest, with MAIL_IN_GRANTS).
   */
  releaseMailProblems: [on(['GetItem', 'UpdateItem', 'DeleteItem'], P.mailProblems), on(['GetItem'], P.inboundMail)],
  /** A ticket's mail log (store/mail-log.ts). */
  readMailLog: [on(['Query'], P.mail)],
  /** The change feed: read by its route only (the stream consumer writes it: infra/stream-consumer.ts). */
  readEvents: [on(['Query'], P.events), on(['GetItem', 'PutItem'], P.feedCursorKey)],
  /** Ignored senders (store/ignored-senders.ts); a new one's queues are checked. */
  readIgnoredSenders: [on(['GetItem', 'Query'], P.ignoredSenders)],
  writeIgnoredSenders: [
    on(['GetItem', 'Query', 'PutItem', 'DeleteItem'], P.ignoredSenders),
    on(['UpdateItem'], P.counters),
    on(['Query'], P.queues),
  ],
  /** Escalation exclusions (store/escalation.ts); a new one's queues are checked. */
  readExclusions: [on(['GetItem', 'Query'], P.exclusions)],
  /** The time spent report's day cells (store/time-spent.ts). */
  readTimeSpent: [on(['Query'], P.timeSpentCells)],
  writeExclusions: [
    on(['GetItem', 'Query', 'PutItem', 'DeleteItem'], P.exclusions),
    on(['UpdateItem'], P.counters),
    on(['Query'], P.queues),
  ],
} satisfies Record<string, readonly TableGrant[]>;

/**
 * The table stream consumer's grants (CountTickets on AWS: infra/stream-consumer.ts; the local
 * runtime's stream poller is held to the same): the counts, counted states, ticket collections
 * (repairs), refs and file cleanup records; Query of gsi1 (the backfill reads every collection in id
 * order); page snapshots, written in batches (store/page-snapshots.ts), and the earlier versions' listing records
 * the backfill removes; listing items in the listings table (consumer/listings.ts); the change feed,
 * written in batches (and, for a late event, its own position and its late-event mark read first,
 * the mark written after it); the
 * custom field definitions (an event's `custom_<name>` keys).
 */
export const STREAM_CONSUMER_GRANTS: readonly TableGrant[] = [
  on(['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'], ...COUNT_KEY_PATTERNS),
  { index: INDEXES.gsi1.name },
  on(['BatchGetItem', 'BatchWriteItem'], P.events, P.lateEvents),
  // Who deleted what a REMOVE record names (store/actor.ts deletionRecord).
  on(['BatchGetItem'], P.deletions),
  on(['BatchWriteItem'], P.listed),
  // Listing items (consumer/listings.ts): the consumer's batches, the backfill's conditional puts and its check.
  { listings: ['BatchWriteItem', 'PutItem', 'GetItem'] },
  on(['Query'], P.customFields),
  // Time spent's summaries and cells (consumer/time-spent.ts).
  on(['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'], P.timeSpentTickets, P.timeSpentCells),
];

/**
 * The escalation run's grants (maintenance/escalate, infra/escalation.ts): the queues and the
 * exclusions read; the open and reopened tickets from gsi2; each escalation's ticket update,
 * followup, ref, new id and day record.
 */
export const ESCALATION_GRANTS: readonly TableGrant[] = [
  on(['Query'], P.queues, P.exclusions),
  { index: INDEXES.gsi2.name },
  on(['UpdateItem'], P.ticket, P.counters),
  on(['PutItem'], P.ticket, P.followupRef, P.escalations),
];

/**
 * The webhook dispatcher's grants (webhooks/dispatch, infra/webhooks.ts; the local runtime's
 * dispatcher is held to the same): the event's ticket, queue and custom field definitions (the
 * payload), the outbox (stranded events), the subscriptions listening, and the deliveries it makes.
 */
export const WEBHOOK_DISPATCH_GRANTS: readonly TableGrant[] = [
  on(['GetItem', 'Query'], P.ticket, P.queues, P.customFields, P.outbox, P.deliveries, P.subscriptions),
  on(['PutItem', 'DeleteItem'], P.outbox, P.deliveries),
];

/**
 * The webhook delivery function's grants (webhooks/deliver, likewise): its deliveries; a
 * subscription's secrets and health, and the log entry when it disables one.
 */
export const WEBHOOK_DELIVER_GRANTS: readonly TableGrant[] = [
  on(['GetItem', 'UpdateItem', 'PutItem'], P.deliveries),
  on(['GetItem', 'UpdateItem'], P.subscriptions),
];

/**
 * The mail ingest's grants (mail-in/ingest on AWS, infra/mail-in.ts; the local SMTP server's ingest
 * is held to the same): its own records, problems and sender counts; queues, users and custom
 * fields (routing and the new ticket's fields); ticket collections, refs, ids, file cleanups and the
 * outbox (the writes of a ticket or followup, as the API's); the sent Message-IDs (threading), the
 * ticket CC lists and the suppression list (bounces); the ignored senders.
 */
export const MAIL_IN_GRANTS: readonly TableGrant[] = [
  on(['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'], P.inboundMail, P.mailProblems),
  on(['Query'], P.queues, P.users, P.customFields, P.ignoredSenders),
  ...GRANTS.writeTickets,
  ...GRANTS.queueReservations,
  ...GRANTS.writeRefs,
  ...GRANTS.newIds,
  ...GRANTS.fileCleanups,
  ...GRANTS.outbox,
  on(['BatchGetItem'], P.messageIds),
  on(['Query', 'PutItem'], P.ticketCc),
  on(['BatchGetItem'], P.users),
  on(['PutItem'], P.suppressions),
];

/**
 * The mail consumer's grants (mail/queue on AWS, infra/mail.ts; the local runtime's is held to the
 * same): a followup's ticket, the settings check of a PUT or PATCH (the ticket's followups), the
 * queue, the ticket's CC list and the users a change names, and the mail log it records queued mails in;
 * a followup from mail, its inbound record (its author, who is not mailed their own message).
 */
export const MAIL_QUEUE_GRANTS: readonly TableGrant[] = [
  on(['Query'], P.ticket, P.ticketCc),
  on(['GetItem'], P.inboundMail),
  // A queue, read at most once a minute (store/queues.ts `queueForMail`).
  on(['GetItem'], P.queues),
  on(['BatchGetItem'], P.users),
  on(['GetItem', 'PutItem'], P.mail),
];

/**
 * The table stream's one reader's grants (CountTickets and its consumers' retry handler:
 * infra/stream-consumer.ts): the union of what its consumers need, each of which the local runtime
 * holds to its own grants alone (infra/local/table-stream.ts). The trade: docs/security.md.
 */
export function streamReaderGrants(options: { mail: boolean }): TableGrant[] {
  return [...STREAM_CONSUMER_GRANTS, ...WEBHOOK_DISPATCH_GRANTS, ...(options.mail ? MAIL_QUEUE_GRANTS : [])];
}

/**
 * The mail sender's grants (mail/send): the mail log (claim, outcome, the thread's earlier mails),
 * the Message-IDs it records, what a mail is rendered from (the ticket, its queue, its assignee, the
 * template overrides, whether a CC is staff), and the suppression list.
 */
export const MAIL_SEND_GRANTS: readonly TableGrant[] = [
  on(['Query', 'UpdateItem'], P.mail),
  // A mail that failed for good is listed for operators (store/mail-log.ts `recordFailedAttempt`).
  on(['PutItem'], P.messageIds, P.failedMail),
  on(['Query'], P.ticket, P.templateOverrides),
  // A queue, read at most once a minute (store/queues.ts `queueForMail`).
  on(['GetItem'], P.queues),
  on(['BatchGetItem'], P.users),
  // Is a CC staff? The users by address, read whole at most once a minute (store/users.ts `usersWithEmail`).
  on(['Query'], P.users),
  // The suppression list, checked before every mail (store/suppressions.ts `suppressedAmong`).
  on(['BatchGetItem'], P.suppressions),
];

/**
 * The SES event recorder's grants (mail/record-event, infra/mail.ts; the local stand-in is held to
 * the same): the Message-ID's item (which mail), that mail's log entry, and the suppression list.
 */
export const MAIL_EVENT_GRANTS: readonly TableGrant[] = [
  on(['GetItem'], P.messageIds),
  on(['UpdateItem'], P.mail),
  on(['PutItem'], P.suppressions),
];

/**
 * Everything a route's function may do to the table: what its middleware needs (with `oidc` among the
 * authentication classes, a first sign-in's writes too), and its own grants.
 */
export function grantsOf(
  route: { method: string; permission?: string; table: readonly TableGrant[] },
  options: { oidc?: boolean } = {},
): TableGrant[] {
  return [
    ...GRANTS.authenticate,
    ...(options.oidc ? GRANTS.oidcSignIn : []),
    ...(route.permission === 'staff' ? GRANTS.queueScope : []),
    ...(route.method === 'POST' ? GRANTS.idempotencyKeys : []),
    ...route.table,
  ];
}

/** Whether any grant lets the function write (routes with writes get the writers' reserved concurrency). */
export function writesTable(route: { table: readonly TableGrant[] }): boolean {
  return route.table.some((grant) => 'actions' in grant && grant.actions.some((a) => WRITE.includes(a)));
}
