/**
 * Custom field definitions: one partition, read whole. Every ticket handler needs them, so a warm
 * function keeps them for config.customFieldsCacheMs (DEFINITIONS_TTL_MS unless set: a change made
 * elsewhere shows within that time; one made by this process at once).
 */
import { DeleteCommand, PutCommand } from '../aws/dynamodb';
import type { CustomFieldDefinition } from '../domain/custom-fields';
import { config } from '../config';
import { dynamo } from '../aws/clients';
import { keys, ITEM_EXISTS, ITEM_IS_NEW } from './keys';
import { cachedPartition } from './query';

export class DuplicateFieldName extends Error {}

function strip(item: Record<string, unknown>): CustomFieldDefinition {
  const { PK: _pk, SK: _sk, ...def } = item;
  return def as unknown as CustomFieldDefinition;
}

const definitions = cachedPartition(keys.customFieldPartition, () => config.customFieldsCacheMs, strip);

export async function listCustomFields(options: { fresh?: boolean } = {}): Promise<CustomFieldDefinition[]> {
  return definitions.read(options);
}

export async function getCustomField(name: string): Promise<CustomFieldDefinition | undefined> {
  return (await listCustomFields({ fresh: true })).find((d) => d.name === name);
}

/** Writes a definition; `create` refuses an existing name. */
export async function saveCustomField(def: CustomFieldDefinition, create: boolean): Promise<void> {
  try {
    await dynamo.send(
      new PutCommand({
        TableName: config.tableName,
        Item: { ...keys.customField(def.name), ...def },
        ConditionExpression: create ? ITEM_IS_NEW : ITEM_EXISTS,
      }),
    );
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException' && create) throw new DuplicateFieldName();
    throw error;
  } finally {
    definitions.forget();
  }
}

/**
 * Removes a definition. Values stored on tickets stay in their items, unseen: they are keyed by the
 * definition's internal key, which a field created again under the same name does not share.
 */
export async function deleteCustomField(name: string): Promise<boolean> {
  try {
    await dynamo.send(
      new DeleteCommand({ TableName: config.tableName, Key: keys.customField(name), ConditionExpression: ITEM_EXISTS }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  } finally {
    definitions.forget();
  }
}
