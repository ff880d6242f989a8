/** GET /api/followups/{id}/ */
import { apiHandler, idParam } from '../../shared/middleware';
import { baseUrl, json } from '../../shared/middleware/http';
import { NotFound } from '../../shared/domain/errors';
import { followupView } from '../../shared/domain/views';
import { findFollowup } from '../../shared/store/followups';

export const handler = apiHandler('followups/get', async (event) => {
  const found = await findFollowup(idParam(event));
  if (!found) throw new NotFound();
  return json(200, followupView(baseUrl(event), found.followup, found.attachments));
});
