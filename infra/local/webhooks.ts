/**
 * Webhooks in the local runtime: the same dispatch and delivery code as on AWS, driven in-process.
 * The table stream's poller fans its batches out to the same webhook consumer as the one reader on
 * AWS (shared/webhooks/stream-dispatch.ts: outbox events and change events), a poller sweeps the
 * outbox for events left there (where AWS has Dispatch's 15-minute schedule), and timers hold the
 * deliveries waiting for their next attempt (where AWS has SQS). Everything they need is in the
 * table, so a restart loses nothing: events still in the outbox are dispatched, and pending
 * deliveries are resumed at their recorded next attempt. The dispatcher's and the deliveries' calls
 * are held to the grants of their functions on AWS (webhooks/dispatch and webhooks/deliver).
 */
import { newWebhookSecret } from '../../shared/domain/webhooks';
import { logger } from '../../shared/observability';
import { pendingDeliveries, recordDeadLettered } from '../../shared/store/deliveries';
import { pendingEvents } from '../../shared/store/outbox';
import { attemptDelivery, dispatchEvent, type WebhookContext } from '../../shared/webhooks/service';
import { useLocalDeliveryQueue } from '../../shared/webhooks/queue';
import { config } from '../../shared/config';
import { webhookSecret } from '../../shared/webhooks/settings';
import { webhookDispatcher } from '../../shared/webhooks/stream-dispatch';
import type { FilteredConsumer } from '../../shared/consumer/changes';
import { WEBHOOK_DELIVER_GRANTS, WEBHOOK_DISPATCH_GRANTS } from '../../shared/api/table-access';
import { asFunction, consumerAs } from './table-access';
import { ensureLocalSecret } from './secrets';

/** An outbox event this old is one the stream's consumer did not dispatch (AWS: an hour, Dispatch's sweep). */
const STRANDED_MS = 10_000;
/**
 * How often the outbox is swept for such events: a Query each time, for events that wait STRANDED_MS
 * before they are taken anyway (every 200 ms it was five Queries a second, all the while receivers
 * are set).
 */
const POLL_MS = 2000;
/** After an error of our own (the engines busy, say): try that step again this much later. */
const RECOVER_MS = 2000;

export interface LocalWebhooks {
  /** Set when this start made the signing secret (printed once, as the admin password is). */
  generatedSecret?: string;
  /** The webhook consumer of the table's stream (the local stream poller fans out to it), held to its grants. */
  consumer: FilteredConsumer;
  stop(): Promise<void>;
}

/** HELPDESK_WEBHOOK_SECRET, else one kept in the data directory (made on first use). */
const ensureSecret = (dataDir: string) =>
  ensureLocalSecret(dataDir, 'HELPDESK_WEBHOOK_SECRET', 'webhook-secret', newWebhookSecret);

export async function startLocalWebhooks(dataDir: string): Promise<LocalWebhooks> {
  const settings = config.webhooks.settings; // refuses to start on a bad URL
  const listening = Object.values(settings.urls).some((urls) => urls.length > 0);
  const resumed = await pendingDeliveries();
  const generated = listening || resumed.length ? ensureSecret(dataDir) : undefined;
  const timers = new Set<NodeJS.Timeout>();
  const running = new Set<Promise<unknown>>();
  let stopped = false;

  const track = (work: Promise<unknown>) => {
    running.add(work);
    void work.finally(() => running.delete(work));
  };
  const later = (ms: number, step: () => Promise<void>) => {
    if (stopped) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!stopped) track(step());
    }, ms);
    timers.add(timer);
  };
  const ctx: WebhookContext = {
    settings,
    allowLoopback: config.webhooks.loopbackAllowed,
    secret: webhookSecret,
    queue: {
      enqueue: (id, delaySeconds) => {
        later(delaySeconds * 1000, () => deliver(id));
        return Promise.resolve();
      },
    },
  };

  async function deliver(id: string): Promise<void> {
    try {
      const result = await asFunction('webhooks/deliver', WEBHOOK_DELIVER_GRANTS, async () => {
        const attempt = await attemptDelivery(id, ctx);
        // No dead-letter queue locally: the error the attempt logged and the delivery log are its record.
        if (attempt.state === 'failed' && attempt.deadLetter) await recordDeadLettered(id);
        return attempt;
      });
      if (result.state === 'retry') await ctx.queue.enqueue(id, result.inSeconds);
    } catch (error) {
      logger.error('webhook delivery step failed; retrying', { delivery: id, error: (error as Error).message });
      later(RECOVER_MS, () => deliver(id));
    }
  }

  async function poll(): Promise<void> {
    let wait = POLL_MS;
    try {
      const events = await asFunction('webhooks/dispatch', WEBHOOK_DISPATCH_GRANTS, () => pendingEvents(25));
      for (const event of events.filter((e) => Date.parse(e.created) < Date.now() - STRANDED_MS)) {
        if (stopped) return;
        await asFunction('webhooks/dispatch', WEBHOOK_DISPATCH_GRANTS, () => dispatchEvent(event, ctx));
      }
    } catch (error) {
      logger.error('webhook dispatch failed; retrying', { error: (error as Error).message });
      wait = RECOVER_MS;
    }
    // Without receivers no event is written; one pass clears any left from an earlier run.
    if (listening) later(wait, poll);
  }

  useLocalDeliveryQueue(ctx.queue);
  const now = Date.now();
  for (const delivery of resumed) {
    later(Math.max(0, Date.parse(delivery.next_attempt ?? '') - now || 0), () => deliver(delivery.id));
  }
  track(poll());

  return {
    generatedSecret: generated,
    consumer: consumerAs('webhooks/dispatch', WEBHOOK_DISPATCH_GRANTS, webhookDispatcher(ctx)),
    async stop() {
      stopped = true;
      useLocalDeliveryQueue(undefined);
      timers.forEach(clearTimeout);
      timers.clear();
      await Promise.allSettled([...running]);
    },
  };
}
