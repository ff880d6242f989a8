/**
 * API tokens: a lookup item under the SHA-256 of the key (what authentication reads, one GetItem)
 * and a summary under the integer id in the `TOKENS` partition (what lists and revocation read),
 * written and deleted together. The key itself is never stored.
 */
import { GetCommand } from '../aws/dynamodb';
import { MAX_TOKENS_PER_USER, type ApiToken } from '../domain/tokens';
import { config } from '../config';
import { dynamo } from '../aws/clients';
import { reserveIds } from './counters';
import { keys, ITEM_IS_NEW, IN_PARTITION } from './keys';
import { queryAll } from './query';
import { transact } from './transact';

/** Who a key belongs to, by the key's hash; undefined when no such token exists (or it was revoked). */
export async function findTokenByKeyHash(keyHash: string): Promise<{ id: number; user: string } | undefined> {
  const out = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: keys.token(keyHash), ConsistentRead: true }),
  );
  return out.Item ? { id: out.Item.id as number, user: out.Item.user as string } : undefined;
}

/** The user holds MAX_TOKENS_PER_USER tokens already. */
export class TooManyTokens extends Error {}

/**
 * A new token, unless its user holds MAX_TOKENS_PER_USER already (TooManyTokens). Creates racing at the bound may each
 * pass it: the most a user holds is the bound plus those in flight at once.
 */
export async function createToken(fields: Omit<ApiToken, 'id'>): Promise<ApiToken> {
  if ((await listTokens(fields.user)).length >= MAX_TOKENS_PER_USER) throw new TooManyTokens();
  const { token: id } = await reserveIds({ token: 1 });
  const token: ApiToken = { id, ...fields };
  await transact([
    {
      Put: {
        TableName: config.tableName,
        Item: { ...keys.token(token.key_hash), id, user: token.user, created: token.created },
        ConditionExpression: ITEM_IS_NEW,
      },
    },
    { Put: { TableName: config.tableName, Item: { ...keys.tokenById(id), ...token } } },
  ]);
  return token;
}

function fromItem(item: Record<string, unknown>): ApiToken {
  const { id, user, prefix, created, key_hash } = item as unknown as ApiToken;
  return { id, user, prefix, created, key_hash };
}

export async function getToken(id: number): Promise<ApiToken | undefined> {
  const out = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: keys.tokenById(id), ConsistentRead: true }),
  );
  return out.Item ? fromItem(out.Item) : undefined;
}

/** Every token (of `user` only, when given), in id order: one Query of the summaries. */
export async function listTokens(user?: string): Promise<ApiToken[]> {
  const items = await queryAll({
    KeyConditionExpression: IN_PARTITION,
    ExpressionAttributeValues: { ':pk': keys.tokensPartition },
    ConsistentRead: true,
  });
  return items.map(fromItem).filter((t) => user === undefined || t.user === user);
}

/** Revokes a token: both items go in one transaction (a key stops working at once, cache aside). */
export async function deleteToken(token: ApiToken): Promise<void> {
  await transact([
    { Delete: { TableName: config.tableName, Key: keys.tokenById(token.id) } },
    { Delete: { TableName: config.tableName, Key: keys.token(token.key_hash) } },
  ]);
}

/** Tokens revoked at once by revokeTokensOf. */
const REVOKED_AT_ONCE = 10;

/** Revokes every token of `user` (a deactivation): one Query of the summaries, a transaction per token, 10 at once. */
export async function revokeTokensOf(user: string): Promise<number> {
  const tokens = await listTokens(user);
  for (let i = 0; i < tokens.length; i += REVOKED_AT_ONCE)
    await Promise.all(tokens.slice(i, i + REVOKED_AT_ONCE).map(deleteToken));
  return tokens.length;
}
