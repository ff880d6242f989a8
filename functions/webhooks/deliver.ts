/**
 * The deliverer: an SQS consumer making one attempt per message. A delivery to retry stays on the
 * queue, hidden until its next attempt (ChangeMessageVisibility, up to 12 hours), and is reported
 * as a batch item failure. Once the schedule is spent, the message is sent to the dead-letter queue
 * (whose alarm tells the operator) and removed from this one; a subscription's delivery is only
 * removed (its owner sees it in the delivery log: service.ts, AttemptResult). A receive that made
 * no attempt (an error of our own) is retried after the visibility timeout; SQS dead-letters a
 * message only when all its receives, spares included, are spent (infra/webhooks.ts).
 *
 * A put on the dead-letter queue that fails is never a silent drop: the last attempt recorded the
 * delivery as due for it (`dead_letter_due`, cleared only after the put), the message is reported
 * as a batch item failure, and its next receive puts it there again; should every spare receive
 * fail too, SQS moves the message there itself. Either way the alarm fires.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { config } from '../../shared/config';
import { attemptDelivery } from '../../shared/webhooks/service';
import { logger } from '../../shared/observability';
import { recordDeadLettered } from '../../shared/store/deliveries';
import { hideMessage, sendMessage } from '../../shared/aws/sqs';
import { webhookContext } from '../../shared/webhooks/context';

const ctx = webhookContext();
const queueUrl = config.webhooks.queueUrl!;
const deadLetterUrl = config.webhooks.deadLetterUrl!;

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  await Promise.all(
    event.Records.map(async (message) => {
      try {
        const { delivery } = JSON.parse(message.body) as { delivery: string };
        const result = await attemptDelivery(delivery, ctx);
        if (result.state === 'retry') {
          await hideMessage(queueUrl, message.receiptHandle, result.inSeconds);
          batchItemFailures.push({ itemIdentifier: message.messageId });
        } else if (result.state === 'failed' && result.deadLetter) {
          await sendMessage(deadLetterUrl, message.body); // then consumed here
          // Only now: a put that failed left the delivery due, so the message's next receive puts it again.
          await recordDeadLettered(delivery);
        }
      } catch (error) {
        logger.error('webhook delivery step failed', { messageId: message.messageId, error: (error as Error).message });
        batchItemFailures.push({ itemIdentifier: message.messageId });
      }
    }),
  );
  return { batchItemFailures };
}
