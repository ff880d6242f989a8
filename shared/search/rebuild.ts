/**
 * Rebuilds the search index from the table (`npm run helpdesk -- reindex`): empties it, then feeds
 * the custom field definitions and the queues, then every ticket collection's items in id order,
 * through the stream consumer's own code (indexer.ts), a page at a time, each page and the rebuild's
 * position in one transaction. Stopped (Ctrl-C, a failure), it goes on from that position next
 * time; `restart` starts over. The stream keeps applying changes meanwhile: a ticket changed while
 * the rebuild passes it may show its state as read until its next change (or a second rebuild).
 */
import type { TableChange } from '../consumer/changes';
import { customFieldItems, queueItems, ticketCount, ticketItemPages } from '../store/search-source';
import { TICKET_PREFIX } from '../store/keys';
import { searchEngine } from './engine';
import { applyToIndex } from './indexer';
import { REBUILD } from './sql';
import { SearchOff } from './search';

type Item = Record<string, unknown>;

const asInsert = (item: Item): TableChange => ({
  eventName: 'INSERT',
  keys: { PK: String(item.PK), SK: String(item.SK) },
  newImage: item,
});

export interface RebuildProgress {
  /** Tickets indexed so far (of this run and any before it that it resumes). */
  tickets: number;
  /** About how many the table holds (its counts). */
  total: number;
  resumedFrom?: number;
}

/** Rebuilds the index; `onProgress` hears after each page. Returns the tickets indexed by this run. */
export async function rebuildSearchIndex(
  options: { restart?: boolean; onProgress?: (progress: RebuildProgress) => void } = {},
): Promise<RebuildProgress> {
  const engine = searchEngine();
  if (!engine) throw new SearchOff();
  const driver = await engine;
  const [row] = await driver.query({ sql: REBUILD.progress });
  const resume = options.restart || row === undefined ? undefined : Number(row.next_ticket);
  if (resume === undefined) {
    await driver.transaction(REBUILD.start.map((sql) => ({ sql })));
    const [fields, queues] = await Promise.all([customFieldItems(), queueItems()]);
    await applyToIndex([...fields, ...queues].map(asInsert));
  }
  const total = await ticketCount();
  const progress: RebuildProgress = { tickets: 0, total, ...(resume ? { resumedFrom: resume } : {}) };
  let last = resume ?? 0;
  for await (const page of ticketItemPages(resume ?? 0)) {
    const tickets = page.filter((i) => i.type === 'ticket').length;
    const lastItem = page.at(-1);
    if (lastItem) last = Number(String(lastItem.PK).slice(TICKET_PREFIX.length));
    await applyToIndex(page.map(asInsert), [{ sql: REBUILD.advance, params: { next: String(last) } }]);
    progress.tickets += tickets;
    options.onProgress?.(progress);
  }
  await driver.query({ sql: REBUILD.finish });
  return progress;
}
