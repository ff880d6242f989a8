/** What the webhook workers on AWS share (the stream reader's dispatcher, Dispatch's sweep, Deliver). */
import type { WebhookContext } from './service';
import { deliveryQueue } from './queue';
import { config } from '../config';
import { webhookSecret } from './settings';

export function webhookContext(): WebhookContext {
  return {
    settings: config.webhooks.settings, // a bad URL fails the cold start, loudly, rather than each event
    allowLoopback: config.webhooks.loopbackAllowed,
    secret: webhookSecret,
    queue: deliveryQueue(),
  };
}
