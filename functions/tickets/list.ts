/** GET /api/tickets/: a page of tickets with their followups and attachments. */
import { apiHandler } from '../../shared/middleware';
import { baseUrl, queryParam } from '../../shared/middleware/http';
import { pageRequest, pageResponse } from '../../shared/middleware/pages';
import { parseStatusFilter } from '../../shared/domain/status-filter';
import { ticketView } from '../../shared/domain/views';
import { listCustomFields } from '../../shared/store/custom-fields';
import { listTickets } from '../../shared/store/tickets';

export const handler = apiHandler('tickets/list', async (event) => {
  const statuses = parseStatusFilter(queryParam(event, 'status'));
  const [page, defs] = await Promise.all([listTickets(statuses, pageRequest(event, { cursors: true })), listCustomFields()]);
  const base = baseUrl(event);
  return pageResponse(event, page.links, page.count, page.tickets.map((t) => ticketView(base, t, defs)));
});
