/** GET /api/webhooks/{id}/ (superusers): a subscription, or one of the environment's receivers; never a secret. */
import { apiHandler } from '../../shared/middleware';
import { json } from '../../shared/middleware/http';
import { NotFound } from '../../shared/domain/errors';
import { SUBSCRIPTION_ID, subscriptionView } from '../../shared/domain/subscriptions';
import { getSubscription } from '../../shared/store/subscriptions';
import { environmentSubscriptions } from './lookup';

export const handler = apiHandler('webhook-subscriptions/get', async (event) => {
  const id = event.pathParameters?.id ?? '';
  const fromEnvironment = environmentSubscriptions().find((s) => s.id === id);
  if (fromEnvironment) return json(200, fromEnvironment);
  const subscription = SUBSCRIPTION_ID.test(id) ? await getSubscription(id) : undefined;
  if (!subscription) throw new NotFound();
  return json(200, subscriptionView(subscription));
});
