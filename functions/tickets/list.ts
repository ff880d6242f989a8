/**
 * GET /api/tickets/: a page of tickets with their followups and attachments, optionally filtered, ordered or searched.
 */
import { apiHandler } from '../../shared/middleware';
import { baseUrl, queryParam } from '../../shared/middleware/http';
import { pageRequest, pageResponse } from '../../shared/middleware/pages';
import { FILTERS, parseTicketListQuery } from '../../shared/domain/ticket-list-query';
import { ticketView } from '../../shared/domain/views';
import { listCustomFields } from '../../shared/store/custom-fields';
import { listTicketsBy } from '../../shared/store/filtered-lists';
import { readHits, searchRequest } from '../../shared/search/results';
import { searchTickets } from '../../shared/search/search';
import { queueScopeOf } from '../../shared/middleware/queue-access';

const PARAMETERS = ['status', 'ordering', 'search', ...FILTERS];

export const handler = apiHandler('tickets/list', async (event) => {
  const params = Object.fromEntries(PARAMETERS.map((name) => [name, queryParam(event, name)]));
  const base = baseUrl(event);
  const search = searchRequest(params);
  const scope = await queueScopeOf(event);
  if (search) {
    const access = scope ? { queues: [...scope.queues], assignedTo: scope.user } : {};
    const found = await searchTickets(search.query, search.filters, search.order, access, pageRequest(event));
    const [hits, defs] = await Promise.all([readHits(found.hits), listCustomFields()]);
    return pageResponse(
      event,
      found.window,
      found.count,
      hits.map((h) => ({ ...ticketView(base, h.collection, defs), snippet: h.snippet })),
    );
  }
  const query = parseTicketListQuery(params, scope);
  const [page, defs] = await Promise.all([
    listTicketsBy(query, pageRequest(event, { cursors: true })),
    listCustomFields(),
  ]);
  return pageResponse(
    event,
    page.links,
    page.count,
    page.tickets.map((t) => ticketView(base, t, defs)),
  );
});
