/**
 * POST /api/webhooks/{id}/ping (superusers): posts a signed `webhook.ping` event to the receiver
 * now (disabled subscriptions too: a way to check one before enabling it) and answers 200 with what
 * the receiver answered, whatever it was. Not recorded in the delivery log.
 */
import { apiHandler } from '../../shared/middleware';
import { json } from '../../shared/middleware/http';
import { config } from '../../shared/config';
import { pingSubscription } from '../../shared/webhooks/subscriptions';
import { storedSubscription } from './lookup';

export const handler = apiHandler('webhook-subscriptions/ping', async (event) => {
  const subscription = await storedSubscription(event);
  const result = await pingSubscription(subscription, {
    timeoutMs: config.webhooks.settings.timeoutMs,
    allowLoopback: config.webhooks.loopbackAllowed,
  });
  return json(200, result);
});
