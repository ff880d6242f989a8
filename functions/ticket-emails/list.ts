/** GET /api/tickets/{id}/emails/ (staff): the mail sent about the ticket, oldest first. */
import { apiHandler, idParam } from '../../shared/middleware';
import { listPageResponse, pageRequest } from '../../shared/middleware/pages';
import { mailView } from '../../shared/domain/mail';
import { getTicket } from '../../shared/store/tickets';
import { ticketMail } from '../../shared/store/mail-log';
import { requireTicket } from '../../shared/middleware/queue-access';

export const handler = apiHandler('ticket-emails/list', async (event) => {
  const ticket = idParam(event);
  const request = pageRequest(event);
  await requireTicket(event, await getTicket(ticket));
  return listPageResponse(event, request, await ticketMail(ticket), mailView);
});
