/** GET /api/user_tickets/{id}/: one of the caller's own tickets; anyone else's is 404. */
import { apiHandler, idParam } from '../../shared/middleware';
import { json } from '../../shared/middleware/http';
import { NotFound } from '../../shared/domain/errors';
import { userTicketView } from '../../shared/domain/user-tickets';
import { listCustomFields } from '../../shared/store/custom-fields';
import { visibleTo } from '../../shared/domain/custom-fields';
import { getQueue } from '../../shared/store/queues';
import { getTicket } from '../../shared/store/tickets';

export const handler = apiHandler('user-tickets/get', async (event) => {
  const [ticket, defs] = await Promise.all([getTicket(idParam(event)), listCustomFields()]);
  if (!ticket || ticket.submitter_email !== event.user!.email) throw new NotFound();
  return json(
    200,
    userTicketView(ticket, await getQueue(ticket.queue), visibleTo(event.user!, defs), new Date(), true),
  );
});
