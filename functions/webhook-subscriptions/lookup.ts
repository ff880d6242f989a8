/** What the subscription routes share: the one a path names, and the environment's read-only ones. */
import type { ApiEvent } from '../../shared/middleware';
import { config } from '../../shared/config';
import { Conflict, NotFound } from '../../shared/domain/errors';
import {
  ENVIRONMENT_ID,
  SUBSCRIPTION_ID,
  environmentSubscriptionViews,
  type Subscription,
} from '../../shared/domain/subscriptions';
import { getSubscription } from '../../shared/store/subscriptions';

/** The environment's receivers, as the list shows them. */
export const environmentSubscriptions = () => environmentSubscriptionViews(config.webhooks.settings.urls);

/**
 * The stored subscription `{id}` names, for a route that changes or uses it: 404 if none, and 409
 * for an environment receiver, which only a redeploy changes.
 */
export async function storedSubscription(event: ApiEvent): Promise<Subscription> {
  const id = event.pathParameters?.id ?? '';
  if (ENVIRONMENT_ID.test(id) && environmentSubscriptions().some((s) => s.id === id)) {
    throw new Conflict(
      'This subscription comes from the environment (its source variable): it is read-only here; change the ' +
        'variable and redeploy.',
    );
  }
  const subscription = SUBSCRIPTION_ID.test(id) ? await getSubscription(id) : undefined;
  if (!subscription) throw new NotFound();
  return subscription;
}
