/**
 * Where deliveries wait for their next attempt. On AWS an SQS queue (HELPDESK_WEBHOOK_QUEUE_URL);
 * in the local runtime its in-process timers, registered at start.
 */
import { config } from '../config';
import { MAX_SQS_DELAY_SECONDS, sendMessage } from '../aws/sqs';
import type { DeliveryQueue } from './service';

let local: DeliveryQueue | undefined;

/** The local runtime's queue, for the handlers it runs in the same process. */
export function useLocalDeliveryQueue(queue: DeliveryQueue | undefined): void {
  local = queue;
}

let sqs: DeliveryQueue | undefined;

export function deliveryQueue(): DeliveryQueue {
  if (local) return local;
  const url = config.webhooks.queueUrl;
  if (!url) throw new Error('HELPDESK_WEBHOOK_QUEUE_URL is not set');
  sqs ??= sqsQueue(url);
  return sqs;
}

function sqsQueue(url: string): DeliveryQueue {
  return {
    async enqueue(deliveryId, delaySeconds) {
      await sendMessage(url, JSON.stringify({ delivery: deliveryId }), Math.min(delaySeconds, MAX_SQS_DELAY_SECONDS));
    },
  };
}
