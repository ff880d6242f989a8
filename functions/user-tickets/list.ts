/** GET /api/user_tickets/: the caller's own tickets (by submitter e-mail), newest first; or those matching `search`. */
import { apiHandler } from '../../shared/middleware';
import { listPageResponse, pageRequest, pageResponse } from '../../shared/middleware/pages';
import { queryParam } from '../../shared/middleware/http';
import { userTicketView } from '../../shared/domain/user-tickets';
import { listCustomFields } from '../../shared/store/custom-fields';
import { visibleTo } from '../../shared/domain/custom-fields';
import { listQueues } from '../../shared/store/queues';
import { ticketsBySubmitter } from '../../shared/store/tickets';
import { parseSearch } from '../../shared/domain/search';
import { readHits } from '../../shared/search/results';
import { searchTickets } from '../../shared/search/search';

export const handler = apiHandler('user-tickets/list', async (event) => {
  const request = pageRequest(event);
  const user = event.user!;
  const search = parseSearch(queryParam(event, 'search'));
  const [queues, defs] = await Promise.all([listQueues(), listCustomFields()]);
  const byId = new Map(queues.map((q) => [q.id, q]));
  const visible = visibleTo(user, defs);
  const now = new Date();
  if (search) {
    // Public text of the caller's own tickets only, whoever the caller is (staff included: this is their requester
    // view).
    const found = await searchTickets(search, {}, 'relevance', { requester: user.email }, request);
    const own = user.email.toLowerCase();
    const hits = (await readHits(found.hits)).filter((h) => h.collection.ticket.submitter_email?.toLowerCase() === own);
    return pageResponse(
      event,
      found.window,
      found.count,
      hits.map((h) => ({
        ...userTicketView(h.collection.ticket, byId.get(h.collection.ticket.queue), visible, now),
        snippet: h.snippet,
      })),
    );
  }
  const tickets = await ticketsBySubmitter(user.email);
  return listPageResponse(event, request, tickets, (t) => userTicketView(t, byId.get(t.queue), visible, now));
});
