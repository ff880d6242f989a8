/** DELETE /api/followups/{id}/: the followup, its attachment records and their files. */
import { apiHandler, idParam } from '../../shared/middleware';
import { noContent } from '../../shared/middleware/http';
import { removeFiles } from '../../shared/store/file-cleanups';
import { deleteFollowup, findFollowup } from '../../shared/store/followups';
import { requireTicket } from '../../shared/middleware/queue-access';

export const handler = apiHandler('followups/delete', async (event) => {
  const found = await requireTicket(event, await findFollowup(idParam(event)), (f) => f.collection.ticket);
  await removeFiles(await deleteFollowup(found));
  return noContent();
});
