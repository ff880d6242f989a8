/**
 * A stream consumer's retry queue drained (infra/stream-consumer.ts): each message holds the records
 * a consumer failed on in the one reader's batch (consume.ts), applied again by the same consumer's
 * code. A message that fails again is reported alone, received again after the queue's visibility
 * timeout, and after its receives moved to that consumer's dead-letter queue (alarmed: the runbook in
 * docs/operations.md redrives it once the cause is fixed). A message of several records that fails is applied again
 * one record at a time (fan-out.ts `retryRecords`): the others are applied although one fails every time; the
 * message is kept whole, and its next receives repeat them, which every consumer takes as a repeat.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '../../shared/observability';
import { retryRecords, type RetryMessage } from '../../shared/consumer/fan-out';
import { streamConsumers } from './consumers';

const consumers = streamConsumers();

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const message of event.Records) {
    try {
      await retryRecords(JSON.parse(message.body) as RetryMessage, consumers);
    } catch (error) {
      logger.error('stream consumer retry failed', {
        message: message.messageId,
        receives: message.attributes.ApproximateReceiveCount,
        error: (error as Error).message,
      });
      batchItemFailures.push({ itemIdentifier: message.messageId });
    }
  }
  return { batchItemFailures };
}
