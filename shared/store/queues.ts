/** Queues: tickets refer to a queue by integer id. */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Queue } from '../domain/records';
import { config } from '../config';
import { dynamo } from './clients';
import { keys } from './keys';

export async function getQueue(id: number): Promise<Queue | undefined> {
  const out = await dynamo.send(new GetCommand({ TableName: config.tableName, Key: keys.queue(id), ConsistentRead: true }));
  if (!out.Item) return undefined;
  const { title, slug } = out.Item;
  return { id, title, slug };
}

/** Creates the queue unless one with this id exists already; returns whether it did. */
export async function ensureQueue(queue: Queue): Promise<boolean> {
  try {
    await dynamo.send(
      new PutCommand({
        TableName: config.tableName,
        Item: { ...keys.queue(queue.id), ...queue },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}
