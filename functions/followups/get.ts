/** GET /api/followups/{id}/ */
import { apiHandler, idParam } from '../../shared/middleware';
import { baseUrl, json } from '../../shared/middleware/http';
import { followupView } from '../../shared/domain/views';
import { findFollowup } from '../../shared/store/followups';
import { requireTicket } from '../../shared/middleware/queue-access';

export const handler = apiHandler('followups/get', async (event) => {
  const found = await requireTicket(event, await findFollowup(idParam(event)), (f) => f.collection.ticket);
  return json(200, followupView(baseUrl(event), found.followup, found.attachments));
});
