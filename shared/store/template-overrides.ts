/**
 * Mail template overrides (domain/template-overrides.ts): one small partition, read whole. The
 * sender keeps it for OVERRIDES_TTL_MS per warm function, so an operator's change shows within a
 * minute without a deploy (at once in the process that made it).
 */
import { DeleteCommand, PutCommand } from '../aws/dynamodb';
import type { MailKind } from '../domain/mail-settings';
import { effectiveOverride, type TemplateOverride, type TemplatePart } from '../domain/template-overrides';
import { config } from '../config';
import { dynamo } from '../aws/clients';
import { ITEM_EXISTS, keys } from './keys';
import { cachedPartition } from './query';

export const OVERRIDES_TTL_MS = 60_000;

function toOverride(item: Record<string, unknown>): TemplateOverride {
  return {
    kind: item.kind as MailKind,
    queue: (item.queue as number | null) ?? null,
    subject: (item.subject as string | null) ?? null,
    text: (item.text as string | null) ?? null,
    html: (item.html as string | null) ?? null,
    updated: item.updated as string,
  };
}

/** Every override, global ones first per kind (the sort key's order). */
const overrides = cachedPartition(keys.templateOverridePartition, OVERRIDES_TTL_MS, toOverride);

export async function listTemplateOverrides(options: { fresh?: boolean } = {}): Promise<TemplateOverride[]> {
  return overrides.read(options);
}

/** The overridden parts of `kind` for a mail of `queue` (for the sender); parts absent keep their default. */
export async function readTemplateOverrides(
  kind: MailKind,
  queue: number,
): Promise<Partial<Record<TemplatePart, string>>> {
  return effectiveOverride(await listTemplateOverrides(), kind, queue);
}

export async function saveTemplateOverride(override: TemplateOverride): Promise<void> {
  try {
    await dynamo.send(
      new PutCommand({
        TableName: config.tableName,
        Item: { ...keys.templateOverride(override.kind, override.queue), ...override },
      }),
    );
  } finally {
    overrides.forget();
  }
}

/** Removes the override of `kind` (for `queue`, or the global one); false when there was none. */
export async function deleteTemplateOverride(kind: MailKind, queue: number | null): Promise<boolean> {
  try {
    await dynamo.send(
      new DeleteCommand({
        TableName: config.tableName,
        Key: keys.templateOverride(kind, queue),
        ConditionExpression: ITEM_EXISTS,
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  } finally {
    overrides.forget();
  }
}
