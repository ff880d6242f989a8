/** POST /api/custom-fields/ (superusers): a new definition; tickets show it as `custom_<name>`. */
import { randomUUID } from 'node:crypto';
import { apiHandler } from '../../shared/middleware';
import { json } from '../../shared/middleware/http';
import { ValidationError } from '../../shared/domain/errors';
import { DUPLICATE_FIELD_NAME, customFieldView, parseCustomFieldBody } from '../../shared/domain/admin';
import { DuplicateFieldName, saveCustomField } from '../../shared/store/custom-fields';

export const handler = apiHandler('custom-fields/create', async (event) => {
  const def = { ...parseCustomFieldBody(await event.parseBody!()), key: randomUUID() };
  await saveCustomField(def, true).catch((error) => {
    throw error instanceof DuplicateFieldName ? new ValidationError({ name: [DUPLICATE_FIELD_NAME] }) : error;
  });
  return json(201, customFieldView(def));
});
