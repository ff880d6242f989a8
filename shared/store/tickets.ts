/**
 * Tickets and their item collections: named access patterns over the single table.
 * See docs/data-model.md for the keys and the cost of each operation.
 */
import { GetCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Attachment, Followup, Ticket, TicketCollection, TicketFields } from '../domain/records';
import { pageWindow, type PageRequest, type PageWindow } from '../domain/pagination';
import { config } from '../config';
import { dynamo } from './clients';
import { INDEX_BLOCK_SIZE, INDEX_PARTITION, keys } from './keys';
import { attachmentItem, collectionsFrom, followupItem, mergedItem, strip, ticketItem, type ReadCollection } from './items';
import { ConditionFailed, transact, transactEssentialFirst, type TransactItem } from './transact';

type Item = Record<string, unknown>;

/** The ticket changed between our read and our write (another writer won): read again and retry. */
export class StaleTicket extends Error {}
/** The ticket does not exist (any more). */
export class MissingTicket extends Error {}

async function queryAll(input: Omit<QueryCommandInput, 'TableName'>): Promise<Item[]> {
  const items: Item[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo.send(new QueryCommand({ TableName: config.tableName, ...input, ExclusiveStartKey }));
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

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

function put(item: Item, condition?: string): TransactItem {
  return { Put: { TableName: config.tableName, Item: item, ConditionExpression: condition } };
}

function setIndexSlot(ticket: number, status: number): TransactItem {
  const { block, attribute } = keys.indexSlot(ticket);
  return {
    Update: {
      TableName: config.tableName,
      Key: keys.indexBlock(block),
      UpdateExpression: 'SET #slot = :status',
      ExpressionAttributeNames: { '#slot': attribute },
      ExpressionAttributeValues: { ':status': status },
    },
  };
}

/**
 * Removes tickets from the index: one update per index block, since a transaction may not touch
 * the same item twice (tickets merged into each other often share a block).
 */
function removeIndexSlots(tickets: number[]): TransactItem[] {
  const byBlock = new Map<number, string[]>();
  for (const ticket of tickets) {
    const { block, attribute } = keys.indexSlot(ticket);
    byBlock.set(block, [...(byBlock.get(block) ?? []), attribute]);
  }
  return [...byBlock].map(([block, attributes]) => ({
    Update: {
      TableName: config.tableName,
      Key: keys.indexBlock(block),
      UpdateExpression: `REMOVE ${attributes.map((_, i) => `#slot${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(attributes.map((a, i) => [`#slot${i}`, a])),
    },
  }));
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

/** Stores a new ticket with its opening followup and optional attachment, atomically. */
export async function createTicket(ticket: Ticket, opening: Followup, attachment?: Attachment): Promise<TicketCollection> {
  const items: TransactItem[] = [
    put(ticketItem(ticket, attachment ? 2 : 1), 'attribute_not_exists(PK)'),
    put(followupItem(opening, ticket.status)),
    setIndexSlot(ticket.id, ticket.status),
  ];
  if (attachment) items.push(put(attachmentItem(attachment, ticket.status)));
  await transact(items);
  return { ticket, followups: [opening], attachments: attachment ? [attachment] : [], mergedFrom: [] };
}

/**
 * Applies `changes` to a ticket read as `current` with one update expression (only the sent fields,
 * so concurrent updates of different fields both land), keeping the status index, the gsi2 keys
 * and the merge pointers in step. Throws StaleTicket when the status changed meanwhile.
 */
export async function updateTicket(current: ReadCollection, changes: Partial<TicketFields> & { modified: string }): Promise<TicketCollection> {
  const id = current.ticket.id;
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':status': current.ticket.status };
  const sets: string[] = [];
  Object.entries(changes).forEach(([field, value], i) => {
    names[`#f${i}`] = field;
    values[`:v${i}`] = value;
    sets.push(`#f${i} = :v${i}`);
  });
  names['#status'] = 'status';
  const statusChanged = changes.status !== undefined && changes.status !== current.ticket.status;
  if (statusChanged) {
    const k = keys.listByStatus(changes.status!, id, 'TICKET');
    values[':gsi2pk'] = k.GSI2PK;
    sets.push('GSI2PK = :gsi2pk');
  }
  const essential: TransactItem[] = [
    {
      Update: {
        TableName: config.tableName,
        Key: keys.ticket(id),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: 'attribute_exists(PK) AND #status = :status',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
  ];
  const rest: TransactItem[] = [];
  if (statusChanged) {
    essential.push(setIndexSlot(id, changes.status!));
    for (const key of current.itemKeys) {
      if (key.type === 'followup' || key.type === 'attachment') rest.push(rekeyStatus(key, id, changes.status!));
    }
  }
  const oldTarget = current.ticket.merged_to;
  const newTarget = changes.merged_to === undefined ? oldTarget : changes.merged_to;
  if (newTarget !== oldTarget) {
    if (oldTarget != null) essential.push({ Delete: { TableName: config.tableName, Key: keys.mergedFrom(oldTarget, id) } });
    if (newTarget != null && newTarget !== id) essential.push(put(mergedItem(newTarget, id)));
  }
  try {
    await transactEssentialFirst(essential, rest);
  } catch (error) {
    if (error instanceof ConditionFailed && error.positions.includes(0)) throw new StaleTicket();
    throw error;
  }
  return { ...current, ticket: { ...current.ticket, ...changes } };
}

/**
 * Adds a followup (and its attachments) to a ticket and applies its effects on the ticket, atomically.
 * `ticket` is the ticket as read when the followup was planned: if its status changed since, the
 * write is refused with StaleTicket so the caller can plan again.
 */
export async function addFollowup(
  ticket: Ticket,
  followup: Followup,
  attachments: Attachment[],
  ticketChanges: Partial<Pick<Ticket, 'status' | 'resolution' | 'modified'>>,
): Promise<void> {
  const status = ticketChanges.status ?? ticket.status;
  const names: Record<string, string> = { '#status': 'status' };
  const values: Record<string, unknown> = { ':old': ticket.status, ':added': 1 + attachments.length };
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
        UpdateExpression: `${sets.length ? `SET ${sets.join(', ')} ` : ''}ADD collection_size :added`,
        ConditionExpression: 'attribute_exists(PK) AND #status = :old',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
    put(followupItem(followup, status)),
    ...attachments.map((a) => put(attachmentItem(a, status))),
  ];
  const rest: TransactItem[] = [];
  if (statusChanged) {
    essential.push(setIndexSlot(ticket.id, status));
    const existing = await readTicket(ticket.id);
    if (!existing) throw new MissingTicket();
    for (const key of existing.itemKeys) {
      if (key.type === 'followup' || key.type === 'attachment') rest.push(rekeyStatus(key, ticket.id, status));
    }
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
 * items. The ticket items and index slots go in the first transaction, so the tickets disappear at
 * once; remaining followups and attachments follow. Returns the S3 keys of the files to delete.
 */
export async function deleteTicket(root: ReadCollection): Promise<string[]> {
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
  for (const c of collections) {
    for (const key of c.itemKeys) {
      const action: TransactItem = { Delete: { TableName: config.tableName, Key: { PK: key.PK, SK: key.SK } } };
      if (key.type === 'ticket') {
        if (c === root) action.Delete!.ConditionExpression = 'attribute_exists(PK)';
        essential.push(action);
      } else {
        rest.push(action);
      }
    }
  }
  essential.push(...removeIndexSlots(collections.map((c) => c.ticket.id)));
  const target = root.ticket.merged_to;
  if (target != null && !seen.has(target)) {
    rest.push({ Delete: { TableName: config.tableName, Key: keys.mergedFrom(target, root.ticket.id) } });
  }
  try {
    await transactEssentialFirst(essential, rest);
  } catch (error) {
    if (error instanceof ConditionFailed && error.positions.includes(0)) throw new MissingTicket();
    throw error;
  }
  return collections.flatMap((c) => c.attachments.map((a) => a.object_key));
}

/** The ticket index: every live ticket id with its status, in id order (one Query, consistent). */
async function readIndex(): Promise<[number, number][]> {
  const blocks = await queryAll({
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': INDEX_PARTITION },
    ConsistentRead: true,
  });
  const entries: [number, number][] = [];
  for (const block of blocks) {
    const base = Number(String(block.SK).slice('BLOCK#'.length)) * INDEX_BLOCK_SIZE;
    for (const [attribute, status] of Object.entries(block)) {
      if (/^s\d+$/.test(attribute)) entries.push([base + Number(attribute.slice(1)), status as number]);
    }
  }
  return entries.sort((a, b) => a[0] - b[0]);
}

function queryRange(index: 'gsi1' | 'gsi2', range: { pk: string; from: string; to: string }): Promise<Item[]> {
  const [pk, sk] = index === 'gsi1' ? ['GSI1PK', 'GSI1SK'] : ['GSI2PK', 'GSI2SK'];
  return queryAll({
    IndexName: index,
    KeyConditionExpression: `${pk} = :pk AND ${sk} BETWEEN :from AND :to`,
    ExpressionAttributeValues: { ':pk': range.pk, ':from': range.from, ':to': range.to },
  });
}

export interface TicketPage {
  count: number;
  window: PageWindow;
  tickets: TicketCollection[];
}

/**
 * One page of tickets in id order, optionally only some statuses. Costs one Query of the ticket
 * index plus one Query per status present on the page (one in all when unfiltered), whatever the
 * table size. The indexes are eventually consistent: a collection that does not match the ticket
 * index yet is read from the table instead.
 */
export async function listTickets(statuses: Set<number> | undefined, request: PageRequest): Promise<TicketPage> {
  const index = await readIndex();
  const entries = statuses ? index.filter(([, status]) => statuses.has(status)) : index;
  const window = pageWindow(request, entries.length);
  const page = entries.slice(window.offset, window.offset + window.limit);
  if (!page.length) return { count: entries.length, window, tickets: [] };

  let items: Item[];
  if (!statuses) {
    items = await queryRange('gsi1', keys.listAllRange(page[0]![0], page.at(-1)![0]));
  } else {
    const byStatus = new Map<number, number[]>();
    for (const [id, status] of page) byStatus.set(status, [...(byStatus.get(status) ?? []), id]);
    const results = await Promise.all(
      [...byStatus].map(([status, ids]) => queryRange('gsi2', keys.listByStatusRange(status, ids[0]!, ids.at(-1)!))),
    );
    items = results.flat();
  }
  const found = collectionsFrom(items);
  const tickets = await Promise.all(
    page.map(async ([id, status]) => {
      const c = found.get(id);
      const complete = c && c.ticket.status === status && c.followups.length + c.attachments.length === c.collectionSize;
      return complete ? c : await readTicket(id);
    }),
  );
  return { count: entries.length, window, tickets: tickets.filter((t): t is ReadCollection => !!t) };
}

/** One attachment record by its ticket and id (strongly consistent). */
export async function getAttachment(ticket: number, id: number): Promise<Attachment | undefined> {
  const out = await dynamo.send(new GetCommand({ TableName: config.tableName, Key: keys.attachment(ticket, id), ConsistentRead: true }));
  return out.Item ? strip<Attachment>(out.Item) : undefined;
}
