/** GET /api/tickets/: a page of tickets with their followups and attachments. */
import { apiHandler } from '../../shared/middleware';
import { baseUrl, json, queryPairs, queryParam } from '../../shared/middleware/http';
import { pageEnvelope, parsePageRequest } from '../../shared/domain/pagination';
import { parseStatusFilter } from '../../shared/domain/status-filter';
import { ticketView } from '../../shared/domain/views';
import { listTickets } from '../../shared/store/tickets';

export const handler = apiHandler('tickets/list', async (event) => {
  const statuses = parseStatusFilter(queryParam(event, 'status'));
  const request = parsePageRequest({ page: queryParam(event, 'page'), page_size: queryParam(event, 'page_size') });
  const page = await listTickets(statuses, request);
  const base = baseUrl(event);
  const results = page.tickets.map((t) => ticketView(base, t));
  return json(200, pageEnvelope(`${base}${event.rawPath}`, queryPairs(event), page.window, page.count, results));
});
