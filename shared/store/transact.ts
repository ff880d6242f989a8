/** Multi-item writes as DynamoDB transactions, and the errors they can end in. */
import {
  DeleteCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
  type TransactWriteCommandInput,
} from '../aws/dynamodb';
import { dynamo } from '../aws/clients';
import { retryErrorType } from '../aws/aws-request';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** DynamoDB's limit on actions per transaction. */
export const MAX_TRANSACTION_ITEMS = 100;

/** A single conditional write (PutItem, UpdateItem, DeleteItem) found its condition false. */
export function isConditionFailure(error: unknown): boolean {
  return (error as Error)?.name === 'ConditionalCheckFailedException';
}

/** Awaits a single conditional write: false when its condition did not hold. */
export async function conditionHeld(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** A conditional check failed at the given positions of the transaction. */
export class ConditionFailed extends Error {
  constructor(
    readonly positions: number[],
    options?: ErrorOptions,
  ) {
    super(`Condition failed at ${positions.join(', ')}`, options);
  }
}

function asConditionFailed(error: unknown): ConditionFailed | undefined {
  const e = error as { name?: string; CancellationReasons?: { Code?: string }[] };
  if (e?.name === 'ConditionalCheckFailedException') return new ConditionFailed([0], { cause: error });
  if (e?.name !== 'TransactionCanceledException' || !e.CancellationReasons) return undefined;
  const positions = e.CancellationReasons.flatMap((r, i) => (r.Code === 'ConditionalCheckFailed' ? [i] : []));
  return positions.length ? new ConditionFailed(positions, { cause: error }) : undefined;
}

/**
 * Another transaction or write held one of the items (DynamoDB cancels rather than waits: two
 * writes of one ticket at once, or the stream consumer's counts transactions on the totals items).
 * No request's transaction holds an item that all requests share (docs/data-model.md). Named as the SDK's
 * throttling errors are, so that a request that gives up answers 503 with Retry-After.
 */
export class TransactionConflict extends Error {
  override name = 'TransactionConflictException';
}

function isConflict(error: unknown): boolean {
  const e = error as { name?: string; CancellationReasons?: { Code?: string }[] };
  if (e?.name === 'TransactionConflictException') return true; // a plain write meeting a transaction in flight
  return (
    e?.name === 'TransactionCanceledException' && !!e.CancellationReasons?.some((r) => r.Code === 'TransactionConflict')
  );
}

/**
 * Whether a write that ended in `error` surely applied nothing: DynamoDB refused it (a condition, a
 * conflict, throttling). Not a server error or a lost connection: the write may have been applied.
 * Nor a plain write's failed condition after the client's retries: an earlier attempt may have been
 * applied and its answer lost, and the retry met its own write (a transaction's attempts carry one
 * token, so a retry of one that was applied succeeds).
 */
export function refusedWhole(error: unknown): boolean {
  if (error instanceof TransactionConflict) return true;
  if (error instanceof ConditionFailed) {
    const cause = error.cause as { name?: string; $metadata?: { attempts?: number } } | undefined;
    return cause?.name === 'TransactionCanceledException' || (cause?.$metadata?.attempts ?? 1) <= 1;
  }
  const e = error as { name?: string; CancellationReasons?: { Code?: string }[] } | undefined;
  if (e?.name === 'TransactionCanceledException')
    return !!e.CancellationReasons?.some(
      (r) => r.Code === 'ThrottlingError' || r.Code === 'ProvisionedThroughputExceeded',
    );
  return error instanceof Error && retryErrorType(error) === 'THROTTLING';
}

/**
 * A write of one item needs no transaction: the same action as a plain PutItem, UpdateItem or
 * DeleteItem is as atomic and bills half (a transaction bills its item and each index entry twice).
 */
function sendOne(item: TransactItem) {
  if (item.Put) return dynamo.send(new PutCommand(item.Put));
  if (item.Update) return dynamo.send(new UpdateCommand(item.Update));
  if (item.Delete) return dynamo.send(new DeleteCommand(item.Delete));
  return dynamo.send(new TransactWriteCommand({ TransactItems: [item] })); // a lone ConditionCheck
}

/**
 * Attempts of a transaction cancelled by a conflict (a cancelled transaction wrote nothing), with
 * exponential backoff and full jitter as AWS advises: about 1.2 s in all at worst. Only writes of the
 * same record can conflict (no request's transaction shares an item with another's), so this is
 * two edits of one ticket meeting, and one of them waits.
 */
export const CONFLICT_ATTEMPTS = 6;

/**
 * The pause before attempt `attempt + 1` of a write that lost to another (a conflict, or a version
 * condition that failed): exponential with full jitter, 0–40 ms after the first, 0–80 after the
 * second..., so contenders that met once spread out instead of meeting again.
 */
export function backOff(attempt: number): Promise<void> {
  return new Promise((done) => setTimeout(done, Math.random() * 20 * 2 ** attempt));
}

export async function transact(items: TransactItem[]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await (items.length === 1 ? sendOne(items[0]!) : dynamo.send(new TransactWriteCommand({ TransactItems: items })));
      return;
    } catch (error) {
      const failed = asConditionFailed(error);
      if (failed) throw failed;
      if (!isConflict(error)) throw error;
      if (attempt === CONFLICT_ATTEMPTS)
        throw new TransactionConflict('Transaction cancelled by conflicting writes', { cause: error });
      await backOff(attempt);
    }
  }
}

/**
 * Writes `essential` first, then `rest` (derived bookkeeping such as index keys of a large
 * collection), 100 actions per transaction. Everything fits one transaction in the common case;
 * beyond DynamoDB's limit (a huge merge group, a collection of hundreds of items) the write is split
 * rather than refused, essential items first, and the readers tolerate the moment in between.
 */
export async function transactEssentialFirst(essential: TransactItem[], rest: TransactItem[]): Promise<void> {
  const all = [...essential, ...rest];
  for (let i = 0; i < all.length; i += MAX_TRANSACTION_ITEMS) {
    await transact(all.slice(i, i + MAX_TRANSACTION_ITEMS));
  }
}
