/** GET /api/mail/templates/ (superusers): every template override, global ones first per kind. */
import { apiHandler } from '../../shared/middleware';
import { listPageResponse, pageRequest } from '../../shared/middleware/pages';
import { templateOverrideView } from '../../shared/domain/template-overrides';
import { listTemplateOverrides } from '../../shared/store/template-overrides';

export const handler = apiHandler('mail-templates/list', async (event) => {
  const request = pageRequest(event);
  return listPageResponse(event, request, await listTemplateOverrides({ fresh: true }), templateOverrideView);
});
