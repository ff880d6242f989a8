/**
 * Failed logins per username (domain/login-throttle.ts), read together with the user item in one
 * BatchGet, so the throttle check costs no extra request.
 * The count only grows by atomic `ADD` (concurrent failures never lose one); the item carries
 * `expires_at`, the end of its window, which is also the table's TTL attribute. DynamoDB deletes
 * expired items lazily (within days), so readers ignore an item whose window has ended, and a
 * failure on such an item starts a new window instead of adding to it.
 */
import { BatchGetCommand, DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { User } from '../domain/records';
import type { FailureRecord } from '../domain/login-throttle';
import { config } from '../config';
import { dynamo } from './clients';
import { keys } from './keys';
import { isConditionFailure } from './transact';


/** The user (if any) and its failure count, in one strongly consistent BatchGet. */
export async function readLogin(username: string): Promise<{ user?: User; failures?: FailureRecord }> {
  const userKey = keys.user(username);
  let pending: Record<string, string>[] = [userKey, keys.loginAttempts(username)];
  let user: User | undefined;
  let failures: FailureRecord | undefined;
  while (pending.length) {
    const out = await dynamo.send(new BatchGetCommand({ RequestItems: { [config.tableName]: { Keys: pending, ConsistentRead: true } } }));
    for (const item of out.Responses?.[config.tableName] ?? []) {
      if (item.PK === userKey.PK) user = item as User;
      else failures = { failures: Number(item.failures ?? 0), expiresAt: Number(item.expires_at ?? 0) };
    }
    pending = (out.UnprocessedKeys?.[config.tableName]?.Keys ?? []) as Record<string, string>[];
  }
  return { user, failures };
}

/**
 * Counts one failure: `ADD` to the open window, or (when the stored window has ended) a new window
 * of one failure ending at `windowEnds` (epoch seconds). One write, unless it races with another
 * request opening the new window (then the `ADD` is tried again).
 */
export async function recordLoginFailure(username: string, nowMs: number, windowEnds: number): Promise<void> {
  const now = Math.floor(nowMs / 1000);
  const add = () =>
    dynamo.send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.loginAttempts(username),
        UpdateExpression: 'ADD failures :one SET expires_at = if_not_exists(expires_at, :end)',
        ConditionExpression: 'attribute_not_exists(expires_at) OR expires_at > :now',
        ExpressionAttributeValues: { ':one': 1, ':end': windowEnds, ':now': now },
      }),
    );
  try {
    await add();
    return;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  try {
    await dynamo.send(
      new PutCommand({
        TableName: config.tableName,
        Item: { ...keys.loginAttempts(username), failures: 1, expires_at: windowEnds },
        ConditionExpression: 'attribute_not_exists(expires_at) OR expires_at <= :now',
        ExpressionAttributeValues: { ':now': now },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    await add(); // another failure opened the new window first: count this one in it
  }
}

/** Clears the count after a successful login, unless it has meanwhile reached `lockAfter`. */
export async function clearLoginFailures(username: string, lockAfter: number): Promise<void> {
  try {
    await dynamo.send(
      new DeleteCommand({
        TableName: config.tableName,
        Key: keys.loginAttempts(username),
        ConditionExpression: 'failures < :lock',
        ExpressionAttributeValues: { ':lock': lockAfter },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}
