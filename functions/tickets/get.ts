/** GET /api/tickets/{id}/: one ticket, whole, with its ETag; 304 when If-None-Match names it. */
import { apiHandler, idParam } from '../../shared/middleware';
import { baseUrl, header, json, notModified } from '../../shared/middleware/http';
import { ifNoneMatchMatches, ticketETag, ticketRevision } from '../../shared/domain/etag';
import { ticketView } from '../../shared/domain/views';
import { listCustomFields } from '../../shared/store/custom-fields';
import { readTicket } from '../../shared/store/tickets';
import { requireTicket } from '../../shared/middleware/queue-access';

export const handler = apiHandler('tickets/get', async (event) => {
  const [read, defs] = await Promise.all([readTicket(idParam(event)), listCustomFields()]);
  const ticket = await requireTicket(event, read, (c) => c.ticket);
  const etag = ticketETag(ticketRevision(ticket), defs);
  if (ifNoneMatchMatches(header(event, 'if-none-match'), etag)) return notModified(etag);
  return json(200, ticketView(baseUrl(event), ticket, defs), { ETag: etag });
});
