/** DELETE /api/tickets/{id}/: the ticket, the tickets merged into it, and all their files. */
import { apiHandler, idParam } from '../../shared/middleware';
import { noContent } from '../../shared/middleware/http';
import { NotFound } from '../../shared/domain/errors';
import { deleteFiles } from '../../shared/store/files';
import { MissingTicket, deleteTicket, readTicket } from '../../shared/store/tickets';

export const handler = apiHandler('tickets/delete', async (event) => {
  const ticket = await readTicket(idParam(event));
  if (!ticket) throw new NotFound();
  const objectKeys = await deleteTicket(ticket).catch((error) => {
    throw error instanceof MissingTicket ? new NotFound() : error;
  });
  await deleteFiles(objectKeys);
  return noContent();
});
