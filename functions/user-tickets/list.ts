/** GET /api/user_tickets/: the caller's own tickets (by submitter e-mail), newest first. */
import { apiHandler } from '../../shared/middleware';
import { listPageResponse, pageRequest } from '../../shared/middleware/pages';
import { userTicketView } from '../../shared/domain/user-tickets';
import { listCustomFields } from '../../shared/store/custom-fields';
import { visibleTo } from '../../shared/domain/custom-fields';
import { listQueues } from '../../shared/store/queues';
import { ticketsBySubmitter } from '../../shared/store/tickets';

export const handler = apiHandler('user-tickets/list', async (event) => {
  const request = pageRequest(event);
  const [tickets, queues, defs] = await Promise.all([ticketsBySubmitter(event.user!.email), listQueues(), listCustomFields()]);
  const byId = new Map(queues.map((q) => [q.id, q]));
  const visible = visibleTo(event.user!, defs);
  const now = new Date();
  return listPageResponse(event, request, tickets, (t) => userTicketView(t, byId.get(t.queue), visible, now));
});
