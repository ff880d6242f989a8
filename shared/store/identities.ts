/**
 * OpenID Connect identities bound to users: one item per (issuer, subject), holding the username.
 * Bound once, at the first sign-in (middleware/oidc.ts), by a conditional write: two first sign-ins
 * at once bind one user.
 */
import { createHash } from 'node:crypto';
import { GetCommand, PutCommand } from '../aws/dynamodb';
import { config } from '../config';
import { dynamo } from '../aws/clients';
import { keys, ITEM_IS_NEW } from './keys';
import { isConditionFailure } from './transact';

const keyOf = (issuer: string, subject: string) =>
  keys.identity(createHash('sha256').update(issuer).digest('base64url').slice(0, 22), subject);

/** The username bound to the identity, if any. */
export async function boundUsername(issuer: string, subject: string): Promise<string | undefined> {
  const out = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: keyOf(issuer, subject), ConsistentRead: true }),
  );
  return out.Item?.username as string | undefined;
}

/** Binds the identity to `username`; answers the username bound, which is another when a concurrent sign-in won. */
export async function bindIdentity(issuer: string, subject: string, username: string): Promise<string> {
  const item = { ...keyOf(issuer, subject), issuer, subject, username, bound: new Date().toISOString() };
  try {
    await dynamo.send(new PutCommand({ TableName: config.tableName, Item: item, ConditionExpression: ITEM_IS_NEW }));
    return username;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    return (await boundUsername(issuer, subject)) ?? username;
  }
}
