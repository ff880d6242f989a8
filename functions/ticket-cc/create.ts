/**
 * POST /api/tickets/{id}/cc/ (staff): puts an address (`email`) or a user (`user`, their id) on the
 * ticket's CC list; each once.
 */
import { apiHandler, idParam } from '../../shared/middleware';
import { json } from '../../shared/middleware/http';
import { ValidationError } from '../../shared/domain/errors';
import { MESSAGES } from '../../shared/domain/fields';
import { ALREADY_CC, TOO_MANY_CCS, parseTicketCcBody, ticketCcView } from '../../shared/domain/mail-settings';
import { getTicket } from '../../shared/store/tickets';
import { addTicketCc, DuplicateCc, TooManyCcs, userExists } from '../../shared/store/ticket-ccs';
import { requireTicket } from '../../shared/middleware/queue-access';

export const handler = apiHandler('ticket-cc/create', async (event) => {
  const ticket = idParam(event);
  await requireTicket(event, await getTicket(ticket));
  const entry = parseTicketCcBody(await event.parseBody!());
  if (entry.user !== null && !(await userExists(entry.user)))
    throw new ValidationError({ user: [MESSAGES.pkMissing(entry.user)] });
  const cc = await addTicketCc(ticket, entry, true).catch((error) => {
    if (error instanceof DuplicateCc)
      throw new ValidationError({ [entry.user !== null ? 'user' : 'email']: [ALREADY_CC] });
    throw error instanceof TooManyCcs ? new ValidationError({ non_field_errors: [TOO_MANY_CCS] }) : error;
  });
  return json(201, ticketCcView(cc));
});
