/** GET /api/queues/ (superusers): every queue, paginated. */
import { apiHandler } from '../../shared/middleware';
import { listPageResponse, pageRequest } from '../../shared/middleware/pages';
import { queueView } from '../../shared/domain/admin';
import { listQueues } from '../../shared/store/queues';

export const handler = apiHandler('queues/list', async (event) => {
  const request = pageRequest(event);
  return listPageResponse(event, request, await listQueues(), queueView);
});
