/** DELETE /api/ignored-senders/{id}/ (superusers): mail from it is taken in again (within a minute). */
import { apiHandler, idParam } from '../../shared/middleware';
import { noContent } from '../../shared/middleware/http';
import { NotFound } from '../../shared/domain/errors';
import { deleteIgnoredSender } from '../../shared/store/ignored-senders';

export const handler = apiHandler('ignored-senders/delete', async (event) => {
  if (!(await deleteIgnoredSender(idParam(event)))) throw new NotFound();
  return noContent();
});
