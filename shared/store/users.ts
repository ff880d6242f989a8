/**
 * Users: the full record under the username (what authentication reads, one GetItem), and a small
 * summary under the integer id (what assignee checks read), written together.
 */
import { GetCommand, UpdateCommand } from '../aws/dynamodb';
import type { User, UserSummary } from '../domain/records';
import { config } from '../config';
import { dynamo } from '../aws/clients';
import { reserveIds } from './counters';
import { keys, ITEM_EXISTS, ITEM_IS_NEW, IN_PARTITION } from './keys';
import { queryAll } from './query';
import { ConditionFailed, conditionHeld, transact } from './transact';

export class DuplicateUsername extends Error {}

export async function findUserByUsername(username: string): Promise<User | undefined> {
  const out = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: keys.user(username), ConsistentRead: true }),
  );
  return out.Item as User | undefined;
}

/** The summary item of a user (its id's), beside the full record under the username. */
export function summaryOf(user: User): UserSummary & Record<string, unknown> {
  const { id, username, first_name, last_name, email, is_active, is_staff, is_superuser, queues } = user;
  return {
    ...keys.userById(id),
    id,
    username,
    first_name,
    last_name,
    email,
    is_active,
    is_staff,
    is_superuser,
    ...(queues ? { queues } : {}),
  };
}

/** A user's summary by id (one GetItem); undefined when there is none. */
export async function getUserSummary(id: number): Promise<UserSummary | undefined> {
  const out = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: keys.userById(id), ConsistentRead: true }),
  );
  if (!out.Item) return undefined;
  const { PK: _pk, SK: _sk, ...summary } = out.Item;
  return summary as UserSummary;
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

/**
 * How long `usersWithEmail` keeps the users' summaries per process (warm function): a user created,
 * deactivated or made staff counts for mail in within it.
 */
export const USERS_BY_EMAIL_TTL_MS = 60_000;
let usersByEmail: { at: number; users: Promise<Map<string, UserSummary[]>> } | undefined;

/**
 * The users whose address is `email` (any case): what mail in looks its sender up by (are they a
 * user, are they staff?) for every message. The users' partition (`listUsers`, about 29 summaries a
 * read unit) read at most once per USERS_BY_EMAIL_TTL_MS per process, not once per message.
 */
export async function usersWithEmail(email: string, now = Date.now()): Promise<UserSummary[]> {
  if (!usersByEmail || now - usersByEmail.at > USERS_BY_EMAIL_TTL_MS) {
    const users = listUsers().then((all) => {
      const byEmail = new Map<string, UserSummary[]>();
      for (const user of all)
        if (user.email) byEmail.set(user.email.toLowerCase(), [...(byEmail.get(user.email.toLowerCase()) ?? []), user]);
      return byEmail;
    });
    usersByEmail = { at: now, users };
    // A failed read is not kept: the next message reads again.
    users.catch(() => usersByEmail?.users === users && (usersByEmail = undefined));
  }
  return (await usersByEmail.users).get(email.toLowerCase()) ?? [];
}

/** Creates a user; the username is unique through a conditional write. */
export async function createUser(fields: Omit<User, 'id'>): Promise<User> {
  const { user: id } = await reserveIds({ user: 1 });
  const user: User = { id, ...fields };
  try {
    await transact([
      {
        Put: {
          TableName: config.tableName,
          Item: { ...keys.user(user.username), ...user },
          ConditionExpression: ITEM_IS_NEW,
        },
      },
      { Put: { TableName: config.tableName, Item: summaryOf(user) } },
    ]);
  } catch (error) {
    if (error instanceof ConditionFailed) throw new DuplicateUsername();
    throw error;
  }
  return user;
}

const changeListeners = new Set<(username: string) => void>();

/**
 * Calls `listener` with the username whenever this process saves a user: the credential cache
 * (middleware/auth.ts) forgets that user's entries, so a deactivation or a password change holds at
 * once in the process that made it (elsewhere within the cache's USER_RECORD_CACHE_MS).
 */
export function onUserSaved(listener: (username: string) => void): void {
  changeListeners.add(listener);
}

/** Replaces a user's stored record (password, flags, names), keeping both items in step. */
export async function saveUser(user: User): Promise<void> {
  await transact([
    {
      Put: {
        TableName: config.tableName,
        Item: { ...keys.user(user.username), ...user },
        ConditionExpression: ITEM_EXISTS,
      },
    },
    { Put: { TableName: config.tableName, Item: summaryOf(user) } },
  ]);
  for (const listener of changeListeners) listener(user.username);
}

/**
 * Replaces a user's password hash by `next` if it is still `current` (a sign-in's rehash: middleware/auth.ts).
 * One conditional UpdateItem of the username's item (the summary holds no hash): of concurrent sign-ins one
 * writes, the others find the condition failed and leave it. False when it was not written.
 */
export async function replacePasswordHash(username: string, current: string, next: string): Promise<boolean> {
  const written = await conditionHeld(
    dynamo.send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.user(username),
        UpdateExpression: 'SET #hash = :next',
        ConditionExpression: '#hash = :current',
        ExpressionAttributeNames: { '#hash': 'password_hash' },
        ExpressionAttributeValues: { ':next': next, ':current': current },
      }),
    ),
  );
  if (written) for (const listener of changeListeners) listener(username);
  return written;
}
