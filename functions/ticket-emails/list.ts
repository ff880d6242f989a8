/** GET /api/tickets/{id}/emails/ (staff): the mail sent about the ticket, oldest first. */
import { apiHandler, idParam } from '../../shared/middleware';
import { listPageResponse, pageRequest } from '../../shared/middleware/pages';
import { NotFound } from '../../shared/domain/errors';
import { mailView } from '../../shared/domain/mail';
import { getTicket } from '../../shared/store/tickets';
import { ticketMail } from '../../shared/store/mail-log';

export const handler = apiHandler('ticket-emails/list', async (event) => {
  const ticket = idParam(event);
  const request = pageRequest(event);
  if (!(await getTicket(ticket))) throw new NotFound();
  return listPageResponse(event, request, await ticketMail(ticket), mailView);
});
