/**
 * Tickets and their item collections: named access patterns over the single table.
 * See docs/data-model.md for the keys and the cost of each operation.
 */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Attachment, Followup, Ticket, TicketCollection } from '../domain/records';
import type { TicketChanges } from '../domain/ticket';
import { pageWindow, type PageRequest, type PageWindow } from '../domain/pagination';
import { config } from '../config';
import { dynamo } from './clients';
import { keys } from './keys';
import { attachmentSlot, indexChanges, readTicketCounts, ticketIndexChanges } from './id-index';
import { attachmentItem, collectionsFrom, followupItem, mergedItem, strip, ticketItem, type ReadCollection } from './items';
import { countTickets } from './queues';
import { outboxPut, type OutboxEvent } from './outbox';
import { cleanupsOfDeleted, type FileCleanup } from './file-cleanups';
import { queryAll } from './query';
import { ConditionFailed, transact, transactEssentialFirst, type TransactItem } from './transact';

type Item = Record<string, unknown>;

/** The ticket changed between our read and our write (another writer won): read again and retry. */
export class StaleTicket extends Error {}
/** The ticket does not exist (any more). */
export class MissingTicket extends Error {}
/** The ticket's queue was deleted meanwhile. */
export class MissingQueueOnWrite extends Error {}

/** One Query reads a ticket whole (strongly consistent). */
export async function readTicket(id: number): Promise<ReadCollection | undefined> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': keys.ticketPartition(id) },
    ConsistentRead: true,
  });
  return collectionsFrom(items).get(id);
}

/** The ticket item alone (strongly consistent), without its followups. */
export async function getTicket(id: number): Promise<Ticket | undefined> {
  const out = await dynamo.send(new GetCommand({ TableName: config.tableName, Key: keys.ticket(id), ConsistentRead: true }));
  return out.Item ? strip<Ticket>(out.Item) : undefined;
}

export function put(item: Item, condition?: string): TransactItem {
  return { Put: { TableName: config.tableName, Item: item, ConditionExpression: condition } };
}

/**
 * The condition that a ticket item still has the version it was read with (an item stored before
 * versions existed has none), with its attribute names and values.
 */
function versionIs(version: number): { condition: string; names: Record<string, string>; values: Record<string, unknown> } {
  const names = { '#version': 'version' };
  return version === 0
    ? { condition: 'attribute_not_exists(#version)', names, values: {} }
    : { condition: '#version = :version', names, values: { ':version': version } };
}

/** Re-keys one collection item into the status partition of gsi2. */
function rekeyStatus(key: { PK: string; SK: string }, ticket: number, status: number): TransactItem {
  const k = keys.listByStatus(status, ticket, key.SK);
  return {
    Update: {
      TableName: config.tableName,
      Key: { PK: key.PK, SK: key.SK },
      UpdateExpression: 'SET GSI2PK = :pk, GSI2SK = :sk',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':pk': k.GSI2PK, ':sk': k.GSI2SK },
    },
  };
}

function rekeyCollection(c: ReadCollection, status: number): TransactItem[] {
  return c.itemKeys.filter((k) => k.type === 'followup' || k.type === 'attachment').map((k) => rekeyStatus(k, c.ticket.id, status));
}

/** Index slots of new followups and attachments. */
export function childSlots(followups: Followup[], attachments: Attachment[]): TransactItem[] {
  return [
    ...indexChanges('followup', followups.map((f) => [f.id, f.ticket])),
    ...indexChanges('attachment', attachments.map((a) => [a.id, attachmentSlot(a)])),
  ];
}

/**
 * Stores a new ticket with its opening followup, optional attachment and webhook event, atomically
 * (`fileCommit` commits the attachment's uploaded file: store/file-cleanups.ts).
 */
export async function createTicket(
  ticket: Ticket,
  opening: Followup,
  attachment?: Attachment,
  event?: OutboxEvent,
  fileCommit?: TransactItem,
): Promise<TicketCollection> {
  const attachments = attachment ? [attachment] : [];
  const items: TransactItem[] = [
    put(ticketItem(ticket, 1 + attachments.length), 'attribute_not_exists(PK)'),
    countTickets(ticket.queue, 1),
    put(followupItem(opening, ticket.status)),
    ...attachments.map((a) => put(attachmentItem(a, ticket.status))),
    ...ticketIndexChanges([{ id: ticket.id, to: ticket.status }]),
    ...childSlots([opening], attachments),
    ...(event ? [outboxPut(event)] : []),
    ...(fileCommit ? [fileCommit] : []),
  ];
  try {
    await transact(items);
  } catch (error) {
    if (error instanceof ConditionFailed && error.positions.includes(1)) throw new MissingQueueOnWrite();
    throw error;
  }
  return { ticket, followups: [opening], attachments, mergedFrom: [] };
}

/**
 * Applies `changes` to a ticket read as `current` with one update expression of the sent fields,
 * keeping the indexes, the queue counts and the merge pointers in step. The write is conditional on
 * the version read, so the result (returned, with its new version) is exactly what is stored: throws
 * StaleTicket when anything wrote to the collection meanwhile (the caller reads again and retries,
 * so concurrent updates of different fields both land, or answers 412 to an If-Match).
 */
export async function updateTicket(current: ReadCollection, changes: TicketChanges): Promise<ReadCollection> {
  const id = current.ticket.id;
  const old = current.ticket;
  const { custom, ...fields } = changes;
  const same = versionIs(current.version);
  const names: Record<string, string> = { '#status': 'status', '#queue': 'queue', '#custom': 'custom', ...same.names };
  const values: Record<string, unknown> = { ':status': old.status, ':queue': old.queue, ':one': 1, ...same.values };
  const sets: string[] = [];
  const removes: string[] = [];
  Object.entries(fields).forEach(([field, value], i) => {
    names[`#f${i}`] = field;
    values[`:v${i}`] = value;
    sets.push(`#f${i} = :v${i}`);
  });
  Object.entries(custom).forEach(([key, value], i) => {
    names[`#c${i}`] = key;
    values[`:c${i}`] = value;
    sets.push(`#custom.#c${i} = :c${i}`);
  });
  const status = fields.status ?? old.status;
  const statusChanged = status !== old.status;
  if (statusChanged) {
    values[':gsi2pk'] = keys.listByStatus(status, id, 'TICKET').GSI2PK;
    sets.push('GSI2PK = :gsi2pk');
  }
  if (fields.submitter_email !== undefined && fields.submitter_email !== old.submitter_email) {
    if (fields.submitter_email) {
      values[':gsi3pk'] = keys.bySubmitter(fields.submitter_email, id).GSI3PK;
      values[':gsi3sk'] = keys.bySubmitter(fields.submitter_email, id).GSI3SK;
      sets.push('GSI3PK = :gsi3pk', 'GSI3SK = :gsi3sk');
    } else {
      removes.push('GSI3PK', 'GSI3SK');
    }
  }
  const essential: TransactItem[] = [
    {
      Update: {
        TableName: config.tableName,
        Key: keys.ticket(id),
        UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''} ADD #version :one`,
        ConditionExpression: `attribute_exists(PK) AND #status = :status AND #queue = :queue AND attribute_exists(#custom) AND ${same.condition}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
  ];
  const queueChanged = fields.queue !== undefined && fields.queue !== old.queue;
  if (queueChanged) essential.push(countTickets(old.queue, -1), countTickets(fields.queue!, 1));
  if (statusChanged) essential.push(...ticketIndexChanges([{ id, from: old.status, to: status }]));
  const oldTarget = old.merged_to;
  const newTarget = fields.merged_to === undefined ? oldTarget : fields.merged_to;
  if (newTarget !== oldTarget) {
    if (oldTarget != null) essential.push({ Delete: { TableName: config.tableName, Key: keys.mergedFrom(oldTarget, id) } });
    if (newTarget != null && newTarget !== id) essential.push(put(mergedItem(newTarget, id)));
  }
  try {
    await transactEssentialFirst(essential, statusChanged ? rekeyCollection(current, status) : []);
  } catch (error) {
    if (error instanceof ConditionFailed && error.positions.includes(0)) throw new StaleTicket();
    if (error instanceof ConditionFailed && queueChanged && error.positions.includes(2)) throw new MissingQueueOnWrite();
    throw error;
  }
  return { ...current, ticket: { ...old, ...fields, custom: { ...old.custom, ...custom } }, version: current.version + 1 };
}

/**
 * Adds a followup (and its attachments and webhook event) to a ticket and applies its effects on the
 * ticket, atomically.
 * `ticket` is the ticket as read when the followup was planned: if its status changed since, the
 * write is refused with StaleTicket so the caller can plan again.
 */
export async function addFollowup(
  ticket: Ticket,
  followup: Followup,
  attachments: Attachment[],
  ticketChanges: Partial<Pick<Ticket, 'status' | 'resolution' | 'modified'>>,
  event?: OutboxEvent,
  fileCommit?: TransactItem,
): Promise<void> {
  const status = ticketChanges.status ?? ticket.status;
  const names: Record<string, string> = { '#status': 'status', '#version': 'version' };
  const values: Record<string, unknown> = { ':old': ticket.status, ':added': 1 + attachments.length, ':one': 1 };
  const sets: string[] = [];
  Object.entries(ticketChanges).forEach(([field, value], i) => {
    names[`#f${i}`] = field;
    values[`:v${i}`] = value;
    sets.push(`#f${i} = :v${i}`);
  });
  const statusChanged = status !== ticket.status;
  if (statusChanged) {
    values[':gsi2pk'] = keys.listByStatus(status, ticket.id, 'TICKET').GSI2PK;
    sets.push('GSI2PK = :gsi2pk');
  }
  const essential: TransactItem[] = [
    {
      Update: {
        TableName: config.tableName,
        Key: keys.ticket(ticket.id),
        UpdateExpression: `${sets.length ? `SET ${sets.join(', ')} ` : ''}ADD collection_size :added, #version :one`,
        ConditionExpression: 'attribute_exists(PK) AND #status = :old',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
    put(followupItem(followup, status)),
    ...attachments.map((a) => put(attachmentItem(a, status))),
    ...childSlots([followup], attachments),
    ...(event ? [outboxPut(event)] : []),
    ...(fileCommit ? [fileCommit] : []),
  ];
  let rest: TransactItem[] = [];
  if (statusChanged) {
    essential.push(...ticketIndexChanges([{ id: ticket.id, from: ticket.status, to: status }]));
    const existing = await readTicket(ticket.id);
    if (!existing) throw new MissingTicket();
    rest = rekeyCollection(existing, status);
  }
  try {
    await transactEssentialFirst(essential, rest);
  } catch (error) {
    if (error instanceof ConditionFailed && error.positions.includes(0)) {
      throw (await getTicket(ticket.id)) ? new StaleTicket() : new MissingTicket();
    }
    throw error;
  }
}

/**
 * Deletes a ticket, every ticket merged into it (recursively, as upstream's cascade), and all their
 * items. The ticket items, their index slots and queue counts go in the first transaction, so the
 * tickets disappear at once; followups and attachments follow. The first transaction also records
 * all their files for deletion; returns those records (for `removeFiles`).
 * Conditional on the version `root` was read with, so a followup added meanwhile is never left
 * behind: throws StaleTicket then (read again and retry), MissingTicket if it is gone.
 */
export async function deleteTicket(root: ReadCollection): Promise<FileCleanup[]> {
  const collections: ReadCollection[] = [root];
  const seen = new Set([root.ticket.id]);
  for (let i = 0; i < collections.length; i++) {
    const pending = collections[i]!.mergedFrom.filter((id) => !seen.has(id));
    pending.forEach((id) => seen.add(id));
    const more = await Promise.all(pending.map((id) => readTicket(id)));
    collections.push(...more.filter((c): c is ReadCollection => !!c));
  }
  const essential: TransactItem[] = [];
  const rest: TransactItem[] = [];
  const perQueue = new Map<number, number>();
  for (const c of collections) {
    perQueue.set(c.ticket.queue, (perQueue.get(c.ticket.queue) ?? 0) + 1);
    for (const key of c.itemKeys) {
      const action: TransactItem = { Delete: { TableName: config.tableName, Key: { PK: key.PK, SK: key.SK } } };
      if (key.type === 'ticket') {
        if (c === root) {
          const same = versionIs(root.version);
          Object.assign(action.Delete!, {
            ConditionExpression: `attribute_exists(PK) AND ${same.condition}`,
            ExpressionAttributeNames: same.names,
            ...(Object.keys(same.values).length ? { ExpressionAttributeValues: same.values } : {}),
          });
        }
        essential.push(action);
      } else {
        rest.push(action);
      }
    }
  }
  essential.push(...ticketIndexChanges(collections.map((c) => ({ id: c.ticket.id, from: c.ticket.status }))));
  for (const [queue, count] of perQueue) {
    essential.push({
      Update: {
        TableName: config.tableName,
        Key: keys.queue(queue),
        UpdateExpression: 'ADD ticket_count :delta',
        ExpressionAttributeValues: { ':delta': -count },
      },
    });
  }
  rest.push(
    ...indexChanges('followup', [], collections.flatMap((c) => c.followups.map((f) => f.id))),
    ...indexChanges('attachment', [], collections.flatMap((c) => c.attachments.map((a) => a.id))),
  );
  const files = cleanupsOfDeleted(collections.flatMap((c) => c.attachments.map((a) => a.object_key)));
  essential.push(...files.actions);
  const target = root.ticket.merged_to;
  if (target != null && !seen.has(target)) {
    rest.push({ Delete: { TableName: config.tableName, Key: keys.mergedFrom(target, root.ticket.id) } });
  }
  try {
    await transactEssentialFirst(essential, rest);
  } catch (error) {
    if (error instanceof ConditionFailed && error.positions.includes(0)) {
      throw (await getTicket(root.ticket.id)) ? new StaleTicket() : new MissingTicket();
    }
    throw error;
  }
  return files.records;
}

/**
 * Whole collections from a list index (gsi1, or one status partition of gsi2), from ticket
 * `start` on, until `wanted` tickets are complete. A ticket's own item sorts after its followups and
 * attachments (`…#TICKET`), so a collection is complete once its ticket item has been read.
 */
async function readCollectionsFrom(index: 'gsi1' | 'gsi2', pk: string, start: number, wanted: number): Promise<ReadCollection[]> {
  const [pkName, skName] = index === 'gsi1' ? ['GSI1PK', 'GSI1SK'] : ['GSI2PK', 'GSI2SK'];
  const items: Item[] = [];
  let complete = 0;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo.send(
      new QueryCommand({
        TableName: config.tableName,
        IndexName: index,
        KeyConditionExpression: `${pkName} = :pk AND ${skName} >= :from`,
        ExpressionAttributeValues: { ':pk': pk, ':from': keys.listFrom(start) },
        Limit: (wanted - complete) * 4 + 8,
        ExclusiveStartKey,
      }),
    );
    for (const item of page.Items ?? []) {
      items.push(item);
      if (item.type === 'ticket' && ++complete === wanted) break;
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey && complete < wanted);
  return [...collectionsFrom(items).values()].sort((a, b) => a.ticket.id - b.ticket.id);
}

export interface TicketPage {
  count: number;
  window: PageWindow;
  tickets: TicketCollection[];
}

/**
 * One page of tickets in id order, optionally only some statuses. Costs one Query of the ticket
 * index (counts per 25 ids) plus one Query of gsi1, or of gsi2 per status asked for, starting at
 * most 24 tickets before the page: the same whatever the table size. The GSIs are eventually
 * consistent: a collection that does not look complete yet is read from the table instead.
 */
export async function listTickets(statuses: Set<number> | undefined, request: PageRequest): Promise<TicketPage> {
  const counts = await readTicketCounts(statuses);
  const total = counts.reduce((sum, c) => sum + c.count, 0);
  const window = pageWindow(request, total);
  if (!window.limit) return { count: total, window, tickets: [] };

  let before = 0;
  let start = 0;
  for (const c of counts) {
    if (before + c.count > window.offset) {
      start = c.start;
      break;
    }
    before += c.count;
  }
  const skip = window.offset - before;
  const wanted = skip + window.limit;
  const found = statuses
    ? (await Promise.all([...statuses].map((s) => readCollectionsFrom('gsi2', keys.listByStatusPartition(s), start, wanted)))).flat()
    : await readCollectionsFrom('gsi1', keys.listAllPartition, start, wanted);
  const page = found.sort((a, b) => a.ticket.id - b.ticket.id).slice(skip, skip + window.limit);
  const tickets = await Promise.all(
    page.map(async (c) => {
      const current = (!statuses || statuses.has(c.ticket.status)) && c.followups.length + c.attachments.length === c.collectionSize;
      return current ? c : await readTicket(c.ticket.id);
    }),
  );
  const shown = (t: ReadCollection | undefined): t is ReadCollection => !!t && (!statuses || statuses.has(t.ticket.status));
  return { count: total, window, tickets: tickets.filter(shown) };
}

/** Tickets submitted from `email` (exact), newest first: gsi3, eventually consistent. */
export async function ticketsBySubmitter(email: string): Promise<Ticket[]> {
  const items = await queryAll({
    IndexName: 'gsi3',
    KeyConditionExpression: 'GSI3PK = :pk',
    ExpressionAttributeValues: { ':pk': keys.submitterPartition(email) },
    ScanIndexForward: false,
  });
  return items.map((i) => strip<Ticket>(i));
}

/** One attachment record by its ticket and id (strongly consistent). */
export async function getAttachment(ticket: number, id: number): Promise<Attachment | undefined> {
  const out = await dynamo.send(new GetCommand({ TableName: config.tableName, Key: keys.attachment(ticket, id), ConsistentRead: true }));
  return out.Item ? strip<Attachment>(out.Item) : undefined;
}
