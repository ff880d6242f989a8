/** GET /api/openapi.json: the OpenAPI 3.1 document, with the custom fields defined now. */
import { apiHandler } from '../../shared/middleware';
import { json } from '../../shared/middleware/http';
import { buildOpenApi, type OpenApiDocument } from '../../shared/domain/openapi';
import { listCustomFields } from '../../shared/store/custom-fields';
import { config } from '../../shared/config';

// The document changes only with the custom fields: a warm function builds it once per set.
let cached: { key: string; document: OpenApiDocument } | undefined;

export const handler = apiHandler('api/openapi', async () => {
  const customFields = await listCustomFields();
  const key = JSON.stringify(customFields);
  if (cached?.key !== key) cached = { key, document: buildOpenApi({ customFields, authenticationClasses: config.authenticationClasses }) };
  return json(200, cached.document);
});
