/** POST /api/followups/: a followup on a ticket, with any number of attachments. */
import { apiHandler } from '../../shared/middleware';
import { baseUrl, json } from '../../shared/middleware/http';
import { parseFollowupBody, planFollowup } from '../../shared/domain/followup';
import { followupView } from '../../shared/domain/views';
import { newAttachments } from '../../shared/store/attachments';
import { reserveIds } from '../../shared/store/counters';
import { withFiles } from '../../shared/store/file-cleanups';
import { loadReferences } from '../../shared/store/references';
import { webhookEventFor } from '../../shared/webhooks/settings';
import { StaleTicket, MissingTicket, addFollowup } from '../../shared/store/tickets';
import { retryWhileStale } from '../../shared/middleware/stale';
import { queueScopeOf } from '../../shared/middleware/queue-access';
import { canAccessTicket } from '../../shared/domain/queue-access';

export const handler = apiHandler('followups/create', async (event) => {
  const draft = parseFollowupBody(await event.parseBody!());
  const v = draft.values;
  const lookup = () =>
    loadReferences({
      queues: [],
      users: typeof v.user === 'number' ? [v.user] : [],
      tickets: typeof v.ticket === 'number' ? [v.ticket] : [],
    });
  const planWith = async () => {
    const refs = await lookup();
    const named = typeof v.ticket === 'number' ? refs.tickets.get(v.ticket) : undefined;
    // A ticket the caller may not see is one that does not exist (400 on `ticket`).
    const ticket = named && canAccessTicket(await queueScopeOf(event), named) ? named : undefined;
    const plan = planFollowup(
      draft,
      {
        ticket,
        userExists: typeof v.user === 'number' && refs.users.has(v.user),
        held: ticket ? refs.openings?.get(ticket.id) : undefined,
      },
      event.user!.id,
      new Date(),
    );
    return { ticket: ticket!, plan };
  };

  let { ticket, plan } = await planWith();
  const ids = await reserveIds({ followup: 1, attachment: draft.attachments.length });
  const { records, files } = newAttachments(ticket.id, ids.followup, ids.attachment, draft.attachments);

  const announce = webhookEventFor('followup.created', ticket.id, ids.followup, baseUrl(event));
  const followup = await withFiles(files, (fileCommit) =>
    retryWhileStale(
      async (attempt) => {
        if (attempt > 1) ({ ticket, plan } = await planWith()); // throws 400 if the ticket is gone
        const record = { id: ids.followup, ...plan.followup };
        await addFollowup(ticket, record, records, plan.ticketChanges, announce, fileCommit);
        return record;
      },
      (error) => error instanceof StaleTicket || error instanceof MissingTicket,
    ),
  );
  return json(201, followupView(baseUrl(event), followup, records));
});
