/** DELETE /api/followups/{id}/: the followup, its attachment records and their files. */
import { apiHandler, idParam } from '../../shared/middleware';
import { noContent } from '../../shared/middleware/http';
import { NotFound } from '../../shared/domain/errors';
import { removeFiles } from '../../shared/store/file-cleanups';
import { deleteFollowup, findFollowup } from '../../shared/store/followups';

export const handler = apiHandler('followups/delete', async (event) => {
  const found = await findFollowup(idParam(event));
  if (!found) throw new NotFound();
  await removeFiles(await deleteFollowup(found));
  return noContent();
});
