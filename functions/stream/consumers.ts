/**
 * The consumers the table stream's one reader fans out to on AWS (consume.ts) and its retry handler
 * runs again (retry.ts): the table changes' (consumer/table-changes.ts: ticket state, change feed,
 * time spent, and the search index where search is on), webhook dispatch, and mail where the
 * environment sends it. Each failed consumer's records go to its own SQS retry queue.
 */
import { config } from '../../shared/config';
import type { FilteredConsumer } from '../../shared/consumer/changes';
import { retryMessages, type RetrySink } from '../../shared/consumer/fan-out';
import { STREAM_CONSUMERS } from '../../shared/consumer/table-changes';
import { sendMessage } from '../../shared/aws/sqs';
import { mailConsumer, sqsMailQueue } from '../../shared/mail/queue-mail';
import { webhookContext } from '../../shared/webhooks/context';
import { webhookDispatcher } from '../../shared/webhooks/stream-dispatch';

/** SQS's largest message (1 MiB), less room for its attributes. */
export const RETRY_MESSAGE_BYTES = 1_000_000;
/** A retried consumer's records wait this long first (SQS's DelaySeconds): a throttled table or a deploy passes. */
export const RETRY_DELAY_SECONDS = 30;

export function streamConsumers(): FilteredConsumer[] {
  const mailQueue = config.mail.queueUrl;
  return [
    ...STREAM_CONSUMERS.filter((c) => c.name !== 'search index' || config.search.engine !== 'off'),
    webhookDispatcher(webhookContext()),
    ...(mailQueue ? [mailConsumer(sqsMailQueue(mailQueue))] : []),
  ];
}

/** Each consumer's retry queue (HELPDESK_STREAM_RETRY_QUEUES): a consumer without one fails the batch instead. */
export const sqsRetrySink: RetrySink = {
  async retry(consumer, records) {
    const url = config.stream.retryQueues[consumer];
    if (!url) throw new Error(`stream consumer "${consumer}" has no retry queue`);
    for (const body of retryMessages(consumer, records, RETRY_MESSAGE_BYTES))
      await sendMessage(url, body, RETRY_DELAY_SECONDS);
  },
};
