/** GET /api/custom-fields/ (superusers): every definition, in display order, paginated. */
import { apiHandler } from '../../shared/middleware';
import { pageRequest, pageResponse } from '../../shared/middleware/pages';
import { pageWindow } from '../../shared/domain/pagination';
import { customFieldView } from '../../shared/domain/admin';
import { sortDefinitions } from '../../shared/domain/custom-fields';
import { listCustomFields } from '../../shared/store/custom-fields';

export const handler = apiHandler('custom-fields/list', async (event) => {
  const request = pageRequest(event);
  const defs = sortDefinitions(await listCustomFields({ fresh: true }));
  const window = pageWindow(request, defs.length);
  return pageResponse(event, window, defs.length, defs.slice(window.offset, window.offset + window.limit).map(customFieldView));
});
