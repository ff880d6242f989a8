/**
 * The table's stream as this API consumes it (functions/maintenance/count-tickets.ts on AWS, the
 * local runtime's stream poller): ticket items keep the counts (store/ticket-counts.ts), and the
 * same records drive the repairs of store/collection-repair.ts. Records may come twice, late, or in
 * a retried batch: both consumers are idempotent.
 */
import type { TicketRecord } from '../domain/ticket-counts';
import { TICKET_PREFIX } from './keys';
import { applyTicketRecords } from './ticket-counts';
import { repairCollections } from './collection-repair';

type Item = Record<string, unknown>;

/** One stream record, its images unmarshalled (the stream carries new images only: NEW_IMAGE). */
export interface TableChange {
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE';
  keys: { PK: string; SK: string };
  newImage?: Item;
}

/** The records the consumer needs (the stream filter on AWS says the same: infra/ticket-counts.ts). */
export function isCountedChange(change: TableChange): boolean {
  if (!change.keys.PK.startsWith(TICKET_PREFIX)) return false;
  if (change.keys.SK === 'TICKET') return true;
  const type = change.newImage?.type;
  return change.eventName === 'INSERT' && (type === 'followup' || type === 'attachment');
}

export async function applyTableChanges(changes: TableChange[]): Promise<void> {
  const tickets: TicketRecord[] = [];
  const removed: number[] = [];
  const added: Item[] = [];
  for (const change of changes.filter(isCountedChange)) {
    if (change.keys.SK !== 'TICKET') {
      added.push(change.newImage!);
      continue;
    }
    const ticket = Number(change.keys.PK.slice(TICKET_PREFIX.length));
    if (change.eventName === 'REMOVE') {
      tickets.push({ ticket, version: 0 });
      removed.push(ticket);
    } else {
      const image = change.newImage!;
      tickets.push({ ticket, version: Number(image.version ?? 0), state: { status: Number(image.status), queue: Number(image.queue) } });
    }
  }
  const statusChanged = tickets.length ? await applyTicketRecords(tickets) : [];
  if (removed.length || statusChanged.length || added.length) await repairCollections({ removed, statusChanged, added });
}
