/** DELETE /api/tickets/{id}/: the ticket, the tickets merged into it, and all their files. */
import { apiHandler, idParam } from '../../shared/middleware';
import { noContent } from '../../shared/middleware/http';
import { retryWhileStale } from '../../shared/middleware/stale';
import { NotFound } from '../../shared/domain/errors';
import { removeFiles } from '../../shared/store/file-cleanups';
import { deleteTicket, readTicket } from '../../shared/store/tickets';
import { checkIfMatch } from './preconditions';

/** The delete is conditional on the version read, so nothing added meanwhile is left behind. */
export const handler = apiHandler('tickets/delete', async (event) => {
  const id = idParam(event);
  return retryWhileStale(async () => {
    const ticket = await readTicket(id);
    if (!ticket) throw new NotFound();
    await checkIfMatch(event, ticket);
    await removeFiles(await deleteTicket(ticket));
    return noContent();
  });
});
