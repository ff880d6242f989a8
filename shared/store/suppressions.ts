/**
 * The suppression list: addresses no mail goes to, because they bounced hard or their owner
 * complained (put there by the SES event recorder, functions/mail/record-event.ts). One partition
 * (keys.ts `suppression`), one item per lower-case address; superusers list and clear it.
 */
import { DeleteCommand, PutCommand } from '../aws/dynamodb';
import { suppressionAddress, type Suppression } from '../domain/mail-settings';
import { config } from '../config';
import { dynamo } from '../aws/clients';
import { IN_PARTITION, ITEM_EXISTS, keys } from './keys';
import { batchGet, queryAll } from './query';

function toSuppression(item: Record<string, unknown>): Suppression {
  return {
    address: item.address as string,
    reason: item.reason as Suppression['reason'],
    detail: (item.detail as string | undefined) ?? '',
    since: item.since as string,
    message_id: (item.message_id as string | null | undefined) ?? null,
  };
}

/** Every suppressed address, in address order. */
export async function listSuppressions(): Promise<Suppression[]> {
  const items = await queryAll({
    KeyConditionExpression: IN_PARTITION,
    ExpressionAttributeValues: { ':pk': keys.suppressionPartition },
    ConsistentRead: true,
  });
  return items.map(toSuppression);
}

/** The entry of one address (any case), if it is on the list. */
export async function getSuppression(address: string): Promise<Suppression | undefined> {
  const [item] = await batchGet([keys.suppression(suppressionAddress(address))]);
  return item ? toSuppression(item) : undefined;
}

/**
 * Which of `addresses` are on the list (for the sender: one BatchGetItem per 100), as their
 * lower-case forms.
 */
export async function suppressedAmong(addresses: readonly string[]): Promise<Set<string>> {
  if (!addresses.length) return new Set();
  const items = await batchGet(addresses.map((a) => keys.suppression(suppressionAddress(a))));
  return new Set(items.map((i) => i.address as string));
}

/** Puts an address on the list (again: the latest reason wins). */
export async function suppress(entry: Suppression): Promise<void> {
  const address = suppressionAddress(entry.address);
  await dynamo.send(
    new PutCommand({ TableName: config.tableName, Item: { ...keys.suppression(address), ...entry, address } }),
  );
}

/** Takes an address off the list; false when it was not on it. */
export async function unsuppress(address: string): Promise<boolean> {
  try {
    await dynamo.send(
      new DeleteCommand({
        TableName: config.tableName,
        Key: keys.suppression(suppressionAddress(address)),
        ConditionExpression: ITEM_EXISTS,
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}
