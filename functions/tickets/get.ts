/** GET /api/tickets/{id}/: one ticket, whole. */
import { apiHandler, idParam } from '../../shared/middleware';
import { baseUrl, json } from '../../shared/middleware/http';
import { NotFound } from '../../shared/domain/errors';
import { ticketView } from '../../shared/domain/views';
import { listCustomFields } from '../../shared/store/custom-fields';
import { readTicket } from '../../shared/store/tickets';

export const handler = apiHandler('tickets/get', async (event) => {
  const [ticket, defs] = await Promise.all([readTicket(idParam(event)), listCustomFields()]);
  if (!ticket) throw new NotFound();
  return json(200, ticketView(baseUrl(event), ticket, defs));
});
