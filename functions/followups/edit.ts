/**
 * PUT and PATCH of a followup: plain edits of its fields, as upstream (a changed `new_status` does
 * not change the ticket; no webhook). Not a handler itself.
 */
import { idParam } from '../../shared/middleware';
import { baseUrl, json, type ApiEvent, type HttpResult } from '../../shared/middleware/http';
import { followupReferenceErrors, parseFollowupEdit } from '../../shared/domain/followup';
import { followupView } from '../../shared/domain/views';
import { findFollowup, updateFollowup } from '../../shared/store/followups';
import { loadReferences } from '../../shared/store/references';
import { queueScopeOf, requireTicket } from '../../shared/middleware/queue-access';
import { canAccessTicket } from '../../shared/domain/queue-access';

export async function editFollowup(event: ApiEvent, mode: 'replace' | 'partial'): Promise<HttpResult> {
  const found = await requireTicket(event, await findFollowup(idParam(event)), (f) => f.collection.ticket);
  const changes = parseFollowupEdit(await event.parseBody!(), mode);
  const refs = await loadReferences({
    queues: [],
    users: typeof changes.user === 'number' ? [changes.user] : [],
    tickets: typeof changes.ticket === 'number' ? [changes.ticket] : [],
  });
  const named = typeof changes.ticket === 'number' ? refs.tickets.get(changes.ticket) : undefined;
  // A ticket the caller may not see is one that does not exist (400 on `ticket`).
  const target = named && canAccessTicket(await queueScopeOf(event), named) ? named : undefined;
  followupReferenceErrors(changes, !!target, typeof changes.user === 'number' && refs.users.has(changes.user));
  const followup = await updateFollowup(found, changes, target);
  const attachments = found.attachments.map((a) => ({ ...a, ticket: followup.ticket }));
  return json(200, followupView(baseUrl(event), followup, attachments));
}
