/**
 * GET /api/openapi.json: the OpenAPI 3.1 document, with the custom fields defined now; a caller who
 * is not staff is not shown the staff-only ones (their labels and choices are the staff's).
 */
import { apiHandler } from '../../shared/middleware';
import { json } from '../../shared/middleware/http';
import { finishOpenApi, type OpenApiDocument } from '../../shared/api/openapi-document';
import { openApiTemplate } from '../../shared/api/openapi-template';
import { visibleTo } from '../../shared/domain/custom-fields';
import { listCustomFields } from '../../shared/store/custom-fields';
import { config } from '../../shared/config';

// The document changes only with the custom fields shown: a warm function builds it once per set.
let cached: { key: string; document: OpenApiDocument } | undefined;

export const handler = apiHandler('api/openapi', async (event) => {
  const customFields = visibleTo(event.user!, await listCustomFields());
  const key = JSON.stringify(customFields);
  if (cached?.key !== key)
    cached = {
      key,
      document: finishOpenApi(openApiTemplate, { customFields, authenticationClasses: config.authenticationClasses }),
    };
  return json(200, cached.document);
});
