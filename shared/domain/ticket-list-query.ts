/**
 * The ticket list's filters and ordering (`GET /api/tickets/`): which list a query asks for, and
 * which index serves it (docs/data-model.md, "Filtered lists"). Filters combine: the most selective
 * index partition serves a list, and what it does not serve is checked on the tickets it reads.
 */
import { parseDateTime, storedDateTime } from './datetime';
import { ValidationError } from './errors';
import { MAX_EMAIL_LENGTH, MESSAGES } from './fields';
import { PRIORITY_VALUES, STATUS_VALUES, type Ticket } from './records';
import { canAccessTicket, type QueueScope } from './queue-access';
import { parseStatusFilter } from './status-filter';
import { statusAttribute, viewCountId, type ViewCountItem } from './ticket-counts';
import {
  isAgentView,
  orderOf,
  storedDimensionOf,
  type AgentView,
  type ListingOrder,
  type ListingSourceDimension,
} from './listing-dimensions';

export {
  AGENT_VIEWS,
  isWholeTableDimension,
  LISTED_DIMENSIONS,
  LISTING_ORDERS,
  orderOf,
  sortedViewOf,
  storedDimensionOf,
  type AgentView,
  type ListedDimension,
  type ListingOrder,
  type ListingSourceDimension,
} from './listing-dimensions';

/** What a list may be ordered by (`-` before one: its reverse). */
export const ORDERING_FIELDS = ['id', 'created', 'modified', 'priority', 'due_date'] as const;
export type OrderingField = (typeof ORDERING_FIELDS)[number];
export const ORDERINGS = ORDERING_FIELDS.flatMap((f) => [f, `-${f}`] as const);
export type Ordering = OrderingField | `-${OrderingField}`;

/** The filters besides `status`, in the order the docs list them. */
export const FILTERS = [
  'queue',
  'assigned_to',
  'submitter_email',
  'priority',
  'updated_since',
  'created_since',
] as const;
export type Filter = (typeof FILTERS)[number];

/** What a list asks for, every filter optional; any of them combine. */
export interface TicketFilters {
  statuses?: Set<number>;
  queue?: string;
  /** A user id, or `none`: unassigned. */
  assignee?: string;
  priority?: string;
  email?: string;
  createdSince?: string;
  updatedSince?: string;
}

/**
 * Where a list's entries come from: gsi4 partitions of one dimension (one per status for the
 * status views: several statuses are merged in id order), or gsi3 for a submitter.
 */
export type ListingSource =
  | {
      dimension: ListingSourceDimension;
      values?: string[];
      since?: string;
      /**
       * An agent view read whole (in any order, id's included) for status × queue × assignee: only its entries whose
       * record carries one of these values of the dimension the view does not name (store/listings.ts carriedValues).
       */
      carrying?: string[];
      /**
       * More partitions merged with these, in the same order (a limited staff member's queues and their
       * own tickets: scopedPlan); a ticket listed in two is shown once.
       */
      also?: ListingPart[];
    }
  | { dimension: 'submitter'; email: string };

/** Partitions of a listing source besides its own (a limited staff member's list: scopedPlan). */
export interface ListingPart {
  dimension: ListingSourceDimension;
  values: string[];
  carrying?: string[];
}

/** What a list query asks for, and so which index reads it. */
export type TicketListQuery =
  /** gsi1, or gsi2 per status: the upstream list (id order: page numbers), or in reverse (`-id`). */
  | { kind: 'ids'; statuses?: Set<number>; ascending: boolean }
  /**
   * Listing records (gsi4) or gsi3: `source` holds exactly the tickets of the filters it serves, in
   * the order asked for; `residual` are the filters it does not serve, checked on each ticket read
   * (within a read budget per page: store/filtered-lists.ts). `filters` are all of them.
   */
  | {
      kind: 'listing';
      source: ListingSource;
      residual: TicketFilters;
      filters: TicketFilters;
      ascending: boolean;
      idFloor?: IdFloor;
      /** A limited staff member's (domain/queue-access.ts): what the list may show, and its count's terms. */
      scope?: QueueScope;
      count?: CountSource | null;
    };

/**
 * A bound on an id-ordered list's ids: every ticket it can show has an id above that of any ticket
 * created before `createdBefore` (idFloorOf), so the store reads only ids above the latest such
 * ticket's.
 */
export interface IdFloor {
  createdBefore: string;
}

/**
 * The longest span between a new ticket's `created` and its id, as two clocks may see them: a
 * ticket's id is reserved (one atomic counter, store/counters.ts) in the request that stamps its
 * `created`, just after the stamp (tickets/create; the mail-in ingest: SES, IMAP and the CLI's
 * release), or, for the benchmark's seed, just before stamps up to a millisecond per seeded ticket
 * in the past (20 s for 20,000). That request runs within Lambda's 15-minute maximum, whatever a function's own timeout
 * (15 s for the API, 2 and 3 minutes for SES and IMAP mail-in), so it bounds every function that creates tickets and
 * any timeout they are given later; the local runtime and the CLI reserve the id one DynamoDB call after
 * the stamp (about 8 s at worst with the SDK's retries). One more minute is for clocks: Lambda's
 * are kept by Amazon Time Sync (well within a millisecond), an operator's machine by NTP (well within
 * a second). So if a ticket created at or after S had a smaller id than a ticket created before
 * S − CREATION_SPAN_MS, its id would have been reserved first, and its `created` stamped at most
 * CREATION_SPAN_MS after the other's: a contradiction. Longer costs only reading (and checking)
 * the tickets created in that span before S.
 */
export const CREATION_SPAN_MS = 16 * 60_000;

/**
 * The id floor of a list (docs/data-model.md, "Filtered lists"): only an id-ordered list (`ordering`
 * id or -id: a queue, an assignee, a priority, a submitter, an agent view in id order, or every
 * priority merged) that asks for `created_since` S has one: no ticket it shows can have an id below
 * that of a ticket created before S − CREATION_SPAN_MS. Truncated to the millisecond, earlier: a
 * floor a little lower is only less tight.
 */
export function idFloorOf(createdSince: string | undefined, order: ListingOrder): IdFloor | undefined {
  if (createdSince === undefined || order !== 'id') return undefined;
  const since = Date.parse(`${createdSince.slice(0, 23)}Z`);
  return { createdBefore: storedDateTime(new Date(since - CREATION_SPAN_MS)) };
}

const INTEGER = /^\d{1,15}$/;
const WHOLE_NUMBER = 'Enter a whole number.';

const ORDER_OF_FIELD: Record<OrderingField, ListingOrder> = {
  id: 'id',
  created: 'created',
  modified: 'modified',
  priority: 'priority',
  due_date: 'due',
};

/**
 * The source that serves `filters` in `order`, the most selective first: the agent views
 * (status × queue × assignee, status × queue, status × assignee) in id order, or in another order sorted from their
 * id-order partitions read whole (`<view>@<order>`: a time order from the `since` of its own time), unless `views`
 * is false (such a view past its bound: store/filtered-lists.ts). Status × queue × assignee has no records of its own
 * (issue 33): a specific assignee's status × assignee partitions (an agent's tickets: few by nature), or for
 * `none` the queue's status × queue ones (the unassigned of one queue), read whole in any order and kept by the
 * value their records carry of the other dimension (`carrying`). Then, in id order, queue, assignee,
 * submitter, priority, else (only time filters, with or without status) every priority partition
 * merged; in any other order the whole-table partition of that order. What the source does not
 * serve is left as `residual`.
 */
function planListing(
  filters: TicketFilters,
  order: ListingOrder,
  views = true,
): { source: ListingSource; residual: TicketFilters } {
  const { statuses, queue, assignee, priority, email } = filters;
  const rest = (...served: (keyof TicketFilters)[]): TicketFilters =>
    Object.fromEntries(
      Object.entries(filters).filter(([k, v]) => v !== undefined && !served.includes(k as keyof TicketFilters)),
    );
  const perStatus = (value: string) => [...statuses!].sort((a, b) => a - b).map((s) => `${s}#${value}`);
  // A time order reads its partitions from its own `since` on: that filter is then served too.
  const sinceFilter: 'createdSince' | 'updatedSince' | undefined =
    order === 'created' ? 'createdSince' : order === 'modified' ? 'updatedSince' : undefined;
  const since = sinceFilter && filters[sinceFilter];
  const bounded = since ? { since } : {};
  const ordered = (view: AgentView | 'all'): ListingSourceDimension =>
    (order === 'id'
      ? view
      : view === 'all' && (order === 'created' || order === 'modified')
        ? order
        : `${view}@${order}`) as ListingSourceDimension;
  const agentView = (view: AgentView, value: string, carrying?: string) => ({
    source: {
      dimension: ordered(view),
      values: perStatus(value),
      ...(carrying === undefined ? {} : { carrying: [carrying] }),
      ...bounded,
    },
    residual: rest('statuses', 'queue', 'assignee', ...(since ? [sinceFilter] : [])),
  });
  if (views && statuses && queue !== undefined && assignee !== undefined)
    return assignee === 'none'
      ? agentView('status-queue', queue, assignee)
      : agentView('status-assigned', assignee, queue);
  if (views && statuses && queue !== undefined) return agentView('status-queue', queue);
  if (views && statuses && assignee !== undefined) return agentView('status-assigned', assignee);
  if (order !== 'id')
    return { source: { dimension: ordered('all'), ...bounded }, residual: rest(...(since ? [sinceFilter] : [])) };
  if (queue !== undefined) return { source: { dimension: 'queue', values: [queue] }, residual: rest('queue') };
  if (assignee !== undefined)
    return { source: { dimension: 'assigned', values: [assignee] }, residual: rest('assignee') };
  if (email !== undefined) return { source: { dimension: 'submitter', email }, residual: rest('email') };
  if (priority !== undefined)
    return { source: { dimension: 'priority', values: [priority] }, residual: rest('priority') };
  // Only time filters (and status): every ticket is in one priority partition, each in id order, so
  // all of them merged are the whole table in id order (keys only); the filters are checked on the
  // tickets read, within the read budget per page.
  return { source: { dimension: 'priority', values: PRIORITY_VALUES.map(String) }, residual: rest() };
}

/** The list `query` (the request's query parameters) asks for; a bad value or combination is a 400. */
export function parseTicketListQuery(query: Record<string, string | undefined>, scope?: QueueScope): TicketListQuery {
  const errors: Record<string, string[]> = {};
  const given = (name: string) => {
    const raw = query[name];
    return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
  };
  const integer = (name: Filter): number | undefined => {
    const raw = given(name);
    if (raw === undefined) return undefined;
    if (!INTEGER.test(raw)) errors[name] = [WHOLE_NUMBER];
    return Number(raw);
  };
  const time = (name: Filter): string | undefined => {
    const raw = given(name);
    if (raw === undefined) return undefined;
    const parsed = parseDateTime(raw);
    if (parsed === null) errors[name] = ['Enter a valid date/time.'];
    return parsed ?? undefined;
  };

  let statuses: Set<number> | undefined;
  try {
    statuses = parseStatusFilter(query.status);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    Object.assign(errors, error.body);
  }
  const queue = integer('queue');
  const rawAssignee = given('assigned_to');
  const assignee =
    rawAssignee === undefined
      ? undefined
      : rawAssignee.toLowerCase() === 'none'
        ? 'none'
        : INTEGER.test(rawAssignee)
          ? String(Number(rawAssignee))
          : undefined;
  if (rawAssignee !== undefined && assignee === undefined)
    errors.assigned_to = [`${WHOLE_NUMBER} Or "none": unassigned tickets.`];
  const priority = given('priority');
  if (priority !== undefined && !PRIORITY_VALUES.some((p) => String(p) === priority))
    errors.priority = [MESSAGES.choice(priority)];
  const email = given('submitter_email');
  // A stored e-mail has at most 254 characters (the field's limit): a longer one matches nothing, and would not fit a
  // key.
  if (email !== undefined && email.length > MAX_EMAIL_LENGTH)
    errors.submitter_email = [MESSAGES.maxLength(MAX_EMAIL_LENGTH)];
  const updatedSince = time('updated_since');
  const createdSince = time('created_since');
  const rawOrdering = given('ordering');
  const ordering = ORDERINGS.find((o) => o === rawOrdering);
  if (rawOrdering !== undefined && !ordering)
    errors.ordering = [`${MESSAGES.choice(rawOrdering)} Use one of: ${ORDERINGS.join(', ')}.`];
  if (Object.keys(errors).length) throw new ValidationError(errors);

  const filters: TicketFilters = Object.fromEntries(
    Object.entries({
      statuses,
      queue: queue === undefined ? undefined : String(queue),
      assignee,
      priority,
      email,
      createdSince,
      updatedSince,
    }).filter(([, v]) => v !== undefined),
  );
  const others = Object.keys(filters).filter((k) => k !== 'statuses');
  // Without a time filter, the default order is id's; with one (and nothing else to order by id), its time's.
  const order =
    ordering ??
    (others.length && others.every((k) => k.endsWith('Since')) ? (createdSince ? 'created' : 'modified') : 'id');
  const ascending = !order.startsWith('-');
  const key = ORDER_OF_FIELD[order.replace('-', '') as OrderingField];
  const idFloor = idFloorOf(createdSince, key);
  const floor = idFloor ? { idFloor } : {};
  if (scope) return { kind: 'listing', ...scopedPlan(filters, key, scope), filters, ascending, scope, ...floor };
  // Upstream's list: id order, by status or not: gsi1 / gsi2, page numbers.
  if (key === 'id' && !others.length) return { kind: 'ids', ...(statuses ? { statuses } : {}), ascending };
  return { kind: 'listing', ...planListing(filters, key), filters, ascending, ...floor };
}

/**
 * A limited staff member's list (docs/data-model.md, "Listings for a staff member limited to a set of
 * queues"): what they may see of `filters`. A queue of theirs, or their own tickets, is the list as
 * anyone's; a queue not theirs, their tickets in it; otherwise the union of one branch per queue of
 * theirs (the filters and that queue) and one of their own tickets (the filters and them as
 * assignee), each planned as any list, their partitions merged (in id order one per queue and one
 * for them; in another order the agent views, per status: every status when none is asked). The
 * count, exact where the filters are at most statuses and an assignee, sums the agent views' count
 * items: per queue, plus theirs, less theirs in those queues (counted twice).
 */
function scopedPlan(
  filters: TicketFilters,
  order: ListingOrder,
  scope: QueueScope,
): { source: ListingSource; residual: TicketFilters; count: CountSource | null } {
  const me = String(scope.user);
  const { queue, assignee } = filters;
  const plain = (f: TicketFilters) => {
    const plan = planListing(f, order);
    const query = { kind: 'listing', filters: f } as const;
    return { ...plan, count: countSourceOf({ ...query, ...plan, ascending: true }) ?? null };
  };
  if (queue !== undefined && scope.queues.has(Number(queue))) return plain(filters);
  if (assignee === me) return plain(filters);
  if (queue !== undefined) {
    if (assignee !== undefined) return { source: { dimension: 'queue', values: [] }, residual: {}, count: { sum: [] } };
    return plain({ ...filters, assignee: me });
  }
  const statuses = order === 'id' ? filters.statuses : (filters.statuses ?? new Set<number>(STATUS_VALUES));
  const branches = [
    ...[...scope.queues].sort((a, b) => a - b).map((q) => ({ ...filters, statuses, queue: String(q) })),
    ...(assignee === undefined ? [{ ...filters, statuses, assignee: me }] : []),
  ].map((f) => planListing(Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined)), order));
  // Branches of status × queue × assignee read the same partitions kept by another value (the store reads each once).
  const parts = branches.flatMap(({ source }): ListingPart[] =>
    source.dimension === 'submitter'
      ? []
      : [
          {
            dimension: source.dimension,
            values: source.values ?? [],
            ...(source.carrying ? { carrying: source.carrying } : {}),
          },
        ],
  );
  const first = parts[0] ?? { dimension: 'queue' as const, values: [] };
  const since = branches[0]?.source.dimension !== 'submitter' ? branches[0]?.source.since : undefined;
  const source: ListingSource = { ...first, ...(since ? { since } : {}), also: parts.slice(1) };
  // Every branch leaves the same filters to check: all but the statuses, queue, assignee (and time) it serves.
  const residual = branches[0]?.residual ?? {};
  const counted = Object.keys(filters).every((k) => k === 'statuses' || k === 'assignee');
  if (!counted) return { source, residual, count: null };
  const queues = [...scope.queues].map(String);
  const sum: CountTerm[] =
    assignee !== undefined
      ? queues.map((q) => ({ item: { view: 'sqa', queue: q, assignee }, sign: 1 }))
      : [
          ...queues.map((q): CountTerm => ({ item: { view: 'sq', queue: q }, sign: 1 })),
          { item: { view: 'sa', assignee: me }, sign: 1 },
          ...queues.map((q): CountTerm => ({ item: { view: 'sqa', queue: q, assignee: me }, sign: -1 })),
        ];
  return { source, residual, count: { sum, ...(filters.statuses ? { statuses: filters.statuses } : {}) } };
}

/** A listing query's list read another way. */
type ListingList = Extract<TicketListQuery, { kind: 'listing' }>;

/**
 * The list of a sorted agent view (`<view>@<order>`) past its bound, or not yet sortable (store/filtered-lists.ts):
 * the whole table in that order, the view's filters checked on the tickets read (within the read budget per page),
 * its count as the view's. Its cursors are the view's: a position in the same order.
 */
export function unsortedPlan(query: ListingList): ListingList {
  return {
    ...query,
    ...planListing(
      query.filters,
      orderOf(query.source.dimension === 'submitter' ? 'queue' : query.source.dimension),
      false,
    ),
  };
}

/**
 * Whether a ticket as read matches `filters`: the residual filters its source does not serve, or
 * all of them (the indexes follow the stream, so an entry can be a moment behind a change: such a
 * ticket is left out, and shows under its new entry).
 */
export function matchesFilters(filters: TicketFilters, ticket: Ticket): boolean {
  const { statuses, queue, assignee, priority, email, createdSince, updatedSince } = filters;
  if (statuses && !statuses.has(ticket.status)) return false;
  if (queue !== undefined && String(ticket.queue) !== queue) return false;
  if (assignee !== undefined && (ticket.assigned_to == null ? 'none' : String(ticket.assigned_to)) !== assignee)
    return false;
  if (priority !== undefined && String(ticket.priority) !== priority) return false;
  if (email !== undefined && ticket.submitter_email?.toLowerCase() !== email.toLowerCase()) return false;
  if (createdSince !== undefined && ticket.created < createdSince) return false;
  if (updatedSince !== undefined && ticket.modified < updatedSince) return false;
  return true;
}

/** Whether a ticket as read still matches every filter of the list it was listed in. */
export function stillMatches(query: TicketListQuery, ticket: Ticket): boolean {
  if (query.kind === 'ids') return !query.statuses || query.statuses.has(ticket.status);
  return matchesFilters(query.filters, ticket) && canAccessTicket(query.scope, ticket);
}

/**
 * Where a list's `count` is kept, from its filters alone (whatever index serves the list, in any
 * order): no filter, every ticket; statuses alone, queue alone, assignee alone or priority alone,
 * the totals' `s…`, `q…`, `a…`, `p…`; statuses with a queue and/or an assignee, or a queue with an
 * assignee, an agent view's count item (domain/ticket-counts.ts viewCountItems: its statuses, or
 * all of them). Undefined (a `null` count) for the rest: a submitter, a time filter, a priority
 * with anything else.
 */
export type CountSource =
  | { totals: 'all' | string[] }
  | { view: ViewCountItem; statuses?: Set<number> }
  | { sum: CountTerm[]; statuses?: Set<number> };
/** A view count item and the statuses of it that count the entries of some agent-view partitions (viewSizeTerms). */
export interface SizeTerm {
  item: ViewCountItem;
  statuses: Set<number>;
}

/**
 * The view count items that count the entries of a source's agent-view partitions (`<status>#<value>` of
 * `status-queue` or `status-assigned`, in any order; a limited staff member's others too): how many entries reading
 * the view whole reads, known before reading it (store/filtered-lists.ts). A partition named twice counts once.
 */
export function viewSizeTerms(source: ListingSource): SizeTerm[] {
  if (source.dimension === 'submitter') return [];
  const terms = new Map<string, SizeTerm>();
  for (const { dimension, values = [] } of [source, ...(source.also ?? [])]) {
    const view = storedDimensionOf(dimension);
    if (!isAgentView(view)) continue;
    for (const value of values) {
      const at = value.indexOf('#');
      const of = value.slice(at + 1);
      const item: ViewCountItem = view === 'status-queue' ? { view: 'sq', queue: of } : { view: 'sa', assignee: of };
      const id = viewCountId(item);
      if (!terms.has(id)) terms.set(id, { item, statuses: new Set() });
      terms.get(id)!.statuses.add(Number(value.slice(0, at)));
    }
  }
  return [...terms.values()];
}

/** One view count item added or taken away (a limited staff member's count: scopedPlan). */
export interface CountTerm {
  item: ViewCountItem;
  sign: 1 | -1;
}

export function countSourceOf(query: TicketListQuery): CountSource | undefined {
  if (query.kind === 'listing' && query.count !== undefined) return query.count ?? undefined;
  const { statuses, queue, assignee, priority, email, createdSince, updatedSince } =
    query.kind === 'ids' ? { statuses: query.statuses } : query.filters;
  if (email !== undefined || createdSince !== undefined || updatedSince !== undefined) return undefined;
  if (priority !== undefined)
    return statuses || queue !== undefined || assignee !== undefined ? undefined : { totals: [`p${priority}`] };
  const withStatuses = statuses ? { statuses } : {};
  if (queue !== undefined && assignee !== undefined) return { view: { view: 'sqa', queue, assignee }, ...withStatuses };
  if (statuses && queue !== undefined) return { view: { view: 'sq', queue }, statuses };
  if (statuses && assignee !== undefined) return { view: { view: 'sa', assignee }, statuses };
  if (queue !== undefined) return { totals: [`q${queue}`] };
  if (assignee !== undefined) return { totals: [`a${assignee}`] };
  if (statuses) return { totals: [...statuses].sort((a, b) => a - b).map(statusAttribute) };
  return { totals: 'all' };
}
