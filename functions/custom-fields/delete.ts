/** DELETE /api/custom-fields/{name}/ (superusers): tickets stop showing the field. */
import { apiHandler } from '../../shared/middleware';
import { noContent } from '../../shared/middleware/http';
import { NotFound } from '../../shared/domain/errors';
import { deleteCustomField } from '../../shared/store/custom-fields';

export const handler = apiHandler('custom-fields/delete', async (event) => {
  if (!(await deleteCustomField(event.pathParameters?.name ?? ''))) throw new NotFound();
  return noContent();
});
