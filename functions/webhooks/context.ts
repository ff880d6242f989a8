/** What the two webhook functions share: settings validated at cold start, the queue, the logger. */
import type { WebhookContext } from '../../shared/webhooks/service';
import { deliveryQueue } from '../../shared/webhooks/queue';
import { config } from '../../shared/config';
import { webhookSecret } from '../../shared/webhooks/settings';

export function webhookContext(): WebhookContext {
  return {
    settings: config.webhooks.settings, // a bad URL fails the cold start, loudly, rather than each event
    allowLoopback: config.webhooks.loopbackAllowed,
    secret: webhookSecret,
    queue: deliveryQueue(),
  };
}
