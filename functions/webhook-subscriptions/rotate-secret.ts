/**
 * POST /api/webhooks/{id}/rotate-secret (superusers): a new signing secret, in this answer only.
 * The old one keeps signing beside it (two `v1,` signatures) for `keep_previous_for` seconds
 * (default a day, 0 to stop at once), so the receiver can switch without missing a delivery.
 */
import { apiHandler } from '../../shared/middleware';
import { json } from '../../shared/middleware/http';
import { Conflict, NotFound } from '../../shared/domain/errors';
import { parseRotationBody, rotatedSubscription, subscriptionWithSecretView } from '../../shared/domain/subscriptions';
import { SubscriptionChanged, saveSubscription } from '../../shared/store/subscriptions';
import { storedSubscription } from './lookup';

export const handler = apiHandler('webhook-subscriptions/rotate-secret', async (event) => {
  const current = await storedSubscription(event);
  const next = rotatedSubscription(current, parseRotationBody(await event.parseBody!()), new Date());
  const saved = await saveSubscription(current, next).catch((error) => {
    throw error instanceof SubscriptionChanged
      ? new Conflict('The subscription changed meanwhile; rotate again.')
      : error;
  });
  if (!saved) throw new NotFound();
  return json(200, subscriptionWithSecretView(next));
});
