/**
 * Webhook deliveries: one item per (event, receiver), in one partition sorted by id, which sorts
 * by time. Each item expires DELIVERY_RETENTION_DAYS after creation (TTL). Attempts are recorded
 * with a condition on the attempt count, so two workers racing on one delivery cannot both count.
 */
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '../aws/dynamodb';
import { DELIVERY_RETENTION_DAYS, stuckBefore, type Delivery } from '../domain/webhooks';
import { config } from '../config';
import { dynamo } from '../aws/clients';
import { keys, ITEM_EXISTS, ITEM_IS_NEW, IN_PARTITION, SORT_BELOW } from './keys';
import { queryAll } from './query';
import { isConditionFailure } from './transact';

type Item = Record<string, unknown>;

function toDelivery(item: Item): Delivery {
  const { PK: _pk, SK: _sk, expires_at: _ttl, ...delivery } = item;
  return delivery as unknown as Delivery;
}

/** The TTL of a delivery record written or requeued at `from` (epoch seconds). */
const expiresAt = (from: Date) => Math.floor(from.getTime() / 1000) + DELIVERY_RETENTION_DAYS * 86400;

/** Stores a new delivery; false when it exists already (the event was dispatched before). */
export async function createDelivery(delivery: Delivery): Promise<boolean> {
  const expires = expiresAt(new Date(delivery.created));
  try {
    await dynamo.send(
      new PutCommand({
        TableName: config.tableName,
        Item: { ...keys.delivery(delivery.id), ...delivery, expires_at: expires },
        ConditionExpression: ITEM_IS_NEW,
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

export async function getDelivery(id: string): Promise<Delivery | undefined> {
  const out = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: keys.delivery(id), ConsistentRead: true }),
  );
  return out.Item ? toDelivery(out.Item) : undefined;
}

type AttemptRecord = Pick<
  Delivery,
  'status' | 'attempts' | 'last_response_code' | 'last_error' | 'next_attempt' | 'dead_letter_due'
>;

/** Records an attempt made on `previous`; false when another worker recorded one meanwhile. */
export async function recordAttempt(previous: Delivery, record: AttemptRecord): Promise<boolean> {
  const due = record.dead_letter_due === true;
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.delivery(previous.id),
        UpdateExpression:
          'SET #status = :status, attempts = :attempts, last_response_code = :code, last_error = :error, ' +
          'next_attempt ' +
          `= :next${due ? ', dead_letter_due = :due' : ''}`,
        ConditionExpression: 'attempts = :previous',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':status': record.status,
          ':attempts': record.attempts,
          ':code': record.last_response_code,
          ':error': record.last_error,
          ':next': record.next_attempt,
          ':previous': previous.attempts,
          ...(due ? { ':due': true } : {}),
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** The delivery is on the operator's dead-letter queue: a new receive of its message no longer puts it there. */
export async function recordDeadLettered(id: string): Promise<void> {
  await dynamo.send(
    new UpdateCommand({
      TableName: config.tableName,
      Key: keys.delivery(id),
      UpdateExpression: 'REMOVE dead_letter_due',
    }),
  );
}

/**
 * Puts a delivery back in line for a new round of attempts (staff's redeliver), and keeps its record
 * for the full retention from now: only one that has ended or is stuck (domain `mayRedeliver`, checked
 * again here against a concurrent redeliver). Undefined if it is gone or may not be sent again.
 */
export async function requeueDelivery(id: string, now: Date): Promise<Delivery | undefined> {
  try {
    const out = await dynamo.send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.delivery(id),
        UpdateExpression:
          'SET #status = :pending, attempts = :zero, next_attempt = :now, expires_at = :expires REMOVE dead_letter_due',
        ConditionExpression: `${ITEM_EXISTS} AND (#status <> :pending OR next_attempt < :stuck)`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':pending': 'pending',
          ':zero': 0,
          ':now': now.toISOString(),
          ':expires': expiresAt(now),
          ':stuck': stuckBefore(now),
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return toDelivery(out.Attributes!);
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/** What the log shows (not the body); as attribute names, since some are DynamoDB reserved words. */
const LOG_FIELDS = [
  'id',
  'event',
  'event_id',
  'url',
  'ticket',
  'followup',
  'subscription',
  'status',
  'attempts',
  'last_response_code',
  'last_error',
  'next_attempt',
  'created',
];
const LOG_NAMES = Object.fromEntries(LOG_FIELDS.map((f, i) => [`#a${i}`, f]));

/** A page of the delivery log, newest first, from after the delivery `after` (a cursor). */
export async function listDeliveries(
  limit: number,
  after?: string,
): Promise<{ deliveries: Delivery[]; more: boolean }> {
  const out = await dynamo.send(
    new QueryCommand({
      TableName: config.tableName,
      KeyConditionExpression: after ? SORT_BELOW : IN_PARTITION,
      ExpressionAttributeValues: {
        ':pk': keys.deliveriesPartition,
        ...(after ? { ':sk': keys.delivery(after).SK } : {}),
      },
      ExpressionAttributeNames: LOG_NAMES,
      ProjectionExpression: Object.keys(LOG_NAMES).join(', '),
      ScanIndexForward: false,
      Limit: limit + 1,
    }),
  );
  const items = (out.Items ?? []).map(toDelivery);
  return { deliveries: items.slice(0, limit), more: items.length > limit };
}

/** Every delivery still waiting for an attempt: what the local runtime resumes after a restart. */
export async function pendingDeliveries(): Promise<Delivery[]> {
  const items = await queryAll({
    KeyConditionExpression: IN_PARTITION,
    FilterExpression: '#status = :pending',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':pk': keys.deliveriesPartition, ':pending': 'pending' },
    ConsistentRead: true,
  });
  return items.map(toDelivery);
}
