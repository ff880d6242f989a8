/**
 * A transaction's write units as DynamoDB bills them. DynamoDB Local's consumed capacity for a
 * TransactWriteItems is not DynamoDB's (it reported 2 for a four-item counts transaction that
 * DynamoDB bills 8), so the bench computes it: 2 write units per KB (rounded up) of each item the
 * transaction puts, updates, deletes or checks, by the larger of the item's size before and after
 * the call (read around it, consistent, and not counted as the measured work's). Index writes are
 * not added: the counts items it is used for (bench/counts.ts) carry no index keys. Why the other
 * benches keep DynamoDB Local's figures for transactions: with index writes the bill is not
 * computed here yet (docs/cost.md says what that leaves uncertain).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { BatchGetCommand, type DynamoCall, type DynamoDB, type DynamoInterceptor } from '../shared/aws/dynamodb';
import { asNoFunction } from '../infra/local/table-access';
import { itemSize } from './item-size';

type Item = Record<string, unknown>;
type Next = Parameters<DynamoInterceptor>[1];

interface TransactAction {
  Put?: { Item: Item };
  Update?: { Key: Item };
  Delete?: { Key: Item };
  ConditionCheck?: { Key: Item };
}

const keyText = (key: Item) => `${String(key.PK)}|${String(key.SK)}`;

/** The keys of the items a TransactWriteItems input touches. */
function transactionKeys(input: Item): Item[] {
  return (input.TransactItems as TransactAction[]).map((a) =>
    a.Put ? { PK: a.Put.Item.PK, SK: a.Put.Item.SK } : (a.Update ?? a.Delete ?? a.ConditionCheck)!.Key,
  );
}

export function transactionBilling(dynamo: DynamoDB, table: () => string) {
  const uncounted = new AsyncLocalStorage<true>();
  /** The items' sizes in bytes as stored now (0: absent). */
  const sizes = (keys: Item[]) =>
    asNoFunction(() =>
      uncounted.run(true, async () => {
        const found = new Map<string, number>();
        let pending = keys;
        while (pending.length) {
          const out = await dynamo.send(
            new BatchGetCommand({ RequestItems: { [table()]: { Keys: pending, ConsistentRead: true } } }),
          );
          for (const item of out.Responses?.[table()] ?? []) found.set(keyText(item), itemSize(item));
          pending = (out.UnprocessedKeys?.[table()]?.Keys ?? []) as Item[];
        }
        return found;
      }),
    );
  return {
    /** Whether a call is the billing's own read (not the measured work's). */
    isOwnRead: () => uncounted.getStore() === true,
    /** Runs a TransactWriteItems call, answering with its billed write units beside its output. */
    async transact(call: DynamoCall, next: Next): Promise<{ out: Awaited<ReturnType<Next>>; writeUnits: number }> {
      const keys = transactionKeys(call.input);
      const before = await sizes(keys);
      const out = await next();
      const after = await sizes(keys);
      const writeUnits = keys.reduce((total, key) => {
        const bytes = Math.max(before.get(keyText(key)) ?? 0, after.get(keyText(key)) ?? 0);
        return total + 2 * Math.max(1, Math.ceil(bytes / 1024));
      }, 0);
      return { out, writeUnits };
    },
  };
}
