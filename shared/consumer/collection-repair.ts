/**
 * What the stream consumer mends in ticket collections. Adding a followup or an attachment does not
 * write the ticket item (so that concurrent additions never conflict), which leaves two races that
 * a transaction would otherwise have caught, both rare and both visible in the stream:
 *
 * - the ticket was deleted as the followup committed: the followup (and its attachments, refs and
 *   files) is left without its ticket. Seen as the ticket's REMOVE with items still in its
 *   partition, or as a child's INSERT whose ticket is gone: the leftovers are deleted, their files
 *   recorded for the sweeper (store/file-cleanups.ts).
 * - the ticket's status changed as the followup committed: the followup is keyed under the old
 *   status in gsi2 (status-filtered list pages). Seen as the status change, or as the child's INSERT
 *   under a status its ticket no longer has: the child is re-keyed.
 *
 * - a plain create or delete stopped between its ticket item and the ref of the opening followup
 *   that item holds (store/tickets.ts): seen as the ticket's INSERT without that ref (written), or
 *   as its REMOVE, whose old image names the opening followup, with the ref still there (removed).
 *
 * Every step reads the table as it is now, so repeating one (a retried batch) is harmless.
 */
import { keys, TICKET_PREFIX, ITEM_IS_NEW, IN_PARTITION, INDEXES } from '../store/keys';
import { cleanupsOfDeleted } from '../store/file-cleanups';
import { batchGet, queryAll } from '../store/query';
import { put, rekeyStatus } from '../store/tickets';
import { followupRefItem, openingOf } from '../store/items';
import type { Followup } from '../domain/records';
import { loadReferences } from '../store/references';
import type { Ticket } from '../domain/records';
import { ConditionFailed, transactEssentialFirst, transact, type TransactItem } from '../store/transact';
import { config } from '../config';
import { logger } from '../observability';

type Item = Record<string, unknown>;

/** Deletes items left in a deleted ticket's partition, with the refs of its followups and attachments. */
async function deleteLeftovers(items: Item[]): Promise<void> {
  if (!items.length) return;
  const deletes: TransactItem[] = [];
  for (const item of items) {
    deletes.push({ Delete: { TableName: config.tableName, Key: { PK: item.PK, SK: item.SK } } });
    if (item.type === 'followup' || item.type === 'attachment') {
      deletes.push({ Delete: { TableName: config.tableName, Key: keys.ref(item.type, Number(item.id)) } });
    }
  }
  const files = cleanupsOfDeleted(items.filter((i) => i.type === 'attachment').map((i) => String(i.object_key)));
  logger.warn('removing followups left behind by a deleted ticket', {
    items: items.map((i) => `${String(i.PK)} ${String(i.SK)}`),
  });
  await transactEssentialFirst(files.actions, deletes); // the file records first: no file is ever forgotten
}

/**
 * Re-keys children listed under another status than their ticket's (`status`, as just read). Each
 * re-key is conditional on the child still having the key seen: a writer that re-keyed it meanwhile
 * (a later status change) read a newer status than ours, and wins.
 */
async function rekey(children: Item[], ticket: number, status: number): Promise<void> {
  const stale = children.filter((c) => c[INDEXES.gsi2.partitionKey] !== keys.listByStatusPartition(status));
  for (const child of stale) {
    const update = rekeyStatus({ PK: String(child.PK), SK: String(child.SK) }, ticket, status).Update!;
    try {
      await transact([
        {
          Update: {
            ...update,
            ConditionExpression: `${INDEXES.gsi2.partitionKey} = :seen`,
            ExpressionAttributeValues: {
              ...update.ExpressionAttributeValues,
              ':seen': child[INDEXES.gsi2.partitionKey],
            },
          },
        },
      ]);
    } catch (error) {
      if (!(error instanceof ConditionFailed)) throw error; // re-keyed or deleted meanwhile
    }
  }
}

/** A ticket's whole partition, as it is now. */
function partition(ticket: number): Promise<Item[]> {
  return queryAll({
    KeyConditionExpression: IN_PARTITION,
    ExpressionAttributeValues: { ':pk': keys.ticketPartition(ticket) },
    ConsistentRead: true,
  });
}

export interface RepairWork {
  /** Tickets whose item was deleted. */
  removed: number[];
  /** Tickets whose status changed. */
  statusChanged: number[];
  /** Followups and attachments just inserted (their new images). */
  added: Item[];
}

export async function repairCollections(work: RepairWork): Promise<void> {
  for (const id of work.removed) {
    const left = await partition(id);
    if (!left.some((i) => i.type === 'ticket')) await deleteLeftovers(left);
  }
  for (const id of work.statusChanged) {
    const items = await partition(id);
    const ticket = items.find((i) => i.type === 'ticket');
    if (ticket)
      await rekey(
        items.filter((i) => i.type === 'followup' || i.type === 'attachment'),
        id,
        Number(ticket.status),
      );
  }
  const byTicket = new Map<number, Item[]>();
  for (const child of work.added) {
    const ticket = Number(String(child.PK).slice(TICKET_PREFIX.length));
    byTicket.set(ticket, [...(byTicket.get(ticket) ?? []), child]);
  }
  // Their tickets as they are now, 100 to a BatchGet (consistent): a burst's followups cost one read per batch.
  const ids = [...byTicket.keys()];
  const tickets = new Map<number, Ticket>();
  for (let i = 0; i < ids.length; i += 100) {
    for (const [id, t] of (await loadReferences({ queues: [], users: [], tickets: ids.slice(i, i + 100) })).tickets)
      tickets.set(id, t);
  }
  for (const [id, children] of byTicket) {
    const ticket = tickets.get(id);
    if (ticket) await rekey(children, id, ticket.status);
    else if (!work.removed.includes(id)) {
      // Only what is still there: the ticket's own delete may have taken some of it.
      const left = await partition(id);
      if (!left.some((i) => i.type === 'ticket')) await deleteLeftovers(left);
    }
  }
}

/** Opening followups of tickets just created, and of tickets just deleted while still holding one. */
export interface Openings {
  created: Followup[];
  deleted: Followup[];
}

/**
 * Writes the ref of a created ticket's opening followup where it is missing (and the ticket still
 * holds that followup), and removes the ref of a deleted ticket's one where it still points there.
 * One BatchGet of the refs per batch; more only when a write was interrupted.
 */
export async function mendOpeningRefs({ created, deleted }: Openings): Promise<void> {
  if (!created.length && !deleted.length) return;
  const refs = new Map(
    (await batchGet([...created, ...deleted].map((f) => keys.ref('followup', f.id)))).map((r) => [
      Number(r.id),
      Number(r.ticket),
    ]),
  );
  const missing = created.filter((f) => !refs.has(f.id));
  const holders = missing.length
    ? await batchGet([...new Set(missing.map((f) => f.ticket))].map((t) => keys.ticket(t)))
    : [];
  const held = new Set(holders.map((t) => openingOf(t)?.id));
  const writes: TransactItem[] = [
    ...missing.filter((f) => held.has(f.id)).map((f) => put(followupRefItem(f), ITEM_IS_NEW)),
    ...deleted
      .filter((f) => refs.get(f.id) === f.ticket)
      .map((f): TransactItem => ({
        Delete: {
          TableName: config.tableName,
          Key: keys.ref('followup', f.id),
          ConditionExpression: '#ticket = :ticket',
          ExpressionAttributeNames: { '#ticket': 'ticket' },
          ExpressionAttributeValues: { ':ticket': f.ticket },
        },
      })),
  ];
  // Missing: a create still between its two writes (its own write of the ref then lands on this one,
  // the same item), or one that stopped there. The first is the rule whenever the consumer keeps up
  // with a burst (measured: a dozen in a burst of 500 creates, docs/data-model.md "The stream
  // consumer"), and either way the ref is written here: nothing to warn of. A create whose write of
  // the ref failed warns itself (store/tickets.ts createTicket).
  if (writes.length)
    logger.debug('writing opening followup refs not found (yet) where they should be', { refs: writes.length });
  for (const write of writes) {
    await transact([write]).catch((error: unknown) => {
      if (!(error instanceof ConditionFailed)) throw error; // written or moved meanwhile
    });
  }
}
