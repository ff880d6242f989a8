/**
 * The webhook pipeline, shared by AWS (stream → dispatcher → SQS → deliverer) and the local runtime
 * (an in-process poller and timers over the same items):
 *
 *   outbox event ──dispatchEvent──▶ one delivery per receiver URL ──attemptDelivery──▶ receiver
 *
 * Both steps are idempotent: dispatching an event twice finds its deliveries already there, and an
 * attempt is recorded only if no other worker recorded one meanwhile. Delivery is at least once.
 */
import { disclosedCollection } from '../domain/disclosure';
import {
  afterAttempt,
  deliveryId,
  signatureHeaders,
  webhookPayload,
  USER_AGENT,
  type Delivery,
  type WebhookSettings,
} from '../domain/webhooks';
import { ticketView } from '../domain/views';
import { eventActor } from '../domain/actor';
import { listCustomFields } from '../store/custom-fields';
import { createDelivery, getDelivery, recordAttempt } from '../store/deliveries';
import { removeEvent, type OutboxEvent } from '../store/outbox';
import { getQueue } from '../store/queues';
import { readTicket } from '../store/tickets';
import { logger } from '../observability';
import { postWebhook } from './send';
import { receiverOf, recordHealth } from './subscriptions';

/**
 * The largest payload a delivery record can hold (a DynamoDB item is at most 400 KB). A ticket
 * whose followups add up to more is recorded as a failed delivery saying so, rather than blocking
 * the events behind it.
 */
export const MAX_STORED_PAYLOAD_BYTES = 350_000;

/** Where deliveries wait for their next attempt: SQS on AWS, timers in the local runtime. */
export interface DeliveryQueue {
  enqueue(deliveryId: string, delaySeconds: number): Promise<void>;
}

export interface WebhookContext {
  settings: WebhookSettings;
  queue: DeliveryQueue;
  /** Loopback receivers are allowed only in the local runtime. */
  allowLoopback: boolean;
  secret: () => Promise<string>;
}

/**
 * Renders the event's payload once (the ticket as it stands now, just after the write), records one
 * delivery per receiver and queues each (recordDeliveries), then removes the event.
 */
export async function dispatchEvent(event: OutboxEvent, ctx: WebhookContext): Promise<void> {
  const urls = ctx.settings.urls[event.event];
  if (urls.length) {
    const [collection, defs] = await Promise.all([readTicket(event.ticket), listCustomFields()]);
    if (!collection) {
      logger.warn('webhook event dropped: its ticket was deleted before dispatch', {
        event: event.id,
        ticket: event.ticket,
      });
    } else {
      const queue = await getQueue(collection.ticket.queue);
      const shown = disclosedCollection(collection, defs, ctx.settings.includePrivate);
      const body = JSON.stringify(
        webhookPayload(
          event.event,
          ticketView(event.base_url, shown.collection, shown.defs),
          queue?.slug ?? '',
          event.followup ?? undefined,
          eventActor(event.written_by),
        ),
      );
      const stored = storedPayload(body, { event: event.id, ticket: event.ticket });
      await recordDeliveries(
        urls.map((url, position) => ({
          ...stored,
          id: deliveryId(event.id, position),
          event: event.event,
          event_id: event.id,
          url,
          ticket: event.ticket,
          followup: event.followup,
          attempts: 0,
          last_response_code: null,
          created: event.created,
        })),
        ctx,
      );
    }
  }
  await removeEvent(event.id);
}

/**
 * A new delivery's payload and state: pending now, or, for a payload over MAX_STORED_PAYLOAD_BYTES,
 * failed with an empty body and a `last_error` saying why.
 */
export function storedPayload(
  body: string,
  about: Record<string, unknown>,
): Pick<Delivery, 'body' | 'status' | 'last_error' | 'next_attempt'> {
  const size = Buffer.byteLength(body);
  if (size <= MAX_STORED_PAYLOAD_BYTES)
    return { body, status: 'pending', last_error: null, next_attempt: new Date().toISOString() };
  logger.error('webhook payload too large to store; recorded as failed', { ...about, bytes: size });
  return {
    body: '',
    status: 'failed',
    last_error: `payload of ${size} bytes is over the ${MAX_STORED_PAYLOAD_BYTES} a delivery can hold`,
    next_attempt: null,
  };
}

/**
 * Records each delivery and queues it. One found already there (a repeated dispatch) is queued
 * again only if no attempt was made yet: at least once, not twice.
 */
export async function recordDeliveries(deliveries: Delivery[], ctx: Pick<WebhookContext, 'queue'>): Promise<void> {
  for (const delivery of deliveries) {
    const created = await createDelivery(delivery);
    const existing = created ? undefined : await getDelivery(delivery.id);
    if ((created && delivery.status === 'pending') || (existing?.status === 'pending' && existing.attempts === 0))
      await ctx.queue.enqueue(delivery.id, 0);
  }
}

/**
 * `failed`: the schedule is spent. `deadLetter` says whether the operator's dead-letter queue (and
 * its alarm) takes it: the environment's receivers are the operator's; a subscription's receiver is
 * its owner's, whose failures the delivery log and the subscription's own health (failing_since,
 * then automatic disabling) report, so a customer's receiver being down pages no one.
 */
export type AttemptResult =
  { state: 'delivered' | 'skipped' } | { state: 'failed'; deadLetter: boolean } | { state: 'retry'; inSeconds: number };

/** One attempt at one delivery, recorded; says whether and when to try again. */
export async function attemptDelivery(id: string, ctx: WebhookContext, now = () => new Date()): Promise<AttemptResult> {
  const delivery = await getDelivery(id);
  // Its last attempt was made, but its put on the dead-letter queue failed (or was never made): again.
  if (delivery?.status === 'failed' && delivery.dead_letter_due) return { state: 'failed', deadLetter: true };
  if (!delivery || delivery.status !== 'pending') return { state: 'skipped' };
  const receiver = await receiverOf(delivery, ctx, now());
  if ('gone' in receiver) {
    // Nothing to send to: the delivery ends here, without the dead-letter queue's alarm.
    await recordAttempt(delivery, {
      status: 'failed',
      attempts: delivery.attempts,
      last_response_code: null,
      last_error: receiver.gone,
      next_attempt: null,
    });
    return { state: 'skipped' };
  }
  const timestamp = Math.floor(now().getTime() / 1000);
  const headers = {
    ...signatureHeaders(receiver.secrets, delivery.id, timestamp, delivery.body),
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
  };
  // A subscription's URL as it is now: a PATCH that moved the receiver moves its retries too.
  const url = receiver.subscription?.url ?? delivery.url;
  const outcome = await postWebhook(url, headers, delivery.body, {
    timeoutMs: ctx.settings.timeoutMs,
    allowLoopback: ctx.allowLoopback,
  });
  const next = afterAttempt(delivery, outcome, ctx.settings.retryDelays, now());
  const { retryInSeconds, ...record } = next;
  const deadLetter = next.status === 'failed' && !receiver.subscription;
  if (!(await recordAttempt(delivery, { ...record, ...(deadLetter ? { dead_letter_due: true } : {}) })))
    return { state: 'skipped' };
  if (receiver.subscription) await recordHealth(receiver.subscription, delivery, next.status === 'delivered', now());
  // The receiver's host only: a URL's path or query may hold its own secret (Slack-style hooks).
  const entry = {
    delivery: delivery.id,
    host: new URL(url).host,
    attempt: next.attempts,
    status: outcome.status,
    error: outcome.detail ?? outcome.error,
  };
  if (next.status === 'pending') logger.warn('webhook attempt failed, will retry', entry);
  else if (next.status === 'failed') logger.error('webhook failed on every attempt of the schedule', entry);
  else logger.info('webhook delivered', entry);
  if (next.status === 'pending') return { state: 'retry', inSeconds: retryInSeconds! };
  return next.status === 'failed' ? { state: 'failed', deadLetter } : { state: next.status };
}
