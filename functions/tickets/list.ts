/** GET /api/tickets/: a page of tickets with their followups and attachments, optionally filtered or ordered. */
import { apiHandler } from '../../shared/middleware';
import { baseUrl, queryParam } from '../../shared/middleware/http';
import { pageRequest, pageResponse } from '../../shared/middleware/pages';
import { FILTERS, parseTicketListQuery } from '../../shared/domain/ticket-list-query';
import { ticketView } from '../../shared/domain/views';
import { listCustomFields } from '../../shared/store/custom-fields';
import { listTicketsBy } from '../../shared/store/filtered-lists';

const PARAMETERS = ['status', 'ordering', ...FILTERS];

export const handler = apiHandler('tickets/list', async (event) => {
  const query = parseTicketListQuery(Object.fromEntries(PARAMETERS.map((name) => [name, queryParam(event, name)])));
  const [page, defs] = await Promise.all([listTicketsBy(query, pageRequest(event, { cursors: true })), listCustomFields()]);
  const base = baseUrl(event);
  return pageResponse(event, page.links, page.count, page.tickets.map((t) => ticketView(base, t, defs)));
});
