/** GET /api/ignored-senders/ (superusers): every ignored sender, paginated. */
import { apiHandler } from '../../shared/middleware';
import { listPageResponse, pageRequest } from '../../shared/middleware/pages';
import { ignoredSenderView } from '../../shared/domain/ignored-senders';
import { listIgnoredSenders } from '../../shared/store/ignored-senders';

export const handler = apiHandler('ignored-senders/list', async (event) => {
  const request = pageRequest(event);
  return listPageResponse(event, request, await listIgnoredSenders(), ignoredSenderView);
});
