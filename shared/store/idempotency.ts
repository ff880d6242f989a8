/**
 * Idempotency keys: one item per (user, operation, key) that first locks the key for the request
 * running under it, then keeps its response for IDEMPOTENCY_TTL_SECONDS (DynamoDB TTL).
 */
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '../aws/dynamodb';
import { config } from '../config';
import { dynamo } from '../aws/clients';
import { keys, ITEM_IS_NEW } from './keys';

export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
/** A request that holds a key longer than this (a crashed function) no longer blocks it. */
const LOCK_SECONDS = 60;

export interface StoredResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

export interface IdempotencyRecord {
  fingerprint: string;
  status: 'in_progress' | 'completed';
  response?: StoredResponse;
}

const seconds = (now: Date) => Math.floor(now.getTime() / 1000);

/** Takes the key for this request, or returns who has it: the record of an earlier request. */
export async function claimKey(scope: string, fingerprint: string, now: Date): Promise<IdempotencyRecord | undefined> {
  const t = seconds(now);
  try {
    await dynamo.send(
      new PutCommand({
        TableName: config.tableName,
        Item: {
          ...keys.idempotencyKey(scope),
          fingerprint,
          status: 'in_progress',
          lock_until: t + LOCK_SECONDS,
          expires_at: t + IDEMPOTENCY_TTL_SECONDS,
        },
        // Free, expired (TTL deletes late), or locked by a request that died.
        ConditionExpression: `${ITEM_IS_NEW} OR expires_at < :now OR (#status = :progress AND lock_until < :now)`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':now': t, ':progress': 'in_progress' },
      }),
    );
    return undefined;
  } catch (error) {
    if ((error as Error)?.name !== 'ConditionalCheckFailedException') throw error;
    const out = await dynamo.send(
      new GetCommand({ TableName: config.tableName, Key: keys.idempotencyKey(scope), ConsistentRead: true }),
    );
    // Gone meanwhile (a failed request released it): report it as in progress, the client retries.
    return (out.Item as IdempotencyRecord | undefined) ?? { fingerprint, status: 'in_progress' };
  }
}

export async function completeKey(scope: string, response: StoredResponse): Promise<void> {
  await dynamo.send(
    new UpdateCommand({
      TableName: config.tableName,
      Key: keys.idempotencyKey(scope),
      UpdateExpression: 'SET #status = :done, #response = :response',
      ExpressionAttributeNames: { '#status': 'status', '#response': 'response' },
      ExpressionAttributeValues: { ':done': 'completed', ':response': response },
    }),
  );
}

/** Frees the key after a request that changed nothing (a 5xx), so the same request may run again. */
export async function releaseKey(scope: string): Promise<void> {
  await dynamo.send(new DeleteCommand({ TableName: config.tableName, Key: keys.idempotencyKey(scope) }));
}
