/** DELETE /api/tickets/{id}/: the ticket, the tickets merged into it, and all their files. */
import { apiHandler, idParam } from '../../shared/middleware';
import { noContent } from '../../shared/middleware/http';
import { retryWhileStale } from '../../shared/middleware/stale';
import { removeFiles } from '../../shared/store/file-cleanups';
import { deleteTicket, readTicket } from '../../shared/store/tickets';
import { checkIfMatch } from './preconditions';
import { requireTicket } from '../../shared/middleware/queue-access';

/** The delete is conditional on the version read, so nothing added meanwhile is left behind. */
export const handler = apiHandler('tickets/delete', async (event) => {
  const id = idParam(event);
  return retryWhileStale(async () => {
    const ticket = await requireTicket(event, await readTicket(id), (c) => c.ticket);
    await checkIfMatch(event, ticket);
    await removeFiles(await deleteTicket(ticket));
    return noContent();
  });
});
