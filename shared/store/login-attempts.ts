/**
 * Login attempt counts (domain/login-throttle.ts): per username and source address, and per source
 * address. An attempt is taken before its password is checked, by one conditional `ADD` that fails
 * at the limit, so concurrent guesses can never pass it (reading the count first and writing it
 * after the hash let 40 concurrent guesses all through). Each item carries `expires_at`, the end of
 * its window and the table's TTL attribute; DynamoDB deletes expired items lazily (within days), so
 * an item whose window has ended counts as none, and the next attempt starts a new window.
 */
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '../aws/dynamodb';
import { config } from '../config';
import { dynamo } from '../aws/clients';
import { isConditionFailure } from './transact';

export type AttemptKey = { PK: string; SK: string };

/**
 * Taken: `before` attempts were counted in the window already. Refused: the window is full until `expiresAt` (epoch
 * seconds).
 */
export type Attempt = { taken: true; before: number } | { taken: false; expiresAt: number };

/**
 * Counts one attempt in `key`'s window unless `limit` are counted already. Usually one write: an
 * `ADD` to the open window; the first attempt of a window puts a new one (ending at `windowEnds`,
 * epoch seconds); a race with another request opening it retries the `ADD` once.
 */
export async function takeAttempt(key: AttemptKey, limit: number, nowMs: number, windowEnds: number): Promise<Attempt> {
  const now = Math.floor(nowMs / 1000);
  const add = async (): Promise<number | undefined> => {
    try {
      const out = await dynamo.send(
        new UpdateCommand({
          TableName: config.tableName,
          Key: key,
          UpdateExpression: 'ADD failures :one',
          ConditionExpression: 'expires_at > :now AND failures < :limit',
          ExpressionAttributeValues: { ':one': 1, ':now': now, ':limit': limit },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Number(out.Attributes?.failures) - 1;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return undefined;
    }
  };
  const before = await add();
  if (before !== undefined) return { taken: true, before };
  try {
    await dynamo.send(
      new PutCommand({
        TableName: config.tableName,
        Item: { ...key, failures: 1, expires_at: windowEnds },
        ConditionExpression: 'attribute_not_exists(expires_at) OR expires_at <= :now',
        ExpressionAttributeValues: { ':now': now },
      }),
    );
    return { taken: true, before: 0 };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  // The window is open: full, or opened by another request a moment ago.
  const again = await add();
  if (again !== undefined) return { taken: true, before: again };
  const item = (await dynamo.send(new GetCommand({ TableName: config.tableName, Key: key, ConsistentRead: true })))
    .Item;
  return { taken: false, expiresAt: Number(item?.expires_at ?? windowEnds) };
}

/** Gives back an attempt that succeeded (nothing when its window has ended or the item is gone). */
export async function returnAttempt(key: AttemptKey, nowMs: number): Promise<void> {
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: key,
        UpdateExpression: 'ADD failures :minus',
        ConditionExpression: 'expires_at > :now AND failures > :zero',
        ExpressionAttributeValues: { ':minus': -1, ':now': Math.floor(nowMs / 1000), ':zero': 0 },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/** Clears a username's count from a source after a successful login. */
export async function clearAttempts(key: AttemptKey): Promise<void> {
  await dynamo.send(new DeleteCommand({ TableName: config.tableName, Key: key }));
}
