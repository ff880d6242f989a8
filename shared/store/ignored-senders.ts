/**
 * Ignored senders (upstream's IgnoreEmail; domain/ignored-senders.ts): one partition, read whole by
 * mail in for every message, kept a minute per process (a change made here is seen at once by this
 * process: its copy is dropped).
 */
import { DeleteCommand, GetCommand, PutCommand } from '../aws/dynamodb';
import { config } from '../config';
import { dynamo } from '../aws/clients';
import { reserveIds } from './counters';
import { ITEM_EXISTS, ITEM_IS_NEW, keys } from './keys';
import { cachedPartition } from './query';
import { conditionHeld } from './transact';
import type { IgnoredSender } from '../domain/ignored-senders';

type Item = Record<string, unknown>;

const toRule = (item: Item): IgnoredSender => ({
  id: item.id as number,
  name: item.name as string,
  email_address: item.email_address as string,
  queues: (item.queues as number[] | undefined) ?? [],
  keep_in_mailbox: item.keep_in_mailbox === true,
  date: item.date as string,
});

export const IGNORED_SENDERS_TTL_MS = 60_000;
const rules = cachedPartition(keys.ignoredSenderPartition, IGNORED_SENDERS_TTL_MS, toRule);

/** Every rule, in id order (`fresh`: not the process's copy). */
export async function listIgnoredSenders(options: { fresh?: boolean } = {}): Promise<IgnoredSender[]> {
  return rules.read(options);
}

export async function getIgnoredSender(id: number): Promise<IgnoredSender | undefined> {
  const out = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: keys.ignoredSender(id), ConsistentRead: true }),
  );
  return out.Item ? toRule(out.Item) : undefined;
}

export async function createIgnoredSender(fields: Omit<IgnoredSender, 'id'>): Promise<IgnoredSender> {
  const rule = { id: (await reserveIds({ ignored_sender: 1 })).ignored_sender, ...fields };
  await dynamo.send(
    new PutCommand({
      TableName: config.tableName,
      Item: { ...keys.ignoredSender(rule.id), type: 'ignored-sender', ...rule },
      ConditionExpression: ITEM_IS_NEW,
    }),
  );
  rules.forget();
  return rule;
}

/** Deletes a rule; false when there was none. */
export async function deleteIgnoredSender(id: number): Promise<boolean> {
  try {
    return await conditionHeld(
      dynamo.send(
        new DeleteCommand({
          TableName: config.tableName,
          Key: keys.ignoredSender(id),
          ConditionExpression: ITEM_EXISTS,
        }),
      ),
    );
  } finally {
    rules.forget();
  }
}
