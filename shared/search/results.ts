/**
 * What the list handlers need of a search: the query parameters read and checked (`search`, the
 * lists' filters, `ordering`), and the page's tickets read from the table (the index only says
 * which): a ticket deleted since the index saw it is left out of its page.
 */
import { parseSearch, type SearchQuery, type Snippet } from '../domain/search';
import { ORDERINGS, parseTicketListQuery, type TicketFilters } from '../domain/ticket-list-query';
import type { TicketCollection } from '../domain/records';
import { readTicket } from '../store/tickets';
import type { SearchOrder } from './sql';

export interface SearchRequest {
  query: SearchQuery;
  filters: TicketFilters;
  order: SearchOrder;
}

/** The search a list's query parameters ask for, or undefined without `search`; a bad value is a 400. */
export function searchRequest(params: Record<string, string | undefined>): SearchRequest | undefined {
  const query = parseSearch(params.search);
  if (!query) return undefined;
  const list = parseTicketListQuery(params);
  const filters: TicketFilters =
    list.kind === 'ids' ? (list.statuses ? { statuses: list.statuses } : {}) : list.filters;
  const ordering = ORDERINGS.find((o) => o === params.ordering?.trim());
  return { query, filters, order: ordering ?? 'relevance' };
}

/** The tickets of a page of hits, in the hits' order, with their snippets. */
export async function readHits(
  hits: readonly { id: number; snippet: Snippet }[],
): Promise<{ collection: TicketCollection; snippet: Snippet }[]> {
  const read = await Promise.all(
    hits.map(async (hit) => ({ collection: await readTicket(hit.id), snippet: hit.snippet })),
  );
  return read.filter(
    (r): r is { collection: NonNullable<typeof r.collection>; snippet: Snippet } => r.collection !== undefined,
  );
}
