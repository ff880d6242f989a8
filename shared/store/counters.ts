/** Integer ids, as upstream's, from one atomic counter item. */
import { GetCommand, UpdateCommand } from '../aws/dynamodb';
import { config } from '../config';
import { dynamo } from '../aws/clients';
import { keys } from './keys';
import { coalescing } from './coalesce';
import { conditionHeld } from './transact';

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
 * An id reserved by a request that then fails is never reused (gaps are harmless). Reservations
 * made at once in one process share one request (coalesce.ts), each given its own ranges in the
 * order the calls came.
 */
export async function reserveIds<C extends Counter>(counts: Partial<Record<C, number>>): Promise<Record<C, number>> {
  const wanted = Object.fromEntries(Object.entries(counts).filter(([, n]) => (n as number) > 0)) as Wanted;
  return (Object.keys(wanted).length ? await reserveTogether(keys.counters.PK, wanted) : {}) as Record<C, number>;
}

type Wanted = Partial<Record<Counter, number>>;

const reserveTogether = /* @__PURE__ */ coalescing<Wanted, Wanted>(async (_key, calls) => {
  const totals: Wanted = {};
  for (const call of calls) for (const [name, n] of entries(call)) totals[name] = (totals[name] ?? 0) + n;
  const names = entries(totals);
  const out = await dynamo.send(
    new UpdateCommand({
      TableName: config.tableName,
      Key: keys.counters,
      UpdateExpression: `ADD ${names.map((_, i) => `#c${i} :n${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(names.map(([name], i) => [`#c${i}`, name])),
      ExpressionAttributeValues: Object.fromEntries(names.map(([, n], i) => [`:n${i}`, n])),
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  // Each counter's next free id after the batch's ranges, handed out in the calls' order.
  const next: Wanted = {};
  for (const [name, n] of names) next[name] = (out.Attributes![name] as number) - n + 1;
  return calls.map((call) => {
    const first: Wanted = {};
    for (const [name, n] of entries(call)) {
      first[name] = next[name]!;
      next[name] = first[name] + n;
    }
    return first;
  });
});

const entries = (counts: Wanted) => Object.entries(counts) as [Counter, number][];

/** The highest id `counter` has handed out (0 when it has handed out none). */
export async function highestId(counter: Counter): Promise<number> {
  const out = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: keys.counters, ConsistentRead: true }),
  );
  return Number(out.Item?.[counter] ?? 0);
}

/**
 * Raises each id counter to at least `highest`, so that ids handed out after records written with ids of their own
 * (an import's, upstream's) continue above them.
 */
export async function raiseCounters(highest: Partial<Record<Counter, number>>): Promise<void> {
  for (const [name, value] of entries(highest)) {
    if (!value) continue;
    // Refused when the counter is already as high: nothing to do then.
    await conditionHeld(
      dynamo.send(
        new UpdateCommand({
          TableName: config.tableName,
          Key: keys.counters,
          UpdateExpression: 'SET #c = :v',
          ConditionExpression: 'attribute_not_exists(#c) OR #c < :v',
          ExpressionAttributeNames: { '#c': name },
          ExpressionAttributeValues: { ':v': value },
        }),
      ),
    );
  }
}
