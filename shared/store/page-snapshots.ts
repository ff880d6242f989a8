/**
 * Page snapshots' read half (docs/data-model.md, "Filtered lists"): a page's collections from the
 * tickets' snapshots, which the stream consumer keeps (consumer/page-snapshots.ts).
 */
import type { ReadCollection } from './items';
import { collectionsFrom } from './items';
import { batchGet, queryAll } from './query';
import { keys, IN_PARTITION } from './keys';

type Item = Record<string, unknown>;

/**
 * The collections of `tickets` as a page shows them: their snapshots in one BatchGetItem (per 100,
 * eventually consistent: they follow the stream, as the listing items that named these tickets
 * do), and one Query each for those without one.
 */
export async function readPageCollections(tickets: number[]): Promise<Map<number, ReadCollection>> {
  const snapshots = await batchGet(
    tickets.map((t) => keys.pageSnapshot(t)),
    { consistent: false },
  );
  const found = collectionsFrom(snapshots.flatMap((s) => JSON.parse(String(s.items)) as Item[]));
  const missing = tickets.filter((t) => !found.has(t));
  if (!missing.length) return found;
  const pages = await Promise.all(
    missing.map((t) =>
      queryAll({ KeyConditionExpression: IN_PARTITION, ExpressionAttributeValues: { ':pk': keys.ticketPartition(t) } }),
    ),
  );
  for (const [id, c] of collectionsFrom(pages.flat())) found.set(id, c);
  return found;
}
