/**
 * PATCH /api/webhooks/{id}/ (superusers): `url`, `events`, `description`, `enabled` (false disables,
 * true enables again and forgets past failures). 409 for an environment receiver, or when the
 * subscription changed since it was read (the deliverer disabling it, another request).
 */
import { apiHandler } from '../../shared/middleware';
import { json } from '../../shared/middleware/http';
import { config } from '../../shared/config';
import { Conflict, NotFound } from '../../shared/domain/errors';
import { changedSubscription, parseSubscriptionBody, subscriptionView } from '../../shared/domain/subscriptions';
import { SubscriptionChanged, saveSubscription } from '../../shared/store/subscriptions';
import { storedSubscription } from './lookup';

export const handler = apiHandler('webhook-subscriptions/update', async (event) => {
  const current = await storedSubscription(event);
  const changes = parseSubscriptionBody(await event.parseBody!(), 'partial', config.webhooks.loopbackAllowed);
  const next = changedSubscription(current, changes, new Date());
  const saved = await saveSubscription(current, next).catch((error) => {
    throw error instanceof SubscriptionChanged
      ? new Conflict('The subscription changed meanwhile; read it again and repeat the change.')
      : error;
  });
  if (!saved) throw new NotFound();
  return json(200, subscriptionView(next));
});
