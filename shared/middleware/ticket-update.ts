/** PUT and PATCH of a ticket share everything but the mode (what is required). */
import { NotFound, ServiceUnavailable } from '../domain/errors';
import type { Mode } from '../domain/fields';
import { parseTicketBody, planTicketUpdate, referencedIds } from '../domain/ticket';
import { ticketView } from '../domain/views';
import { loadReferences } from '../store/references';
import { MissingTicket, StaleTicket, readTicket, updateTicket } from '../store/tickets';
import { idParam } from '.';
import { baseUrl, json, type ApiEvent, type HttpResult } from './http';

const ATTEMPTS = 3;

export async function updateTicketRequest(event: ApiEvent, mode: Extract<Mode, 'replace' | 'partial'>): Promise<HttpResult> {
  const id = idParam(event);
  let current = await readTicket(id);
  if (!current) throw new NotFound();
  const draft = parseTicketBody(await event.parseBody!(), mode);
  delete draft.errors.attachment; // accepted and ignored on updates, as upstream
  const changes = planTicketUpdate(draft, await loadReferences(referencedIds(draft.values)), new Date());
  for (let attempt = 1; ; attempt++) {
    try {
      return json(200, ticketView(baseUrl(event), await updateTicket(current, changes)));
    } catch (error) {
      if (error instanceof MissingTicket) throw new NotFound();
      if (!(error instanceof StaleTicket)) throw error;
      if (attempt === ATTEMPTS) throw new ServiceUnavailable();
      current = await readTicket(id);
      if (!current) throw new NotFound();
    }
  }
}
