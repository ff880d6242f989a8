/**
 * The table's stream as this API consumes it (functions/maintenance/count-tickets.ts on AWS, the
 * local runtime's stream poller): ticket items keep the counts (store/ticket-counts.ts), the same
 * records drive the repairs of store/collection-repair.ts, and the records of ticket, followup and
 * attachment items become the change feed's events (store/change-feed.ts). Records may come twice, late, or in
 * a retried batch: both consumers are idempotent.
 */
import type { TicketRecord } from '../domain/ticket-counts';
import { TICKET_PREFIX, TICKET_SORT_KEY } from './keys';
import { applyTicketRecords } from './ticket-counts';
import { mendOpeningRefs, repairCollections, type Openings } from './collection-repair';
import { openingOf } from './items';
import { recordChangeEvents } from './change-feed';
import { applyListingChanges } from './listings';

type Item = Record<string, unknown>;

/** One stream record, its images unmarshalled (NEW_AND_OLD_IMAGES). */
export interface TableChange {
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE';
  keys: { PK: string; SK: string };
  newImage?: Item;
  oldImage?: Item;
  /**
   * Where the record is in the stream: its `eventID` (the same on every retry), its sequence number
   * and its approximate creation time (epoch ms; on AWS rounded down to the second). The change
   * feed's events are derived from it (store/change-feed.ts); a record without it gives none.
   */
  stream?: StreamPosition;
}

export interface StreamPosition {
  id: string;
  sequence: string;
  at: number;
}

/** The records the consumer needs (the stream filter on AWS says the same: infra/ticket-counts.ts). */
export function isCountedChange(change: TableChange): boolean {
  if (!change.keys.PK.startsWith(TICKET_PREFIX)) return false;
  if (change.keys.SK === TICKET_SORT_KEY) return true;
  const type = change.newImage?.type;
  return change.eventName === 'INSERT' && (type === 'followup' || type === 'attachment');
}

export async function applyTableChanges(changes: TableChange[]): Promise<void> {
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
      tickets.push({ ticket, version: Number(image.version ?? 0), state: { status: Number(image.status), queue: Number(image.queue) } });
    }
  }
  const statusChanged = tickets.length ? await applyTicketRecords(tickets) : [];
  if (removed.length || statusChanged.length || added.length) await repairCollections({ removed, statusChanged, added });
  await mendOpeningRefs(openings);
  await applyListingChanges(changes);
  // After the repairs: a followup they removed with its ticket is then known to be gone with it.
  await recordChangeEvents(changes);
}
