/**
 * DynamoDB's transaction conflict rule, which DynamoDB Local does not apply (measured: 500
 * concurrent transactions updating one item all succeed there), emulated on the local runtime's
 * DynamoDB client so that the tests and the benchmarks meet the failures production would:
 *
 * - a TransactWriteItems that includes an item which another transaction in flight includes (any
 *   action: Put, Update, Delete, ConditionCheck) is cancelled: `TransactionCanceledException`, with
 *   `TransactionConflict` at that item's position and `None` elsewhere;
 * - a PutItem, UpdateItem or DeleteItem of such an item fails: `TransactionConflictException`.
 *
 * Neither is sent, so nothing is written, as on AWS; the client retries neither (on AWS neither is a
 * retryable error either). A transaction holds its items from just before its request goes out to
 * its answer, each attempt on its own. On by default; HELPDESK_EMULATE_CONFLICTS=false turns it off.
 */
import { DynamoDBServiceError, type DynamoDB } from '../../shared/aws/dynamodb';
import { TABLE_SCHEMA } from '../../shared/store/schema';

type Attributes = Record<string, unknown>;
interface WriteAction {
  TableName?: string;
  Key?: Attributes;
  Item?: Attributes;
}

const $metadata = { httpStatusCode: 400 };

/** Table and primary key of an item, as one string. */
function itemKey(action: WriteAction): string {
  const attributes = action.Key ?? action.Item ?? {};
  return JSON.stringify([action.TableName, attributes[TABLE_SCHEMA.partitionKey], attributes[TABLE_SCHEMA.sortKey]]);
}

export function emulationEnabled(env: Record<string, string | undefined> = process.env): boolean {
  return env.HELPDESK_EMULATE_CONFLICTS !== 'false';
}

export interface ConflictEmulation {
  /** Transactions and plain writes refused so far. */
  readonly refused: { transactions: number; writes: number };
  remove(): void;
}

/**
 * Installs the rule on `client` (the store's). It wraps each attempt, right before its request is
 * signed and sent, so time queued for a socket does not count as in flight.
 */
export function emulateTransactionConflicts(client: DynamoDB): ConflictEmulation {
  const held = new Map<string, number>(); // item → transactions in flight holding it
  const refused = { transactions: 0, writes: 0 };
  const remove = client.intercept(
    async ({ operation, input }, next) => {
      const { TransactItems } = input as { TransactItems?: Record<string, WriteAction>[] };
      if (operation === 'TransactWriteItems' && TransactItems) {
        const keys = TransactItems.map((item) => itemKey(Object.values(item)[0]!));
        if (keys.some((k) => held.has(k))) {
          refused.transactions++;
          const codes = keys.map((k) => (held.has(k) ? 'TransactionConflict' : 'None'));
          throw new DynamoDBServiceError(
            'TransactionCanceledException',
            `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(', ')}]`,
            $metadata,
            {
              CancellationReasons: codes.map((Code) =>
                Code === 'None' ? { Code } : { Code, Message: 'Transaction is ongoing for the item' },
              ),
            },
          );
        }
        for (const k of keys) held.set(k, (held.get(k) ?? 0) + 1);
        try {
          return await next();
        } finally {
          for (const k of keys) {
            const n = held.get(k)! - 1;
            if (n) held.set(k, n);
            else held.delete(k);
          }
        }
      }
      if (
        (operation === 'PutItem' || operation === 'UpdateItem' || operation === 'DeleteItem') &&
        held.has(itemKey(input))
      ) {
        refused.writes++;
        throw new DynamoDBServiceError(
          'TransactionConflictException',
          'Transaction is ongoing for the item',
          $metadata,
        );
      }
      return next();
    },
    { eachAttempt: true },
  );
  return { refused, remove };
}
