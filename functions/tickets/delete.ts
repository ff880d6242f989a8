/** DELETE /api/tickets/{id}/: the ticket, the tickets merged into it, and all their files. */
import { apiHandler, idParam } from '../../shared/middleware';
import { noContent } from '../../shared/middleware/http';
import { NotFound, ServiceUnavailable } from '../../shared/domain/errors';
import { removeFiles } from '../../shared/store/file-cleanups';
import { MissingTicket, StaleTicket, deleteTicket, readTicket } from '../../shared/store/tickets';
import { checkIfMatch } from './preconditions';
import { backOff } from '../../shared/store/transact';

/** The delete is conditional on the version read (nothing added meanwhile is left behind); a loser pauses and reads again. */
const ATTEMPTS = 8;

export const handler = apiHandler('tickets/delete', async (event) => {
  const id = idParam(event);
  for (let attempt = 1; ; attempt++) {
    const ticket = await readTicket(id);
    if (!ticket) throw new NotFound();
    await checkIfMatch(event, ticket);
    try {
      await removeFiles(await deleteTicket(ticket));
      return noContent();
    } catch (error) {
      if (error instanceof MissingTicket) throw new NotFound();
      if (!(error instanceof StaleTicket)) throw error;
      if (attempt === ATTEMPTS) throw new ServiceUnavailable();
      await backOff(attempt);
    }
  }
});
