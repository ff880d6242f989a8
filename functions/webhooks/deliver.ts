/**
 * The deliverer: an SQS consumer making one attempt per message. A delivery to retry stays on the
 * queue, hidden until its next attempt (ChangeMessageVisibility, up to 12 hours), and is reported
 * as a batch item failure; once the schedule is spent, SQS moves it to the dead-letter queue
 * (maxReceiveCount = attempts), whose alarm tells the operator.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { ChangeMessageVisibilityCommand, SQSClient } from '@aws-sdk/client-sqs';
import { attemptDelivery } from '../../shared/webhooks/service';
import { logger } from '../../shared/observability';
import { webhookContext } from './context';

const ctx = webhookContext();
const sqs = new SQSClient({});
const queueUrl = process.env.HELPDESK_WEBHOOK_QUEUE_URL!;

async function hideFor(receiptHandle: string, seconds: number): Promise<void> {
  await sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: receiptHandle, VisibilityTimeout: seconds }));
}

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  await Promise.all(
    event.Records.map(async (message) => {
      try {
        const { delivery } = JSON.parse(message.body) as { delivery: string };
        const result = await attemptDelivery(delivery, ctx);
        if (result.state === 'retry') {
          await hideFor(message.receiptHandle, result.inSeconds);
          batchItemFailures.push({ itemIdentifier: message.messageId });
        } else if (result.state === 'failed') {
          await hideFor(message.receiptHandle, 0); // to the dead-letter queue at once
          batchItemFailures.push({ itemIdentifier: message.messageId });
        }
      } catch (error) {
        logger.error('webhook delivery step failed', { messageId: message.messageId, error: (error as Error).message });
        batchItemFailures.push({ itemIdentifier: message.messageId });
      }
    }),
  );
  return { batchItemFailures };
}
