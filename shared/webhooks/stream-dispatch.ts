/**
 * Webhook dispatch as a consumer of the table's stream (the one reader fans each batch out to it:
 * shared/consumer/fan-out.ts, on AWS functions/stream/consume.ts, locally infra/local/table-stream.ts):
 * inserted outbox events (environment receivers) and inserted change events (subscriptions), each
 * dispatched as one queued delivery per receiver. Idempotent: a delivery's id is its event's id and
 * the receiver's position (domain/webhooks.ts `deliveryId`, domain/subscriptions.ts), written only if
 * absent, so records applied again, or late, queue nothing twice. Typed by shape, not by the
 * consumer's types: the webhook service sits beside the stream consumer, not above it.
 */
import type { FilterPattern } from '../domain/stream-filters';
import { eventFromItem, OUTBOX_ITEM_TYPE } from '../store/outbox';
import { changeEventFromItem, CHANGE_EVENT_ITEM_TYPE, dispatchChangeEvent, isChangeEventItem } from './change-events';
import { dispatchEvent, type WebhookContext } from './service';

/** The consumer's name: its retry queue's, in logs and in the consumer's timings. */
export const WEBHOOK_CONSUMER = 'webhook dispatch';

/** Inserted outbox events and change events. */
export const WEBHOOK_FILTERS: readonly FilterPattern[] = [
  { eventName: ['INSERT'], dynamodb: { NewImage: { type: { S: [OUTBOX_ITEM_TYPE] } } } },
  { eventName: ['INSERT'], dynamodb: { NewImage: { type: { S: [CHANGE_EVENT_ITEM_TYPE] } } } },
];

interface InsertedItem {
  eventName: string;
  newImage?: Record<string, unknown>;
}

/** The dispatcher of `ctx`'s receivers, as a stream consumer. In stream order; the first failure stops it. */
export function webhookDispatcher(ctx: WebhookContext) {
  return {
    name: WEBHOOK_CONSUMER,
    filters: WEBHOOK_FILTERS,
    async apply(changes: readonly InsertedItem[]): Promise<void> {
      for (const { eventName, newImage: item } of changes) {
        if (eventName !== 'INSERT' || !item) continue;
        if (isChangeEventItem(item)) await dispatchChangeEvent(changeEventFromItem(item), ctx);
        else if (item.type === OUTBOX_ITEM_TYPE) await dispatchEvent(eventFromItem(item), ctx);
      }
    },
  };
}
