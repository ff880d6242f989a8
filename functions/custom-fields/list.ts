/** GET /api/custom-fields/ (superusers): every definition, in display order, paginated. */
import { apiHandler } from '../../shared/middleware';
import { listPageResponse, pageRequest } from '../../shared/middleware/pages';
import { customFieldView } from '../../shared/domain/admin';
import { sortDefinitions } from '../../shared/domain/custom-fields';
import { listCustomFields } from '../../shared/store/custom-fields';

export const handler = apiHandler('custom-fields/list', async (event) => {
  const request = pageRequest(event);
  return listPageResponse(event, request, sortDefinitions(await listCustomFields({ fresh: true })), customFieldView);
});
