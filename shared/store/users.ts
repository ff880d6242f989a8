/**
 * Users: the full record under the username (what authentication reads, one GetItem), and a small
 * summary under the integer id (what assignee checks read), written together.
 */
import { GetCommand } from './dynamodb';
import type { User, UserSummary } from '../domain/records';
import { config } from '../config';
import { dynamo } from './clients';
import { reserveIds } from './counters';
import { keys, ITEM_EXISTS, ITEM_IS_NEW, IN_PARTITION } from './keys';
import { queryAll } from './query';
import { ConditionFailed, transact } from './transact';

export class DuplicateUsername extends Error {}

export async function findUserByUsername(username: string): Promise<User | undefined> {
  const out = await dynamo.send(new GetCommand({ TableName: config.tableName, Key: keys.user(username), ConsistentRead: true }));
  return out.Item as User | undefined;
}

function summaryOf(user: User): UserSummary & Record<string, unknown> {
  const { id, username, first_name, last_name, email, is_active, is_staff, is_superuser } = user;
  return { ...keys.userById(id), id, username, first_name, last_name, email, is_active, is_staff, is_superuser };
}

/** Every user's summary (no password hash), in id order. */
export async function listUsers(): Promise<UserSummary[]> {
  const items = await queryAll({
    KeyConditionExpression: IN_PARTITION,
    ExpressionAttributeValues: { ':pk': keys.usersPartition },
    ConsistentRead: true,
  });
  return items.map(({ PK: _pk, SK: _sk, ...summary }) => summary as unknown as UserSummary);
}

/** Creates a user; the username is unique through a conditional write. */
export async function createUser(fields: Omit<User, 'id'>): Promise<User> {
  const { user: id } = await reserveIds({ user: 1 });
  const user: User = { id, ...fields };
  try {
    await transact([
      { Put: { TableName: config.tableName, Item: { ...keys.user(user.username), ...user }, ConditionExpression: ITEM_IS_NEW } },
      { Put: { TableName: config.tableName, Item: summaryOf(user) } },
    ]);
  } catch (error) {
    if (error instanceof ConditionFailed) throw new DuplicateUsername();
    throw error;
  }
  return user;
}

/** Replaces a user's stored record (password, flags, names), keeping both items in step. */
export async function saveUser(user: User): Promise<void> {
  await transact([
    { Put: { TableName: config.tableName, Item: { ...keys.user(user.username), ...user }, ConditionExpression: ITEM_EXISTS } },
    { Put: { TableName: config.tableName, Item: summaryOf(user) } },
  ]);
}
