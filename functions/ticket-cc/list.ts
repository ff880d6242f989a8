/** GET /api/tickets/{id}/cc/ (staff): the ticket's CC list, in the order it was added. */
import { apiHandler, idParam } from '../../shared/middleware';
import { listPageResponse, pageRequest } from '../../shared/middleware/pages';
import { ticketCcView } from '../../shared/domain/mail-settings';
import { getTicket } from '../../shared/store/tickets';
import { listTicketCcs } from '../../shared/store/ticket-ccs';
import { requireTicket } from '../../shared/middleware/queue-access';

export const handler = apiHandler('ticket-cc/list', async (event) => {
  const ticket = idParam(event);
  const request = pageRequest(event);
  await requireTicket(event, await getTicket(ticket));
  return listPageResponse(event, request, await listTicketCcs(ticket), ticketCcView);
});
