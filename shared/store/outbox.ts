/**
 * The webhook outbox: an event item written in the same transaction as the change it announces,
 * so an event exists exactly when its change committed. The dispatcher (a DynamoDB Stream consumer
 * on AWS, a poller in the local runtime) turns each into deliveries, then removes it.
 */
import { DeleteCommand, QueryCommand } from '../aws/dynamodb';
import type { WebhookEvent } from '../domain/webhooks';
import { config } from '../config';
import { dynamo } from '../aws/clients';
import { keys, ITEM_IS_NEW, IN_PARTITION } from './keys';
import { queryPages } from './query';
import type { TransactItem } from './transact';
import type { WrittenBy } from '../domain/actor';
import { writtenBy } from './actor';

export interface OutboxEvent {
  id: string;
  event: WebhookEvent;
  ticket: number;
  followup: number | null;
  /** Where the API was called, for the attachment URLs in the payload. */
  base_url: string;
  created: string;
  /** Who made the change (store/actor.ts), as the item the event announces records it; absent on older events. */
  written_by?: WrittenBy;
}

/** Marks outbox items, for the stream's event filter. */
export const OUTBOX_ITEM_TYPE = 'webhook-event';

/** The outbox item, as one action of the caller's transaction. */
export function outboxPut(event: OutboxEvent): TransactItem {
  return {
    Put: {
      TableName: config.tableName,
      Item: { ...keys.outboxEvent(event.id), type: OUTBOX_ITEM_TYPE, ...writtenBy(), ...event },
      ConditionExpression: ITEM_IS_NEW,
    },
  };
}

export function eventFromItem(item: Record<string, unknown>): OutboxEvent {
  const { id, event, ticket, followup, base_url, created, written_by } = item as unknown as OutboxEvent;
  return { id, event, ticket, followup: followup ?? null, base_url, created, ...(written_by ? { written_by } : {}) };
}

/** The oldest events not dispatched yet (strongly consistent). */
export async function pendingEvents(limit: number): Promise<OutboxEvent[]> {
  const out = await dynamo.send(
    new QueryCommand({
      TableName: config.tableName,
      KeyConditionExpression: IN_PARTITION,
      ExpressionAttributeValues: { ':pk': keys.outboxPartition },
      ConsistentRead: true,
      Limit: limit,
    }),
  );
  return (out.Items ?? []).map(eventFromItem);
}

/**
 * Events written before `before` and still in the outbox, at most `limit`: on AWS, ones whose stream
 * dispatch gave up (its retries spent, or the stream's 24 h retention passed), for the scheduled sweep.
 */
export async function eventsWrittenBefore(before: Date, limit: number): Promise<OutboxEvent[]> {
  const events: OutboxEvent[] = [];
  const pages = queryPages({
    KeyConditionExpression: IN_PARTITION,
    FilterExpression: 'created < :before',
    ExpressionAttributeValues: { ':pk': keys.outboxPartition, ':before': before.toISOString() },
    ConsistentRead: true,
  });
  for await (const page of pages) {
    events.push(...page.map(eventFromItem));
    if (events.length >= limit) break;
  }
  return events.slice(0, limit);
}

export async function removeEvent(id: string): Promise<void> {
  await dynamo.send(new DeleteCommand({ TableName: config.tableName, Key: keys.outboxEvent(id) }));
}
