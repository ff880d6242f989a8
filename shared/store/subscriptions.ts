/**
 * Webhook subscriptions: one item each in one partition (`WEBHOOK_SUBSCRIPTIONS`), in creation
 * order, so one Query lists them all (there are at most MAX_SUBSCRIPTIONS). The dispatcher keeps the
 * list for KNOWN_FOR_MS per warm function, as store/references.ts keeps queues: a change made by
 * another function reaches it within that minute (at once in the same process: writes here forget
 * it). Signing secrets are stored as they are: signing needs them (docs/security.md).
 */
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from './dynamodb';
import type { EventType } from '../domain/events';
import type { Subscription } from '../domain/subscriptions';
import { config } from '../config';
import { dynamo } from './clients';
import { keys, ITEM_EXISTS, ITEM_IS_NEW, IN_PARTITION, KEY_ATTRIBUTES } from './keys';
import { queryAll } from './query';
import { isConditionFailure } from './transact';
import { KNOWN_FOR_MS } from './references';

type Item = Record<string, unknown>;

/** Staff changed the subscription meanwhile (another request, or the deliverer disabling it). */
export class SubscriptionChanged extends Error {}

function toSubscription(item: Item): Subscription {
  const record = Object.fromEntries(Object.entries(item).filter(([name]) => !KEY_ATTRIBUTES.includes(name)));
  return record as unknown as Subscription;
}

let known: { subscriptions: Subscription[]; until: number } | undefined;

/** This function's copy of the list is stale (it changed a subscription, or a test wants a fresh read). */
export function forgetSubscriptions(): void {
  known = undefined;
}

/** Every subscription, oldest first: one Query (strongly consistent). */
export async function listSubscriptions(): Promise<Subscription[]> {
  const items = await queryAll({ KeyConditionExpression: IN_PARTITION, ExpressionAttributeValues: { ':pk': keys.subscriptionsPartition }, ConsistentRead: true });
  return items.map(toSubscription);
}

/** The enabled subscriptions listening to `event`: the dispatcher's read, from this function's copy while it is fresh. */
export async function listeningSubscriptions(event: EventType, now = Date.now()): Promise<Subscription[]> {
  if (!known || known.until <= now) known = { subscriptions: await listSubscriptions(), until: now + KNOWN_FOR_MS };
  return known.subscriptions.filter((s) => s.enabled && s.events.includes(event));
}

export async function getSubscription(id: string): Promise<Subscription | undefined> {
  const out = await dynamo.send(new GetCommand({ TableName: config.tableName, Key: keys.subscription(id), ConsistentRead: true }));
  return out.Item ? toSubscription(out.Item) : undefined;
}

export async function createSubscription(subscription: Subscription): Promise<void> {
  forgetSubscriptions();
  await dynamo.send(
    new PutCommand({ TableName: config.tableName, Item: { ...keys.subscription(subscription.id), ...subscription }, ConditionExpression: ITEM_IS_NEW }),
  );
}

/** Replaces `current` with `next`, unless it changed since it was read (SubscriptionChanged) or is gone (false). */
export async function saveSubscription(current: Subscription, next: Subscription): Promise<boolean> {
  forgetSubscriptions();
  try {
    await dynamo.send(
      new PutCommand({
        TableName: config.tableName,
        Item: { ...keys.subscription(next.id), ...next },
        ConditionExpression: `${ITEM_EXISTS} AND modified = :modified`,
        ExpressionAttributeValues: { ':modified': current.modified },
      }),
    );
    return true;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    if (await getSubscription(current.id)) throw new SubscriptionChanged();
    return false;
  }
}

/** Deletes a subscription; false when there was none. Its deliveries stop at their next attempt. */
export async function deleteSubscription(id: string): Promise<boolean> {
  forgetSubscriptions();
  try {
    await dynamo.send(new DeleteCommand({ TableName: config.tableName, Key: keys.subscription(id), ConditionExpression: ITEM_EXISTS }));
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * The deliverer's record of a receiver's health (domain `receiverHealth`): sets or clears
 * `failing_since`, or disables the subscription. Each only if `failing_since` is still what the
 * deliverer read (another attempt may have recorded the same meanwhile); false when it was not.
 */
export async function recordReceiverHealth(
  subscription: Pick<Subscription, 'id' | 'failing_since'>,
  change: { failingSince: string | null } | { disabledReason: string; at: string },
): Promise<boolean> {
  const seen = subscription.failing_since === null ? 'attribute_type(failing_since, :nullType)' : 'failing_since = :seen';
  const values: Item = subscription.failing_since === null ? { ':nullType': 'NULL' } : { ':seen': subscription.failing_since };
  const update =
    'failingSince' in change
      ? { UpdateExpression: 'SET failing_since = :next', ConditionExpression: `${ITEM_EXISTS} AND ${seen}`, values: { ':next': change.failingSince } }
      : {
          UpdateExpression: 'SET enabled = :false, disabled_reason = :reason, modified = :at',
          ConditionExpression: `${ITEM_EXISTS} AND enabled = :true AND ${seen}`,
          values: { ':false': false, ':true': true, ':reason': change.disabledReason, ':at': change.at },
        };
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.subscription(subscription.id),
        UpdateExpression: update.UpdateExpression,
        ConditionExpression: update.ConditionExpression,
        ExpressionAttributeValues: { ...values, ...update.values },
      }),
    );
    forgetSubscriptions();
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
