/** GET /api/queues/{id}/ (superusers) */
import { apiHandler, idParam } from '../../shared/middleware';
import { json } from '../../shared/middleware/http';
import { NotFound } from '../../shared/domain/errors';
import { queueView } from '../../shared/domain/admin';
import { getQueue } from '../../shared/store/queues';

export const handler = apiHandler('queues/get', async (event) => {
  const queue = await getQueue(idParam(event));
  if (!queue) throw new NotFound();
  return json(200, queueView(queue));
});
