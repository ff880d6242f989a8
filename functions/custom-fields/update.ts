/** PATCH /api/custom-fields/{name}/ (superusers): any property but the name. */
import { apiHandler } from '../../shared/middleware';
import { json } from '../../shared/middleware/http';
import { NotFound } from '../../shared/domain/errors';
import { customFieldView, parseCustomFieldBody } from '../../shared/domain/admin';
import { getCustomField, saveCustomField } from '../../shared/store/custom-fields';
import { customFieldName } from './name';

export const handler = apiHandler('custom-fields/update', async (event) => {
  const current = await getCustomField(customFieldName(event));
  if (!current) throw new NotFound();
  const def = { ...parseCustomFieldBody(await event.parseBody!(), current), key: current.key };
  await saveCustomField(def, false);
  return json(200, customFieldView(def));
});
