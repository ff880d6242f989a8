/** GET /api/custom-fields/{name}/ (superusers) */
import { apiHandler } from '../../shared/middleware';
import { json } from '../../shared/middleware/http';
import { NotFound } from '../../shared/domain/errors';
import { customFieldView } from '../../shared/domain/admin';
import { getCustomField } from '../../shared/store/custom-fields';
import { customFieldName } from './name';

export const handler = apiHandler('custom-fields/get', async (event) => {
  const def = await getCustomField(customFieldName(event));
  if (!def) throw new NotFound();
  return json(200, customFieldView(def));
});
