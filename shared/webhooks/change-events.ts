/**
 * Change events to subscriptions: each change event item inserted in the table (the change feed's
 * records, `type` CHANGE_EVENT_ITEM_TYPE) reaches the dispatcher through the table's stream (on AWS
 * the Dispatch function's second filter, locally the stream poller), which records one delivery per
 * enabled subscription listening to its type and queues it, through the same deliveries, retries
 * and log as the environment's receivers.
 */
import type { ChangeEvent } from '../domain/events';
import { subscriptionDeliveryId, subscriptionPayload } from '../domain/subscriptions';
import { listCustomFields } from '../store/custom-fields';
import { listeningSubscriptions } from '../store/subscriptions';
import { recordDeliveries, storedPayload, type WebhookContext } from './service';

// The feed's items are the store's (store/change-feed.ts, which the stream consumer writes).
export { CHANGE_EVENT_ITEM_TYPE, changeEventFromItem, isChangeEventItem } from '../store/change-feed';

/**
 * Renders the payload once (the event as the feed shows it, under the outbound policy of
 * domain/disclosure.ts) and records one delivery per subscription listening; none when the policy
 * leaves nothing of the change to show. Idempotent: a delivery's id is the event's and the
 * subscription's, so a repeated dispatch finds it.
 */
export async function dispatchChangeEvent(
  event: ChangeEvent,
  ctx: Pick<WebhookContext, 'queue' | 'settings'>,
): Promise<void> {
  const subscriptions = await listeningSubscriptions(event.event);
  if (!subscriptions.length) return;
  const staffOnly = ctx.settings.includePrivate
    ? []
    : (await listCustomFields()).filter((d) => d.staff_only).map((d) => d.name);
  const payload = subscriptionPayload(event, staffOnly, ctx.settings.includePrivate);
  if (!payload) return; // nothing of the change may be shown: nothing is sent
  const stored = storedPayload(JSON.stringify(payload), { event: event.id, ticket: event.ticket });
  await recordDeliveries(
    subscriptions.map((subscription) => ({
      ...stored,
      id: subscriptionDeliveryId(event, subscription.id),
      event: event.event,
      event_id: event.id,
      url: subscription.url,
      ticket: event.ticket,
      followup: event.followup,
      subscription: subscription.id,
      attempts: 0,
      last_response_code: null,
      created: event.created,
    })),
    ctx,
  );
}
