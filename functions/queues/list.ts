/** GET /api/queues/ (superusers): every queue, paginated. */
import { apiHandler } from '../../shared/middleware';
import { pageRequest, pageResponse } from '../../shared/middleware/pages';
import { pageWindow } from '../../shared/domain/pagination';
import { queueView } from '../../shared/domain/admin';
import { listQueues } from '../../shared/store/queues';

export const handler = apiHandler('queues/list', async (event) => {
  const request = pageRequest(event);
  const queues = await listQueues();
  const window = pageWindow(request, queues.length);
  return pageResponse(event, window, queues.length, queues.slice(window.offset, window.offset + window.limit).map(queueView));
});
