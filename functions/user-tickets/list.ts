/** GET /api/user_tickets/: the caller's own tickets (by submitter e-mail), newest first. */
import { apiHandler } from '../../shared/middleware';
import { pageRequest, pageResponse } from '../../shared/middleware/pages';
import { pageWindow } from '../../shared/domain/pagination';
import { userTicketView } from '../../shared/domain/user-tickets';
import { listCustomFields } from '../../shared/store/custom-fields';
import { visibleTo } from '../../shared/domain/custom-fields';
import { listQueues } from '../../shared/store/queues';
import { ticketsBySubmitter } from '../../shared/store/tickets';

export const handler = apiHandler('user-tickets/list', async (event) => {
  const request = pageRequest(event);
  const [tickets, queues, defs] = await Promise.all([ticketsBySubmitter(event.user!.email), listQueues(), listCustomFields()]);
  const window = pageWindow(request, tickets.length);
  const byId = new Map(queues.map((q) => [q.id, q]));
  const now = new Date();
  const page = tickets.slice(window.offset, window.offset + window.limit);
  return pageResponse(event, window, tickets.length, page.map((t) => userTicketView(t, byId.get(t.queue), visibleTo(event.user!, defs), now)));
});
