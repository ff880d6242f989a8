/** DELETE /api/queues/{id}/ (superusers): refused with 409 while tickets use the queue. */
import { apiHandler, idParam } from '../../shared/middleware';
import { noContent } from '../../shared/middleware/http';
import { Conflict, NotFound } from '../../shared/domain/errors';
import { QueueInUse, deleteQueue, getQueue } from '../../shared/store/queues';

export const handler = apiHandler('queues/delete', async (event) => {
  const queue = await getQueue(idParam(event));
  if (!queue) throw new NotFound();
  await deleteQueue(queue).catch((error) => {
    if (error instanceof QueueInUse) throw new Conflict('This queue still has tickets: move or delete them before deleting the queue.');
    throw error;
  });
  return noContent();
});
