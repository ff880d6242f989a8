/**
 * DELETE /api/webhooks/{id}/ (superusers): its pending deliveries end at their next attempt. 409 for an environment
 * receiver.
 */
import { apiHandler } from '../../shared/middleware';
import { noContent } from '../../shared/middleware/http';
import { NotFound } from '../../shared/domain/errors';
import { deleteSubscription } from '../../shared/store/subscriptions';
import { storedSubscription } from './lookup';

export const handler = apiHandler('webhook-subscriptions/delete', async (event) => {
  const subscription = await storedSubscription(event);
  if (!(await deleteSubscription(subscription.id))) throw new NotFound();
  return noContent();
});
