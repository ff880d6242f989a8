/**
 * What the deliverer and the API do with a subscription when sending: whom a delivery goes to and
 * with which secrets, the receiver's health after an attempt (auto-disable), and a ping.
 */
import { storedDateTime, wireDateTime } from '../domain/datetime';
import {
  receiverHealth,
  signingSecrets,
  subscriptionDeliveryId,
  type PingResult,
  type Subscription,
} from '../domain/subscriptions';
import { deliveryId, newEventId, signatureHeaders, USER_AGENT, type Delivery } from '../domain/webhooks';
import { createDelivery } from '../store/deliveries';
import { getSubscription, recordReceiverHealth } from '../store/subscriptions';
import { logger } from '../observability';
import { postWebhook, type SendOptions } from './send';

export type Receiver = { secrets: string[]; subscription?: Subscription } | { gone: string };

/**
 * The secrets a delivery is signed with now: an environment receiver's is the deployment's secret;
 * a subscription's are its own, read at each attempt (so a rotation applies to retries too). A
 * subscription deleted or disabled since the event was dispatched receives nothing more.
 */
export async function receiverOf(
  delivery: Delivery,
  ctx: { secret: () => Promise<string> },
  now: Date,
): Promise<Receiver> {
  if (!delivery.subscription) return { secrets: [await ctx.secret()] };
  const subscription = await getSubscription(delivery.subscription);
  if (!subscription) return { gone: 'its subscription was deleted' };
  if (!subscription.enabled) return { gone: 'its subscription is disabled' };
  return { secrets: signingSecrets(subscription, now), subscription };
}

/**
 * Records what an attempt says of the receiver (domain `receiverHealth`). A subscription disabled
 * for its failures gets an entry in the delivery log (event `subscription.disabled`), as well as a
 * warning in the logs.
 */
export async function recordHealth(
  subscription: Subscription,
  delivery: Delivery,
  delivered: boolean,
  now: Date,
): Promise<void> {
  const health = receiverHealth(subscription, delivered, now);
  if (health.change === 'answering') await recordReceiverHealth(subscription, { failingSince: null });
  else if (health.change === 'failing') await recordReceiverHealth(subscription, { failingSince: health.since });
  else if (
    health.change === 'disable' &&
    (await recordReceiverHealth(subscription, { disabledReason: health.reason, at: now.toISOString() }))
  ) {
    const entry = newEventId(now);
    await createDelivery({
      id: deliveryId(entry, 0),
      event: 'subscription.disabled',
      event_id: entry,
      url: subscription.url,
      ticket: delivery.ticket,
      followup: null,
      subscription: subscription.id,
      status: 'failed',
      attempts: 0,
      last_response_code: null,
      last_error: health.reason,
      next_attempt: null,
      created: now.toISOString(),
      body: '',
    });
    logger.warn('webhook subscription disabled: its receiver kept failing', {
      subscription: subscription.id,
      host: new URL(subscription.url).host,
    });
  }
}

/**
 * Posts a `webhook.ping` event to the subscription's receiver now, signed as its deliveries are,
 * and says what it answered. Nothing is recorded: a ping is a test, not a delivery.
 */
export async function pingSubscription(
  subscription: Subscription,
  options: SendOptions,
  now = new Date(),
): Promise<PingResult> {
  const id = subscriptionDeliveryId({ id: newEventId(now), created: now.toISOString() }, subscription.id);
  // `timestamp` in the API's date-time form, as a change event's `created` is.
  const body = JSON.stringify({
    type: 'webhook.ping',
    timestamp: wireDateTime(storedDateTime(now)),
    data: { subscription: subscription.id },
  });
  const headers = {
    ...signatureHeaders(signingSecrets(subscription, now), id, Math.floor(now.getTime() / 1000), body),
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
  };
  const outcome = await postWebhook(subscription.url, headers, body, options);
  // The answer says what failed in words; the error's own code and text are for the logs.
  if (outcome.detail)
    logger.info('webhook ping got no answer', {
      subscription: subscription.id,
      host: new URL(subscription.url).host,
      error: outcome.detail,
    });
  const delivered = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
  return { id, delivered, status: outcome.status ?? null, error: outcome.error ?? null };
}
