/**
 * The ticket list's filters and ordering (`GET /api/tickets/`): which list a query asks for, and
 * which index serves it (docs/data-model.md, "Filtered lists"). Each filter is served alone by an
 * index of its own; a combination no index serves is a 400 that says which ones combine.
 */
import { parseDateTime } from './datetime';
import { HttpError, ValidationError } from './errors';
import { MESSAGES } from './fields';
import { PRIORITY_VALUES, type Ticket } from './records';
import { parseStatusFilter } from './status-filter';

export const ORDERINGS = ['id', '-id', 'created', '-created', 'modified', '-modified'] as const;
export type Ordering = (typeof ORDERINGS)[number];

/** The filters with an index of their own (besides `status`), in the order the docs list them. */
export const FILTERS = ['queue', 'assigned_to', 'submitter_email', 'priority', 'updated_since', 'created_since'] as const;
export type Filter = (typeof FILTERS)[number];

/** The orderings each filter combines with (its index's order); the first is its default. */
export const ORDERINGS_OF: Record<Filter | 'status' | 'none', readonly Ordering[]> = {
  none: ORDERINGS,
  status: ['id', '-id'],
  queue: ['id', '-id'],
  assigned_to: ['id', '-id'],
  submitter_email: ['id', '-id'],
  priority: ['id', '-id'],
  updated_since: ['modified', '-modified'],
  created_since: ['created', '-created'],
};

/** What a list query asks for, and so which index reads it. */
export type TicketListQuery =
  /** gsi1, or gsi2 per status: the upstream list (id order: page numbers), or in reverse (`-id`). */
  | { kind: 'ids'; statuses?: Set<number>; ascending: boolean }
  /** gsi4, one partition: tickets of one queue, assignee or priority (id order), or all by a time. */
  | {
      kind: 'listing';
      dimension: 'queue' | 'assigned' | 'priority' | 'modified' | 'created';
      /** The queue, assignee (`none`: nobody) or priority listed; none for the time dimensions. */
      value?: string;
      /** The time dimensions: entries from this stored date-time on. */
      since?: string;
      ascending: boolean;
    }
  /** gsi3: the tickets of one submitter e-mail, in id order. */
  | { kind: 'submitter'; email: string; ascending: boolean };

const INTEGER = /^\d{1,15}$/;
const WHOLE_NUMBER = 'Enter a whole number.';
const EMAIL_MAX = 254;

/** 400 in upstream's shape, saying which filters and orderings combine. */
export class UnsupportedCombination extends HttpError {
  constructor(given: string) {
    super(400, {
      detail:
        `${given}: no index serves that combination. Each filter (status, ${FILTERS.join(', ')}) is served alone; ` +
        `ordering combines with status, queue, assigned_to, submitter_email and priority as id or -id, with updated_since as modified or -modified, ` +
        `with created_since as created or -created, and without a filter as any of ${ORDERINGS.join(', ')}.`,
    });
  }
}

/** The list `query` (the request's query parameters) asks for; a bad value or combination is a 400. */
export function parseTicketListQuery(query: Record<string, string | undefined>): TicketListQuery {
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
  const assignee = rawAssignee === undefined ? undefined : rawAssignee.toLowerCase() === 'none' ? 'none' : INTEGER.test(rawAssignee) ? String(Number(rawAssignee)) : undefined;
  if (rawAssignee !== undefined && assignee === undefined) errors.assigned_to = [`${WHOLE_NUMBER} Or "none": unassigned tickets.`];
  const priority = given('priority');
  if (priority !== undefined && !PRIORITY_VALUES.some((p) => String(p) === priority)) errors.priority = [MESSAGES.choice(priority)];
  const email = given('submitter_email');
  // A stored e-mail has at most 254 characters (the field's limit): a longer one matches nothing, and would not fit a key.
  if (email !== undefined && email.length > EMAIL_MAX) errors.submitter_email = [MESSAGES.maxLength(EMAIL_MAX)];
  const updatedSince = time('updated_since');
  const createdSince = time('created_since');
  const rawOrdering = given('ordering');
  const ordering = ORDERINGS.find((o) => o === rawOrdering);
  if (rawOrdering !== undefined && !ordering) errors.ordering = [`${MESSAGES.choice(rawOrdering)} Use one of: ${ORDERINGS.join(', ')}.`];
  if (Object.keys(errors).length) throw new ValidationError(errors);

  const filters = [...(statuses ? ['status' as const] : []), ...FILTERS.filter((f) => given(f) !== undefined)];
  if (filters.length > 1) throw new UnsupportedCombination(`The filters ${filters.join(' and ')} were given together`);
  const filter = filters[0] ?? 'none';
  const allowed = ORDERINGS_OF[filter];
  if (ordering && !allowed.includes(ordering)) {
    throw new UnsupportedCombination(filter === 'none' ? `ordering=${ordering}` : `The filter ${filter} with ordering=${ordering}`);
  }
  const order = ordering ?? allowed[0]!;
  const ascending = !order.startsWith('-');
  switch (filter) {
    case 'none':
    case 'status':
      if (order === 'id' || order === '-id') return { kind: 'ids', ...(statuses ? { statuses } : {}), ascending };
      return { kind: 'listing', dimension: order.replace('-', '') as 'created' | 'modified', ascending };
    case 'queue':
      return { kind: 'listing', dimension: 'queue', value: String(queue), ascending };
    case 'assigned_to':
      return { kind: 'listing', dimension: 'assigned', value: assignee!, ascending };
    case 'priority':
      return { kind: 'listing', dimension: 'priority', value: priority!, ascending };
    case 'submitter_email':
      return { kind: 'submitter', email: email!, ascending };
    case 'updated_since':
      return { kind: 'listing', dimension: 'modified', since: updatedSince!, ascending };
    case 'created_since':
      return { kind: 'listing', dimension: 'created', since: createdSince!, ascending };
  }
}

/**
 * Whether a ticket as read still matches the filter its index entry was listed under: the indexes
 * follow the stream, so an entry can be a moment behind a change (such a ticket is left out).
 */
export function stillMatches(query: TicketListQuery, ticket: Ticket): boolean {
  if (query.kind === 'ids') return !query.statuses || query.statuses.has(ticket.status);
  if (query.kind === 'submitter') return ticket.submitter_email === query.email;
  switch (query.dimension) {
    case 'queue':
      return String(ticket.queue) === query.value;
    case 'assigned':
      return (ticket.assigned_to == null ? 'none' : String(ticket.assigned_to)) === query.value;
    case 'priority':
      return String(ticket.priority) === query.value;
    case 'modified':
      return query.since === undefined || ticket.modified >= query.since;
    case 'created':
      return query.since === undefined || ticket.created >= query.since;
  }
}
