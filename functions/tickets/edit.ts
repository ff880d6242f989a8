/** PUT and PATCH of a ticket share everything but the mode (what is required). Not a handler itself. */
import { NotFound, ServiceUnavailable } from '../../shared/domain/errors';
import { ticketETag, ticketRevision } from '../../shared/domain/etag';
import type { Mode } from '../../shared/domain/fields';
import { parseTicketBody, planTicketUpdate, referencedIds } from '../../shared/domain/ticket';
import { ticketView } from '../../shared/domain/views';
import { loadReferences } from '../../shared/store/references';
import { listCustomFields } from '../../shared/store/custom-fields';
import { MissingQueueOnWrite, MissingTicket, StaleTicket, readTicket, updateTicket } from '../../shared/store/tickets';
import { ValidationError } from '../../shared/domain/errors';
import { MESSAGES } from '../../shared/domain/fields';
import { idParam } from '../../shared/middleware';
import { baseUrl, json, type ApiEvent, type HttpResult } from '../../shared/middleware/http';
import { checkIfMatch } from './preconditions';
import { backOff } from '../../shared/store/transact';

/** Writes are conditional on the version read; a loser pauses (backOff) and reads again, up to this many times in all. */
const ATTEMPTS = 8;

export async function updateTicketRequest(event: ApiEvent, mode: Extract<Mode, 'replace' | 'partial'>): Promise<HttpResult> {
  const id = idParam(event);
  let [current, defs] = await Promise.all([readTicket(id), listCustomFields()]);
  if (!current) throw new NotFound();
  defs = await checkIfMatch(event, current, defs); // 412 before the body is looked at (RFC 9110 §13.2.1)
  const draft = parseTicketBody(await event.parseBody!(), mode, defs);
  delete draft.errors.attachment; // accepted and ignored on updates, as upstream
  const changes = planTicketUpdate(draft, await loadReferences(referencedIds(draft.values)), new Date(), current.ticket);
  for (let attempt = 1; ; attempt++) {
    try {
      const updated = await updateTicket(current, changes);
      return json(200, ticketView(baseUrl(event), updated, defs), { ETag: ticketETag(ticketRevision(updated), defs) });
    } catch (error) {
      if (error instanceof MissingTicket) throw new NotFound();
      if (error instanceof MissingQueueOnWrite) throw new ValidationError({ queue: [MESSAGES.pkMissing(changes.queue)] });
      if (!(error instanceof StaleTicket)) throw error;
      if (attempt === ATTEMPTS) throw new ServiceUnavailable();
      await backOff(attempt);
      current = await readTicket(id);
      if (!current) throw new NotFound();
      await checkIfMatch(event, current, defs);
    }
  }
}
