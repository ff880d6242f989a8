/**
 * DELETE /api/queues/{id}/ (superusers): refused with 409 while tickets use the queue, or while
 * tickets being created in or moved to it are not yet in the counts (docs/data-model.md, "Deleting a queue").
 */
import { apiHandler, idParam } from '../../shared/middleware';
import { noContent } from '../../shared/middleware/http';
import { Conflict, NotFound } from '../../shared/domain/errors';
import { QUEUE_DELETE_REFUSALS } from '../../shared/domain/queue-delete';
import { QueueBeingDeleted, QueueFilling, QueueInUse, deleteQueue, getQueue } from '../../shared/store/queues';

export const handler = apiHandler('queues/delete', async (event) => {
  const queue = await getQueue(idParam(event));
  if (!queue) throw new NotFound();
  await deleteQueue(queue).catch((error) => {
    if (error instanceof QueueInUse) throw new Conflict(QUEUE_DELETE_REFUSALS.inUse);
    if (error instanceof QueueFilling) throw new Conflict(QUEUE_DELETE_REFUSALS.filling);
    if (error instanceof QueueBeingDeleted) throw new Conflict(QUEUE_DELETE_REFUSALS.beingDeleted);
    throw error;
  });
  return noContent();
});
