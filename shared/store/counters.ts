/** Integer ids, as upstream's, from one atomic counter item. */
import { UpdateCommand } from '../aws/dynamodb';
import { config } from '../config';
import { dynamo } from '../aws/clients';
import { keys } from './keys';
import { coalescing } from './coalesce';

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
