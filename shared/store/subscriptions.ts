/**
 * Webhook subscriptions: one item each in one partition (`WEBHOOK_SUBSCRIPTIONS`), in creation
 * order, so one Query lists them all (there are at most MAX_SUBSCRIPTIONS), beside their count
 * (`COUNT`), which a create raises (conditionally) before it writes and a delete lowers after: the
 * limit holds however many creates run at once (a listing then a write let 12 creates at 98 make 110). The dispatcher
 * keeps the list for KNOWN_FOR_MS per warm function, as store/references.ts keeps queues: a change made by
 * another function reaches it within that minute (at once in the same process: writes here forget
 * it once they are made, so a dispatch that listed meanwhile does not keep the old list). Signing secrets are stored as
 * they are: signing needs them (docs/security.md).
 */
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '../aws/dynamodb';
import type { EventType } from '../domain/events';
import type { Subscription } from '../domain/subscriptions';
import { config } from '../config';
import { dynamo } from '../aws/clients';
import { keys, ITEM_EXISTS, ITEM_IS_NEW, KEY_ATTRIBUTES, SORT_BEGINS_WITH } from './keys';
import { queryAll } from './query';
import { conditionHeld, isConditionFailure } from './transact';
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
  generation++;
}
/** Counts the forgets, so that a listing read across one is used but not kept. */
let generation = 0;

/** Every subscription, oldest first: one Query (strongly consistent). */
export async function listSubscriptions(): Promise<Subscription[]> {
  const items = await queryAll({
    KeyConditionExpression: SORT_BEGINS_WITH,
    ExpressionAttributeValues: { ':pk': keys.subscriptionsPartition, ':sk': keys.subscriptionPrefix },
    ConsistentRead: true,
  });
  return items.map(toSubscription);
}

/**
 * The enabled subscriptions listening to `event`: the dispatcher's read, from this function's copy while it is fresh.
 */
export async function listeningSubscriptions(event: EventType, now = Date.now()): Promise<Subscription[]> {
  let list = known && known.until > now ? known.subscriptions : undefined;
  if (!list) {
    const before = generation;
    list = await listSubscriptions();
    // A write forgot the list while this one was read: it may predate that write, so it is not kept.
    if (generation === before) known = { subscriptions: list, until: now + KNOWN_FOR_MS };
  }
  return list.filter((s) => s.enabled && s.events.includes(event));
}

export async function getSubscription(id: string): Promise<Subscription | undefined> {
  const out = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: keys.subscription(id), ConsistentRead: true }),
  );
  return out.Item ? toSubscription(out.Item) : undefined;
}

/** There are as many subscriptions as there may be. */
export class TooManySubscriptions extends Error {}

/** Whether this process has seen the count item (the API never deletes it; an operator may, to have it rebuilt). */
let countExists = false;

/**
 * Makes the count item when there is none yet (subscriptions made before it was kept): from a
 * listing, put only if no other request put one meanwhile. Any change to the subscriptions after
 * the listing was made by a request that found the count there, or lost this race and counts after.
 */
async function ensureCount(): Promise<void> {
  if (countExists) return;
  const stored = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: keys.subscriptionCount, ConsistentRead: true }),
  );
  if (!stored.Item) {
    const listed = (await listSubscriptions()).length;
    // Another request may have made it meanwhile: then that one stands.
    await conditionHeld(
      dynamo.send(
        new PutCommand({
          TableName: config.tableName,
          Item: { ...keys.subscriptionCount, count: listed },
          ConditionExpression: ITEM_IS_NEW,
        }),
      ),
    );
  }
  countExists = true;
}

/**
 * Adds `delta` to the count, refused (false) when that would take it past `max`. A plain conditional
 * update: DynamoDB applies those to one item one at a time, so concurrent creates never pass the
 * limit, and, unlike a transaction, they queue rather than cancel each other.
 */
async function addToCount(delta: 1 | -1, max?: number): Promise<boolean> {
  return conditionHeld(
    dynamo.send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.subscriptionCount,
        UpdateExpression: 'ADD #count :delta',
        ConditionExpression: `${ITEM_EXISTS}${max === undefined ? '' : ' AND #count < :max'}`,
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':delta': delta, ...(max === undefined ? {} : { ':max': max }) },
      }),
    ),
  );
}

/**
 * Counts a new subscription, then stores it (uncounting it if that fails); TooManySubscriptions
 * when there are `max` already. A process that dies between the two leaves the count one high,
 * never low: the limit can only be stricter (docs/security.md).
 */
export async function createSubscription(subscription: Subscription, max: number): Promise<void> {
  try {
    await countAndStore(subscription, max);
  } finally {
    // After the write: a dispatch that read the list while it was under way would keep it without this one.
    forgetSubscriptions();
  }
}

async function countAndStore(subscription: Subscription, max: number): Promise<void> {
  await ensureCount();
  if (!(await addToCount(1, max))) {
    // At the limit, or the count is gone (deleted to have it rebuilt from a listing): look again.
    countExists = false;
    await ensureCount();
    if (!(await addToCount(1, max))) throw new TooManySubscriptions();
  }
  try {
    await dynamo.send(
      new PutCommand({
        TableName: config.tableName,
        Item: { ...keys.subscription(subscription.id), ...subscription },
        ConditionExpression: ITEM_IS_NEW,
      }),
    );
  } catch (error) {
    await addToCount(-1);
    throw error;
  }
}

/** Replaces `current` with `next`, unless it changed since it was read (SubscriptionChanged) or is gone (false). */
export async function saveSubscription(current: Subscription, next: Subscription): Promise<boolean> {
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
  } finally {
    forgetSubscriptions();
  }
}

/**
 * Deletes a subscription, then uncounts it (no count: the next create rebuilds it); false when there was none. Its
 * deliveries stop at their next attempt.
 */
export async function deleteSubscription(id: string): Promise<boolean> {
  try {
    await ensureCount();
    if (
      !(await conditionHeld(
        dynamo.send(
          new DeleteCommand({
            TableName: config.tableName,
            Key: keys.subscription(id),
            ConditionExpression: ITEM_EXISTS,
          }),
        ),
      ))
    )
      return false;
    await addToCount(-1);
    return true;
  } finally {
    forgetSubscriptions();
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
  const seen =
    subscription.failing_since === null ? 'attribute_type(failing_since, :nullType)' : 'failing_since = :seen';
  const values: Item =
    subscription.failing_since === null ? { ':nullType': 'NULL' } : { ':seen': subscription.failing_since };
  const update =
    'failingSince' in change
      ? {
          UpdateExpression: 'SET failing_since = :next',
          ConditionExpression: `${ITEM_EXISTS} AND ${seen}`,
          values: { ':next': change.failingSince },
        }
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
