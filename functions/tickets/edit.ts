/** PUT and PATCH of a ticket share everything but the mode (what is required). Not a handler itself. */
import { ticketETag, ticketRevision } from '../../shared/domain/etag';
import type { Mode } from '../../shared/domain/fields';
import { parseTicketBody, planTicketUpdate, referencedIds } from '../../shared/domain/ticket';
import { ticketView } from '../../shared/domain/views';
import { loadReferences } from '../../shared/store/references';
import { listCustomFields } from '../../shared/store/custom-fields';
import { MissingQueueOnWrite, readTicket, updateTicket } from '../../shared/store/tickets';
import { ValidationError } from '../../shared/domain/errors';
import { MESSAGES } from '../../shared/domain/fields';
import { idParam } from '../../shared/middleware';
import { baseUrl, json, type ApiEvent, type HttpResult } from '../../shared/middleware/http';
import { checkIfMatch } from './preconditions';
import { retryWhileStale } from '../../shared/middleware/stale';
import { referencesSeenBy, requireTicket } from '../../shared/middleware/queue-access';

export async function updateTicketRequest(
  event: ApiEvent,
  mode: Extract<Mode, 'replace' | 'partial'>,
): Promise<HttpResult> {
  const id = idParam(event);
  const [first, cached] = await Promise.all([readTicket(id), listCustomFields()]);
  const current = await requireTicket(event, first, (c) => c.ticket);
  const defs = await checkIfMatch(event, current, cached); // 412 before the body is looked at (RFC 9110 §13.2.1)
  const draft = parseTicketBody(await event.parseBody!(), mode, defs);
  delete draft.errors.attachment; // accepted and ignored on updates, as upstream
  const changes = planTicketUpdate(
    draft,
    await referencesSeenBy(event, await loadReferences(referencedIds(draft.values)), current.ticket.queue),
    new Date(),
    current.ticket,
    current.followups.find((f) => f.id === current.inlineFollowup),
  );
  let read = current;
  return retryWhileStale(async (attempt) => {
    if (attempt > 1) {
      const again = await requireTicket(event, await readTicket(id), (c) => c.ticket);
      await checkIfMatch(event, again, defs);
      read = again;
    }
    const updated = await updateTicket(read, changes, event.user!.id).catch((error: unknown) => {
      if (error instanceof MissingQueueOnWrite)
        throw new ValidationError({ queue: [MESSAGES.pkMissing(changes.queue)] });
      throw error;
    });
    return json(200, ticketView(baseUrl(event), updated, defs), { ETag: ticketETag(ticketRevision(updated), defs) });
  });
}
