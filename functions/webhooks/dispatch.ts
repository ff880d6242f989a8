/**
 * The dispatcher. Its main trigger is a DynamoDB Stream consumer, filtered (by the event source
 * mapping) to inserted outbox items, each of which becomes one queued delivery per environment
 * receiver, and inserted change event items, each one queued delivery per subscription listening. A failing
 * record is reported alone (partial batch response), retried by Lambda, and after that sent to the
 * failure queue (with an alarm). A schedule (infra/webhooks.ts) also runs it to dispatch what the
 * stream never did, so an event that stays in the outbox is still delivered: dispatching is
 * idempotent (store/deliveries.ts), and an event leaves the outbox only once dispatched.
 */
import type { DynamoDBBatchResponse, DynamoDBStreamEvent, ScheduledEvent } from 'aws-lambda';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { eventFromItem, eventsWrittenBefore } from '../../shared/store/outbox';
import { dispatchEvent, type WebhookContext } from '../../shared/webhooks/service';
import { logger } from '../../shared/observability';
import { changeEventFromItem, dispatchChangeEvent, isChangeEventItem } from '../../shared/webhooks/change-events';
import { webhookContext } from './context';

/** An event this old is one the stream gave up on (its retries take minutes, not an hour). */
export const STRANDED_AFTER_MS = 60 * 60_000;
/** Events dispatched by one scheduled run; the next run takes the rest. */
const SWEEP_LIMIT = 100;

const ctx = webhookContext();

export async function handler(
  event: DynamoDBStreamEvent | ScheduledEvent,
): Promise<DynamoDBBatchResponse | { dispatched: number }> {
  return 'Records' in event ? dispatchStream(event, ctx) : dispatchStranded(ctx);
}

async function dispatchStream(event: DynamoDBStreamEvent, ctx: WebhookContext): Promise<DynamoDBBatchResponse> {
  const batchItemFailures: DynamoDBBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    const image = record.dynamodb?.NewImage;
    if (record.eventName !== 'INSERT' || !image) continue;
    try {
      const item = unmarshall(image as Record<string, AttributeValue>);
      if (isChangeEventItem(item)) await dispatchChangeEvent(changeEventFromItem(item), ctx);
      else await dispatchEvent(eventFromItem(item), ctx);
    } catch (error) {
      logger.error('webhook dispatch failed', {
        sequence: record.dynamodb?.SequenceNumber,
        error: (error as Error).message,
      });
      // Stream records are ordered: report this one and stop, so it and everything after is retried.
      batchItemFailures.push({ itemIdentifier: record.dynamodb!.SequenceNumber! });
      break;
    }
  }
  return { batchItemFailures };
}

/**
 * The scheduled run: events older than STRANDED_AFTER_MS still in the outbox. A failure fails the run (and the next one
 * tries again).
 */
async function dispatchStranded(ctx: WebhookContext): Promise<{ dispatched: number }> {
  const stranded = await eventsWrittenBefore(new Date(Date.now() - STRANDED_AFTER_MS), SWEEP_LIMIT);
  for (const event of stranded) {
    logger.warn('dispatching a webhook event the stream did not', { event: event.id, created: event.created });
    await dispatchEvent(event, ctx);
  }
  return { dispatched: stranded.length };
}
