/** POST /api/queues/ (superusers): `title` and a unique `slug`. */
import { apiHandler } from '../../shared/middleware';
import { json } from '../../shared/middleware/http';
import { ValidationError } from '../../shared/domain/errors';
import { DUPLICATE_SLUG, parseQueueBody, queueView } from '../../shared/domain/admin';
import { DuplicateSlug, createQueue, type NewQueue } from '../../shared/store/queues';

export const handler = apiHandler('queues/create', async (event) => {
  const fields = parseQueueBody(await event.parseBody!(), 'create') as NewQueue;
  const queue = await createQueue(fields).catch((error) => {
    throw error instanceof DuplicateSlug ? new ValidationError({ slug: [DUPLICATE_SLUG] }) : error;
  });
  return json(201, queueView(queue));
});
