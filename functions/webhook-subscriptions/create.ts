/**
 * POST /api/webhooks/ (superusers): a subscription (`url`, `events`, optional `description` and
 * `enabled`). Its signing secret is in this answer and never shown again.
 */
import { apiHandler } from '../../shared/middleware';
import { json } from '../../shared/middleware/http';
import { config } from '../../shared/config';
import { ValidationError } from '../../shared/domain/errors';
import {
  MAX_SUBSCRIPTIONS,
  newSubscription,
  parseSubscriptionBody,
  subscriptionWithSecretView,
  type Subscription,
} from '../../shared/domain/subscriptions';
import { createSubscription, TooManySubscriptions } from '../../shared/store/subscriptions';

export const handler = apiHandler('webhook-subscriptions/create', async (event) => {
  const fields = parseSubscriptionBody(await event.parseBody!(), 'create', config.webhooks.loopbackAllowed) as Pick<
    Subscription,
    'url' | 'events'
  >;
  const subscription = newSubscription(fields, new Date());
  try {
    await createSubscription(subscription, MAX_SUBSCRIPTIONS);
  } catch (error) {
    if (error instanceof TooManySubscriptions) {
      throw new ValidationError({
        non_field_errors: [
          `There are ${MAX_SUBSCRIPTIONS} subscriptions already, the most there may be; delete one first.`,
        ],
      });
    }
    throw error;
  }
  return json(201, subscriptionWithSecretView(subscription));
});
