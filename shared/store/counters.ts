/** Integer ids, as upstream's, from one atomic counter item. */
import { UpdateCommand } from '../aws/dynamodb';
import { config } from '../config';
import { dynamo } from '../aws/clients';
import { keys } from './keys';

export type Counter =
  | 'ticket'
  | 'followup'
  | 'attachment'
  | 'user'
  | 'queue'
  | 'token'
  | 'ticket_cc'
  | 'escalation_exclusion'
  | 'ignored_sender';

/**
 * Reserves ids in one request: `{ followup: 1, attachment: 2 }` gives the first id of each range.
 * An id reserved by a request that then fails is never reused (gaps are harmless).
 */
export async function reserveIds<C extends Counter>(counts: Partial<Record<C, number>>): Promise<Record<C, number>> {
  const entries = Object.entries(counts).filter(([, n]) => (n as number) > 0) as [C, number][];
  const result = {} as Record<C, number>;
  if (!entries.length) return result;
  const out = await dynamo.send(
    new UpdateCommand({
      TableName: config.tableName,
      Key: keys.counters,
      UpdateExpression: `ADD ${entries.map((_, i) => `#c${i} :n${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(entries.map(([name], i) => [`#c${i}`, name])),
      ExpressionAttributeValues: Object.fromEntries(entries.map(([, n], i) => [`:n${i}`, n])),
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  for (const [name, n] of entries) result[name] = (out.Attributes![name] as number) - n + 1;
  return result;
}
