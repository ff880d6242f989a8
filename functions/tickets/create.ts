/** POST /api/tickets/: a new ticket (always OPEN) with its opening followup and optional attachment. */
import { apiHandler } from '../../shared/middleware';
import { baseUrl, json } from '../../shared/middleware/http';
import { parseTicketBody, planTicketCreation, referencedIds } from '../../shared/domain/ticket';
import { ticketETag, ticketRevision } from '../../shared/domain/etag';
import { ticketView } from '../../shared/domain/views';
import { newAttachments } from '../../shared/store/attachments';
import { reserveIds } from '../../shared/store/counters';
import { withFiles } from '../../shared/store/file-cleanups';
import { FIRST_VERSION } from '../../shared/store/items';
import { loadReferences } from '../../shared/store/references';
import { listCustomFields } from '../../shared/store/custom-fields';
import { MissingQueueOnWrite, createTicket } from '../../shared/store/tickets';
import { webhookEventFor } from '../../shared/webhooks/settings';
import { ValidationError } from '../../shared/domain/errors';
import { MESSAGES } from '../../shared/domain/fields';
import { referencesSeenBy } from '../../shared/middleware/queue-access';

export const handler = apiHandler('tickets/create', async (event) => {
  const defs = await listCustomFields();
  const draft = parseTicketBody(await event.parseBody!(), 'create', defs);
  const refs = await referencesSeenBy(event, await loadReferences(referencedIds(draft.values)));
  const plan = planTicketCreation(draft, refs, event.user!.id, new Date());

  const uploads = draft.attachment ? [draft.attachment] : [];
  const ids = await reserveIds({ ticket: 1, followup: 1, attachment: uploads.length });
  const ticket = { id: ids.ticket, ...plan.ticket };
  const opening = { id: ids.followup, ticket: ticket.id, ...plan.opening };
  const { records, files } = newAttachments(ticket.id, opening.id, ids.attachment, uploads);

  const created = await withFiles(files, (fileCommit) =>
    createTicket(
      ticket,
      opening,
      records,
      webhookEventFor('ticket.created', ticket.id, null, baseUrl(event)),
      fileCommit,
    ),
  ).catch((error) => {
    throw error instanceof MissingQueueOnWrite
      ? new ValidationError({ queue: [MESSAGES.pkMissing(ticket.queue)] })
      : error;
  });
  return json(201, ticketView(baseUrl(event), created, defs), {
    ETag: ticketETag(ticketRevision({ version: FIRST_VERSION, ...created }), defs),
  });
});
