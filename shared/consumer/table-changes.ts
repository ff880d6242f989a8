/**
 * The table's stream as this API consumes it (functions/stream/consume.ts on AWS, the
 * local runtime's stream poller, cli/stream.ts's replay): each batch of records goes to every
 * consumer in STREAM_CONSUMERS at once. A consumer is a module of its own that keeps something
 * derived from the records (counts and listings, the change feed, …); each is idempotent on its own
 * (records come twice, late, or in a retried batch), and none waits for another, so a batch takes
 * as long as its slowest consumer, not their sum (measured: docs/data-model.md, "The stream
 * consumer"). A batch fails when any consumer fails, after all have finished: the whole batch is
 * then retried, which the others, being idempotent, take as a repeat.
 */
import type { TicketRecord } from '../domain/ticket-counts';
import { TICKET_PREFIX, TICKET_SORT_KEY } from '../store/keys';
import { openingOf } from '../store/items';
import type { FilteredConsumer, StreamConsumer, TableChange } from './changes';
import { TABLE_CHANGE_CONSUMERS } from './stream-filters';
import { applyTicketRecords, ticketRecordOf } from './ticket-counts';
import { mendOpeningRefs, repairCollections, type Openings } from './collection-repair';
import { recordChangeEvents } from './change-feed';
import { listingWritesOfMoves, putListings } from './listings';
import { timedPhase } from './consumer-timings';
import { refreshPageSnapshots } from './page-snapshots';
import { SEARCH_INDEXER } from '../search/indexer';
import { TIME_SPENT } from './time-spent';

type Item = Record<string, unknown>;

/** The records the ticket state consumer needs (the stream filter on AWS says the same: infra/stream-consumer.ts). */
export function isCountedChange(change: TableChange): boolean {
  if (!change.keys.PK.startsWith(TICKET_PREFIX)) return false;
  if (change.keys.SK === TICKET_SORT_KEY) return true;
  const type = change.newImage?.type;
  return change.eventName === 'INSERT' && (type === 'followup' || type === 'attachment');
}

/**
 * Ticket state: the counts and the listing items (written before the counts transaction that
 * commits them: consumer/listings.ts listingWritesOfMoves), then the collection repairs the counted
 * status changes call for; the opening followups' refs and the page snapshots
 * (consumer/page-snapshots.ts) meanwhile.
 */
async function applyTicketState(changes: TableChange[]): Promise<void> {
  const tickets: TicketRecord[] = [];
  const removed: number[] = [];
  const added: Item[] = [];
  const openings: Openings = { created: [], deleted: [] };
  for (const change of changes.filter(isCountedChange)) {
    if (change.keys.SK !== TICKET_SORT_KEY) {
      added.push(change.newImage!);
      continue;
    }
    const ticket = Number(change.keys.PK.slice(TICKET_PREFIX.length));
    if (change.eventName === 'REMOVE') {
      tickets.push({ ticket, version: 0 });
      removed.push(ticket);
      const opening = change.oldImage && openingOf(change.oldImage);
      if (opening) openings.deleted.push(opening);
    } else {
      const image = change.newImage!;
      const opening = change.eventName === 'INSERT' && openingOf(image);
      if (opening) openings.created.push(opening);
      tickets.push({ ...ticketRecordOf(image), ticket });
    }
  }
  const countsAndRepairs = async () => {
    // 'counts' includes 'listings': the listing items are written inside it, before each counts transaction.
    const statusChanged = tickets.length
      ? await timedPhase('counts', () =>
          applyTicketRecords(tickets, (moves) =>
            timedPhase('listings', () => putListings(listingWritesOfMoves(moves, changes))),
          ),
        )
      : [];
    if (removed.length || statusChanged.length || added.length)
      await timedPhase('repairs', () => repairCollections({ removed, statusChanged, added }));
  };
  await settled([
    countsAndRepairs(),
    timedPhase('opening refs', () => mendOpeningRefs(openings)),
    timedPhase('page snapshots', () => refreshPageSnapshots(changes)),
  ]);
}

/**
 * The consumers of every batch, each with the records it takes (consumer/stream-filters.ts). To add
 * one: a module exporting a StreamConsumer, listed here with its filters, with the table grants it
 * needs added to STREAM_CONSUMER_GRANTS; the stack gives it a retry queue of its own
 * (infra/stream-consumer.ts) and adds its filters to the one reader's.
 */
export const STREAM_CONSUMERS: readonly FilteredConsumer[] = [
  { name: 'ticket state', apply: applyTicketState, filters: TABLE_CHANGE_CONSUMERS['ticket state'] },
  // Followups and attachments removed with their ticket give no event: it reads whether their ticket is still there.
  { name: 'change feed', apply: recordChangeEvents, filters: TABLE_CHANGE_CONSUMERS['change feed'] },
  { ...SEARCH_INDEXER, filters: TABLE_CHANGE_CONSUMERS['search index'] },
  { ...TIME_SPENT, filters: TABLE_CHANGE_CONSUMERS['time spent'] },
];

/**
 * Waits for every one, then fails with the first failure: nothing of a failed batch is still running when it is read
 * again.
 */
async function settled(work: Promise<unknown>[]): Promise<void> {
  const failed = (await Promise.allSettled(work)).find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
}

export async function applyTableChanges(
  changes: TableChange[],
  consumers: readonly StreamConsumer[] = STREAM_CONSUMERS,
): Promise<void> {
  await settled(consumers.map((c) => timedPhase(c.name, () => c.apply(changes))));
}
