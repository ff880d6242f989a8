/** Multi-item writes as DynamoDB transactions, and the errors they can end in. */
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './clients';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** DynamoDB's limit on actions per transaction. */
export const MAX_TRANSACTION_ITEMS = 100;

/** A conditional check failed at the given positions of the transaction. */
export class ConditionFailed extends Error {
  constructor(readonly positions: number[]) {
    super(`Condition failed at ${positions.join(', ')}`);
  }
}

function asConditionFailed(error: unknown): ConditionFailed | undefined {
  const e = error as { name?: string; CancellationReasons?: { Code?: string }[] };
  if (e?.name === 'ConditionalCheckFailedException') return new ConditionFailed([0]);
  if (e?.name !== 'TransactionCanceledException' || !e.CancellationReasons) return undefined;
  const positions = e.CancellationReasons.flatMap((r, i) => (r.Code === 'ConditionalCheckFailed' ? [i] : []));
  return positions.length ? new ConditionFailed(positions) : undefined;
}

export async function transact(items: TransactItem[]): Promise<void> {
  try {
    await dynamo.send(new TransactWriteCommand({ TransactItems: items }));
  } catch (error) {
    throw asConditionFailed(error) ?? error;
  }
}

/**
 * Writes `essential` atomically, then `rest` (derived bookkeeping such as index keys of a large
 * collection) in further transactions. Everything fits one transaction in the common case.
 */
export async function transactEssentialFirst(essential: TransactItem[], rest: TransactItem[]): Promise<void> {
  const room = MAX_TRANSACTION_ITEMS - essential.length;
  await transact([...essential, ...rest.slice(0, room)]);
  for (let i = Math.max(room, 0); i < rest.length; i += MAX_TRANSACTION_ITEMS) {
    await transact(rest.slice(i, i + MAX_TRANSACTION_ITEMS));
  }
}
