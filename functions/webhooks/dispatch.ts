/**
 * The dispatcher: a DynamoDB Stream consumer, filtered (by the event source mapping) to inserted
 * outbox items. Each event becomes one queued delivery per receiver. A failing record is reported
 * alone (partial batch response), retried by Lambda, and after that sent to the failure queue.
 */
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { eventFromItem } from '../../shared/store/outbox';
import { dispatchEvent } from '../../shared/webhooks/service';
import { logger } from '../../shared/observability';
import { webhookContext } from './context';

const ctx = webhookContext();

export async function handler(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const batchItemFailures: DynamoDBBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    const image = record.dynamodb?.NewImage;
    if (record.eventName !== 'INSERT' || !image) continue;
    try {
      await dispatchEvent(eventFromItem(unmarshall(image as Record<string, AttributeValue>)), ctx);
    } catch (error) {
      logger.error('webhook dispatch failed', { sequence: record.dynamodb?.SequenceNumber, error: (error as Error).message });
      // Stream records are ordered: report this one and stop, so it and everything after is retried.
      batchItemFailures.push({ itemIdentifier: record.dynamodb!.SequenceNumber! });
      break;
    }
  }
  return { batchItemFailures };
}
