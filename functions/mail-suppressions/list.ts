/** GET /api/mail/suppressions/ (superusers): the addresses no mail goes to, and why. */
import { apiHandler } from '../../shared/middleware';
import { listPageResponse, pageRequest } from '../../shared/middleware/pages';
import { suppressionView } from '../../shared/domain/mail-settings';
import { listSuppressions } from '../../shared/store/suppressions';

export const handler = apiHandler('mail-suppressions/list', async (event) => {
  const request = pageRequest(event);
  return listPageResponse(event, request, await listSuppressions(), suppressionView);
});
