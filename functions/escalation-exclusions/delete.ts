/** DELETE /api/escalation-exclusions/{id}/ (superusers): the date counts again from the next run. */
import { apiHandler, idParam } from '../../shared/middleware';
import { noContent } from '../../shared/middleware/http';
import { NotFound } from '../../shared/domain/errors';
import { deleteExclusion } from '../../shared/store/escalation';

export const handler = apiHandler('escalation-exclusions/delete', async (event) => {
  if (!(await deleteExclusion(idParam(event)))) throw new NotFound();
  return noContent();
});
