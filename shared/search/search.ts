/**
 * A search of the tickets (`?search=` on GET /api/tickets/ and /api/user_tickets/): one statement
 * for the page's ids and the exact count, one for the page's snippets. Filters are the lists' own;
 * access is the caller's: staff search everything (of the queues they may see, when `queues` is
 * given: the identity rules pass their set), requesters the public text of their own tickets.
 */
import { HttpError, InvalidPage, ValidationError } from '../domain/errors';
import { pageWindow, type PageRequest, type PageWindow } from '../domain/pagination';
import { codeSnippet, likePattern, unmark, type SearchQuery, type Snippet, type SnippetField } from '../domain/search';
import type { TicketFilters } from '../domain/ticket-list-query';
import { SearchEngineUnavailable, type Row, type SearchDriver, type SqlParams } from './driver';
import { DEFAULT_SEARCH_CONFIG, isSearchConfig } from '../domain/search-language';
import { searchEngine } from './engine';
import { searchPage, SNIPPETS, type SearchOrder } from './sql';

export interface SearchAccess {
  /** Public text only, and only the tickets submitted by this address (a requester). */
  requester?: string;
  /** The queue ids the caller may see; undefined: every queue. */
  queues?: readonly number[];
  /** With `queues`: the tickets assigned to this user are seen in any queue (domain/queue-access.ts). */
  assignedTo?: number;
}

export interface SearchHit {
  id: number;
  snippet: Snippet;
}

export interface SearchResult {
  count: number;
  window: PageWindow;
  hits: SearchHit[];
}

/** The 400 of a search while search is off in this environment. */
export class SearchOff extends ValidationError {
  constructor() {
    super({ search: ['Search is not enabled in this environment (the HELPDESK_SEARCH setting is off).'] });
  }
}

const none = (value: string | undefined): string | null => value ?? null;

function parameters(query: SearchQuery, filters: TicketFilters, access: SearchAccess) {
  return {
    text: query.text,
    rest: query.rest,
    prefix: query.prefix ?? '',
    code_patterns: JSON.stringify(query.codes.map(likePattern)),
    code: query.codes.length ? likePattern(query.codes[0]!) : '',
    ids: JSON.stringify(query.ids),
    public: access.requester !== undefined,
    own_email: none(access.requester),
    queues: access.queues ? JSON.stringify(access.queues) : null,
    also_assigned: access.assignedTo === undefined ? null : String(access.assignedTo),
    statuses: filters.statuses ? JSON.stringify([...filters.statuses]) : null,
    queue: none(filters.queue),
    assigned_to: none(filters.assignee),
    priority: none(filters.priority),
    submitter_email: none(filters.email),
    created_since: none(filters.createdSince),
    updated_since: none(filters.updatedSince),
  };
}

/** A paused or resuming engine: 503 with Retry-After, never a 500. */
const unavailable = (error: unknown): never => {
  if (error instanceof SearchEngineUnavailable) {
    throw new HttpError(
      503,
      { detail: 'Search is resuming; try again shortly.' },
      { 'Retry-After': String(error.retryAfterSeconds) },
    );
  }
  throw error;
};

/**
 * How long a search waits for an engine still starting (the embedded one takes seconds, more on a
 * busy machine) before it answers 503: past the route's 15 s timeout it would be API Gateway's 500.
 */
const START_WAIT_MS = 5000;
const started = async (engine: Promise<SearchDriver>): Promise<SearchDriver> => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(new SearchEngineUnavailable(START_WAIT_MS / 1000)), START_WAIT_MS);
  });
  try {
    return await Promise.race([engine, late]).catch(unavailable);
  } finally {
    clearTimeout(timer);
  }
};

/**
 * The text search configurations the tickets were built with, as the last search saw them (sql.ts searchPage): a
 * search's query is built for these, and the statement says which are in use. When some were not in the query (a
 * queue's language changed since), the search runs again with them: one statement a search, two after a change.
 */
let configsInUse: readonly string[] = [DEFAULT_SEARCH_CONFIG];

/** The deepest offset a search page's statement takes (PostgreSQL's int: `OFFSET CAST(:offset AS int)`, sql.ts). */
const MAX_OFFSET = 2 ** 31 - 1;

/** The configurations a search statement found in use: ours only, since they are written into statements. */
const inUse = (rows: Row[]): string[] =>
  (typeof rows[0]?.configs === 'string' ? rows[0].configs : '').split(',').filter(isSearchConfig);

export async function searchTickets(
  query: SearchQuery,
  filters: TicketFilters,
  order: SearchOrder,
  access: SearchAccess,
  request: PageRequest,
): Promise<SearchResult> {
  const engine = searchEngine();
  if (!engine) throw new SearchOff();
  const driver = await started(engine);
  const params = parameters(query, filters, access);
  const read = async (offset: number) => {
    const statement = (configs: readonly string[]) => ({
      sql: searchPage(order, access.requester !== undefined ? 'public' : 'staff', configs),
      params: { ...params, limit: String(request.pageSize), offset: String(offset) },
    });
    let rows = await driver.query(statement(configsInUse)).catch(unavailable);
    const used = inUse(rows);
    if (used.some((c) => !configsInUse.includes(c))) {
      configsInUse = used;
      rows = await driver.query(statement(used)).catch(unavailable);
    } else configsInUse = used.length ? used : configsInUse;
    return {
      count: Number(rows[0]?.total ?? 0),
      ids: rows.filter((r) => r.id !== null && r.id !== undefined).map((r) => Number(r.id)),
    };
  };
  // A numbered page is read at once; `last` needs the count first.
  const offset = request.page === 'last' ? 0 : (request.page - 1) * request.pageSize;
  // Past the statement's OFFSET (an int) no page holds a ticket: "Invalid page.", as any page past the end.
  if (offset > MAX_OFFSET) throw new InvalidPage();
  let page = await read(offset);
  const window = pageWindow(request, page.count);
  if (request.page === 'last' && window.offset > 0) page = await read(window.offset);
  const snippets = page.ids.length ? await snippetsOf(page.ids, query, params) : new Map<number, Snippet>();
  return {
    count: page.count,
    window,
    hits: page.ids.map((id) => ({ id, snippet: snippets.get(id) ?? idSnippet(id) })),
  };
}

const idSnippet = (id: number): Snippet => ({
  field: 'id',
  followup: null,
  custom_field: null,
  text: `#${id}`,
  highlights: [{ start: 0, end: String(id).length + 1 }],
});

/** Each ticket's first part (in field order) with a code in it, else with a matched word, else its id. */
async function snippetsOf(
  ids: number[],
  query: SearchQuery,
  params: SqlParams & { text: string; prefix: string; public: boolean },
): Promise<Map<number, Snippet>> {
  const driver = await searchEngine()!;
  const snippetParams = {
    text: params.text,
    prefix: params.prefix,
    public: params.public,
    tickets: JSON.stringify(ids),
  };
  const rows = await driver.query({ sql: SNIPPETS, params: snippetParams }).catch(unavailable);
  const byTicket = new Map<number, Snippet>();
  const byMarked = new Map<number, Snippet>();
  for (const row of rows) {
    const ticket = Number(row.ticket);
    const base = {
      field: row.field as SnippetField,
      followup: row.followup == null ? null : Number(row.followup),
      custom_field: (row.custom_field as string | null) ?? null,
    };
    if (byTicket.has(ticket)) continue;
    // A code's whole match before the engine's words (which mark `-0042` of `INV-2024-0042`).
    const code = codeSnippet(String(row.text), query.codes);
    if (code) {
      byTicket.set(ticket, { ...base, ...code });
      continue;
    }
    const marked = unmark(String(row.marked));
    if (marked.highlights.length && !byMarked.has(ticket)) byMarked.set(ticket, { ...base, ...marked });
  }
  for (const [ticket, snippet] of byMarked) if (!byTicket.has(ticket)) byTicket.set(ticket, snippet);
  return byTicket;
}
