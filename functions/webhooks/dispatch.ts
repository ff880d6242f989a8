/**
 * The dispatcher's sweep (infra/webhooks.ts): every 15 minutes, the events still in the outbox an hour
 * after they were written, which the table stream's one reader (functions/stream/consume.ts, its
 * webhook consumer shared/webhooks/stream-dispatch.ts) did not dispatch, even from its retry queue:
 * so an event that stays in the outbox is still delivered. Dispatching is idempotent
 * (store/deliveries.ts), and an event leaves the outbox only once dispatched.
 */
import { eventsWrittenBefore } from '../../shared/store/outbox';
import { dispatchEvent, type WebhookContext } from '../../shared/webhooks/service';
import { logger } from '../../shared/observability';
import { webhookContext } from '../../shared/webhooks/context';

/** An event this old is one the stream reader gave up on (its retries take minutes, not an hour). */
export const STRANDED_AFTER_MS = 60 * 60_000;
/** Events dispatched by one scheduled run; the next run takes the rest. */
const SWEEP_LIMIT = 100;

const ctx = webhookContext();

export async function handler(): Promise<{ dispatched: number }> {
  return dispatchStranded(ctx);
}

/**
 * The scheduled run: events older than STRANDED_AFTER_MS still in the outbox. A failure fails the run (and the next one
 * tries again).
 */
async function dispatchStranded(ctx: WebhookContext): Promise<{ dispatched: number }> {
  const stranded = await eventsWrittenBefore(new Date(Date.now() - STRANDED_AFTER_MS), SWEEP_LIMIT);
  for (const event of stranded) {
    logger.warn('dispatching a webhook event the stream did not', { event: event.id, created: event.created });
    await dispatchEvent(event, ctx);
  }
  return { dispatched: stranded.length };
}
