/** GET /api/openapi.json: the OpenAPI 3.1 document, with the custom fields defined now. */
import { apiHandler } from '../../shared/middleware';
import { json } from '../../shared/middleware/http';
import { buildOpenApi } from '../../shared/domain/openapi';
import { listCustomFields } from '../../shared/store/custom-fields';

export const handler = apiHandler('api/openapi', async () => json(200, buildOpenApi({ customFields: await listCustomFields() })));
