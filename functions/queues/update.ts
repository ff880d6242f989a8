/** PATCH /api/queues/{id}/ (superusers): title and slug. */
import { apiHandler, idParam } from '../../shared/middleware';
import { json } from '../../shared/middleware/http';
import { NotFound, ValidationError } from '../../shared/domain/errors';
import { DUPLICATE_SLUG, parseQueueBody, queueView } from '../../shared/domain/admin';
import { DuplicateSlug, getQueue, updateQueue } from '../../shared/store/queues';

export const handler = apiHandler('queues/update', async (event) => {
  const queue = await getQueue(idParam(event));
  if (!queue) throw new NotFound();
  const changes = parseQueueBody(await event.parseBody!(), 'partial');
  const updated = await updateQueue(queue, changes).catch((error) => {
    if (error instanceof DuplicateSlug) throw new ValidationError({ slug: [DUPLICATE_SLUG] });
    throw error;
  });
  return json(200, queueView(updated));
});
