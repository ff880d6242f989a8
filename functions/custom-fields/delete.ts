/** DELETE /api/custom-fields/{name}/ (superusers): tickets stop showing the field. */
import { apiHandler } from '../../shared/middleware';
import { noContent } from '../../shared/middleware/http';
import { NotFound } from '../../shared/domain/errors';
import { deleteCustomField } from '../../shared/store/custom-fields';
import { customFieldName } from './name';

export const handler = apiHandler('custom-fields/delete', async (event) => {
  if (!(await deleteCustomField(customFieldName(event)))) throw new NotFound();
  return noContent();
});
