/** DELETE /api/tickets/{id}/cc/{ccId}/ (staff): takes one entry off the ticket's CC list. */
import { apiHandler, idParam } from '../../shared/middleware';
import { noContent } from '../../shared/middleware/http';
import { NotFound } from '../../shared/domain/errors';
import { removeTicketCc } from '../../shared/store/ticket-ccs';
import { mayAccessTicketId } from '../../shared/middleware/queue-access';

export const handler = apiHandler('ticket-cc/delete', async (event) => {
  const ticket = idParam(event);
  if (!(await mayAccessTicketId(event, ticket)) || !(await removeTicketCc(ticket, idParam(event, 'ccId'))))
    throw new NotFound();
  return noContent();
});
