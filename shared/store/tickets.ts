/**
 * Tickets and their item collections: named access patterns over the single table.
 * See docs/data-model.md for the keys and the cost of each operation.
 */
import { GetCommand, QueryCommand } from '../aws/dynamodb';
import type { Attachment, Followup, Ticket, TicketCollection } from '../domain/records';
import type { TicketChanges } from '../domain/ticket';
import type { FollowupPlan } from '../domain/followup';
import { MissingRecord, NotFound } from '../domain/errors';
import {
  MAX_PAGE_DEPTH,
  PageTooDeep,
  isIdCursor,
  pageWindow,
  type IdCursor,
  type PageLinks,
  type PageRequest,
  type PageWindow,
} from '../domain/pagination';
import { subBlockCounts, TICKET_SUB_BLOCK, totalOf } from '../domain/ticket-counts';
import { config } from '../config';
import { dynamo } from '../aws/clients';
import {
  keys,
  ITEM_EXISTS,
  ITEM_IS_NEW,
  IN_PARTITION,
  INDEXES,
  inIndex,
  TICKET_SORT_KEY,
  type IndexName,
} from './keys';
import {
  attachmentItem,
  attachmentRefItem,
  collectionsFrom,
  COLLECTION_PROJECTION,
  followupItem,
  followupRefItem,
  mergedItem,
  strip,
  ticketItem,
  RESERVATION_VERSION,
  UPDATED_BY,
  type ReadCollection,
} from './items';
import { readCounts, readTotals } from './ticket-counts';
import { outboxPut, type OutboxEvent } from './outbox';
import { cleanupsOfDeleted, type FileCleanup } from './file-cleanups';
import { batchWrite, queryAll } from './query';
import { coalescing } from './coalesce';
import { logger } from '../observability';
import {
  ConditionFailed,
  MAX_TRANSACTION_ITEMS,
  transact,
  transactEssentialFirst,
  type TransactItem,
} from './transact';
import { MissingQueue, withReservation } from './queue-reservations';
import { deletionRecord, setWrittenBy } from './actor';

type Item = Record<string, unknown>;

/** The ticket changed between our read and our write (another writer won): read again and retry. */
export class StaleTicket extends Error {}
/** The ticket does not exist (any more). */
export class MissingTicket extends MissingRecord {}
/** The queue a write puts the ticket into does not exist (any more). */
export class MissingQueueOnWrite extends Error {}

/** Runs `write`, which puts a ticket into `queue`, under a reservation in it (store/queue-reservations.ts). */
async function inQueue(queue: number, write: () => Promise<void>): Promise<void> {
  await withReservation(queue, write).catch((error: unknown) => {
    throw error instanceof MissingQueue ? new MissingQueueOnWrite(`queue ${queue} does not exist`) : error;
  });
}

/** One Query reads a ticket whole (strongly consistent). */
export async function readTicket(id: number): Promise<ReadCollection | undefined> {
  const items = await queryAll({
    KeyConditionExpression: IN_PARTITION,
    ExpressionAttributeValues: { ':pk': keys.ticketPartition(id) },
    ConsistentRead: true,
    ...COLLECTION_PROJECTION,
  });
  return collectionsFrom(items).get(id);
}

/** The ticket item alone (strongly consistent), without its followups. */
export async function getTicket(id: number): Promise<Ticket | undefined> {
  const out = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: keys.ticket(id), ConsistentRead: true }),
  );
  return out.Item ? strip<Ticket>(out.Item) : undefined;
}

export function put(item: Item, condition?: string): TransactItem {
  return { Put: { TableName: config.tableName, Item: item, ConditionExpression: condition } };
}

/**
 * The condition that a ticket item still has the version it was read with (an item stored before
 * versions existed has none), with its attribute names and values.
 */
function versionIs(version: number): {
  condition: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
} {
  const names = { '#version': 'version' };
  return version === 0
    ? { condition: 'attribute_not_exists(#version)', names, values: {} }
    : { condition: '#version = :version', names, values: { ':version': version } };
}

/** Re-keys one collection item into the status partition of gsi2. */
export function rekeyStatus(key: { PK: string; SK: string }, ticket: number, status: number): TransactItem {
  const k = keys.listByStatus(status, ticket, key.SK);
  return {
    Update: {
      TableName: config.tableName,
      Key: { PK: key.PK, SK: key.SK },
      UpdateExpression: `SET ${INDEXES.gsi2.partitionKey} = :pk, ${INDEXES.gsi2.sortKey} = :sk`,
      ConditionExpression: ITEM_EXISTS,
      ExpressionAttributeValues: { ':pk': k.GSI2PK, ':sk': k.GSI2SK },
    },
  };
}

function rekeyCollection(c: ReadCollection, status: number): TransactItem[] {
  return c.itemKeys
    .filter((k) => k.type === 'followup' || k.type === 'attachment')
    .map((k) => rekeyStatus(k, c.ticket.id, status));
}

/** New followups and attachments with their ref items (how they are found by id). */
export function childPuts(followups: Followup[], attachments: Attachment[], status: number): TransactItem[] {
  return [
    ...followups.flatMap((f) => [put(followupItem(f, status)), put(followupRefItem(f))]),
    ...attachments.flatMap((a) => [put(attachmentItem(a, status)), put(attachmentRefItem(a))]),
  ];
}

/** Deletes of followups and attachments with their ref items. */
export function childDeletes(followups: Followup[], attachments: Attachment[]): TransactItem[] {
  const del = (Key: { PK: string; SK: string }): TransactItem => ({ Delete: { TableName: config.tableName, Key } });
  return [
    ...followups.flatMap((f) => [del(keys.followup(f.ticket, f.id)), del(keys.ref('followup', f.id))]),
    ...attachments.flatMap((a) => [del(keys.attachment(a.ticket, a.id)), del(keys.ref('attachment', a.id))]),
  ];
}

/**
 * Stores a new ticket with its opening followup, its attachments (one from the API, any number from
 * mail) and webhook event (`fileCommit` commits the uploaded files: store/file-cleanups.ts; `also`
 * adds the caller's own actions, such as the received mail's record). The ticket item holds its opening
 * followup (items.ts `ticketItem`), so a plain create is one conditional PutItem, and then the
 * followup's ref; with an attachment or an event, everything goes in one transaction. Either way only
 * items of this ticket are written, so concurrent creates never conflict; the counts follow from
 * the stream (consumer/ticket-counts.ts). The write holds a reservation in the ticket's queue
 * (store/queue-reservations.ts), so the queue is not deleted under it: MissingQueueOnWrite when it is gone.
 */
export async function createTicket(
  ticket: Ticket,
  opening: Followup,
  attachments: Attachment[] = [],
  event?: OutboxEvent,
  fileCommit?: TransactItem,
  also: TransactItem[] = [],
): Promise<TicketCollection> {
  const ticketPut = put(ticketItem(ticket, opening, { alone: !attachments.length }), ITEM_IS_NEW);
  const openingRef = put(followupRefItem(opening));
  const whole = attachments.length || event || fileCommit || also.length;
  const commit = () =>
    transact(
      whole
        ? [
            ticketPut,
            openingRef,
            ...childPuts([], attachments, ticket.status),
            ...(event ? [outboxPut(event)] : []),
            ...(fileCommit ? [fileCommit] : []),
            ...also,
          ]
        : [ticketPut],
    );
  await inQueue(ticket.queue, commit);
  if (!whole) {
    // The ticket is the commit: once it is stored the create has happened. Its ref only finds the
    // opening followup by id; should that write fail, the stream consumer writes it from the
    // ticket's INSERT (consumer/collection-repair.ts), and the answer is still the 201.
    await putOpeningRef(REFS, followupRefItem(opening)).catch((error: unknown) =>
      logger.warn('opening followup ref not written: the stream consumer will', {
        ticket: ticket.id,
        error: String(error),
      }),
    );
  }
  return { ticket, followups: [opening], attachments, mergedFrom: [] };
}

/**
 * Puts the ref of a plain create's opening followup (createTicket): a PutItem, or, for the refs of creates made at
 * once in one process, one BatchWriteItem (coalesce.ts). A batch never names a key twice (which BatchWriteItem
 * refuses whole): a ref follows its ticket's conditional put, so each followup id comes once.
 */
const putOpeningRef = /* @__PURE__ */ coalescing<Item, void>(async (_key, refs) => {
  await (refs.length === 1 ? transact([put(refs[0]!)]) : batchWrite([...refs]));
  return refs.map(() => undefined);
});
const REFS = 'refs';

/**
 * Applies `changes` to a ticket read as `current` with one update expression of the sent fields,
 * keeping the indexes and the merge pointers in step; a move holds a reservation in its new queue
 * (MissingQueueOnWrite when it is gone). The write is conditional on
 * the version read, so the result (returned, with its new version) is exactly what is stored: throws
 * StaleTicket when anything wrote to the collection meanwhile (the caller reads again and retries,
 * so concurrent updates of different fields both land, or answers 412 to an If-Match). `actor`,
 * the caller, is recorded on the item (items.ts `UPDATED_BY`) for the mail consumer.
 */
export async function updateTicket(
  current: ReadCollection,
  changes: TicketChanges,
  actor: number,
): Promise<ReadCollection> {
  const id = current.ticket.id;
  const old = current.ticket;
  const { custom, ...fields } = changes;
  const same = versionIs(current.version);
  const names: Record<string, string> = {
    '#status': 'status',
    '#queue': 'queue',
    '#custom': 'custom',
    '#by': UPDATED_BY,
    ...same.names,
  };
  const values: Record<string, unknown> = {
    ':status': old.status,
    ':queue': old.queue,
    ':one': 1,
    ':by': actor,
    ...same.values,
  };
  const sets: string[] = ['#by = :by'];
  setWrittenBy(sets, names, values);
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
  // A move takes a reservation in the new queue (below), and marks the write that holds it.
  const queueChanged = fields.queue !== undefined && fields.queue !== old.queue;
  if (queueChanged) {
    names['#reservation'] = RESERVATION_VERSION;
    values[':reservation'] = current.version + 1;
    sets.push('#reservation = :reservation');
  }
  if (statusChanged) {
    values[':gsi2pk'] = keys.listByStatus(status, id, TICKET_SORT_KEY).GSI2PK;
    sets.push(`${INDEXES.gsi2.partitionKey} = :gsi2pk`);
  }
  if (fields.submitter_email !== undefined && fields.submitter_email !== old.submitter_email) {
    if (fields.submitter_email) {
      values[':gsi3pk'] = keys.bySubmitter(fields.submitter_email, id).GSI3PK;
      values[':gsi3sk'] = keys.bySubmitter(fields.submitter_email, id).GSI3SK;
      sets.push(`${INDEXES.gsi3.partitionKey} = :gsi3pk`, `${INDEXES.gsi3.sortKey} = :gsi3sk`);
    } else {
      removes.push(INDEXES.gsi3.partitionKey, INDEXES.gsi3.sortKey);
    }
  }
  const removal = removes.length ? ` REMOVE ${removes.join(', ')}` : '';
  const essential: TransactItem[] = [
    {
      Update: {
        TableName: config.tableName,
        Key: keys.ticket(id),
        UpdateExpression: `SET ${sets.join(', ')}${removal} ADD #version :one`,
        ConditionExpression:
          `${ITEM_EXISTS} AND #status = :status AND #queue = :queue AND attribute_exists(#custom) ` +
          `AND ${same.condition}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
  ];
  const oldTarget = old.merged_to;
  const newTarget = fields.merged_to === undefined ? oldTarget : fields.merged_to;
  if (newTarget !== oldTarget) {
    if (oldTarget != null)
      essential.push({ Delete: { TableName: config.tableName, Key: keys.mergedFrom(oldTarget, id) } });
    if (newTarget != null && newTarget !== id) essential.push(put(mergedItem(newTarget, id)));
  }
  const writes = [...essential, ...(statusChanged ? rekeyCollection(current, status) : [])];
  try {
    const commit = () => transact(writes.slice(0, MAX_TRANSACTION_ITEMS));
    await (queueChanged ? inQueue(fields.queue!, commit) : commit());
    await transactEssentialFirst([], writes.slice(MAX_TRANSACTION_ITEMS));
  } catch (error) {
    if (error instanceof ConditionFailed && error.positions.includes(0)) throw new StaleTicket();
    throw error;
  }
  return {
    ...current,
    ticket: { ...old, ...fields, custom: { ...old.custom, ...custom } },
    version: current.version + 1,
  };
}

/**
 * Adds a followup (and its attachments, webhook event and the caller's `also` actions) to a ticket, atomically. Only a
 * followup that changes the ticket (its status, its resolution) writes the ticket item, conditional on the
 * status it was planned with (StaleTicket when that changed: plan again); any other followup's
 * transaction holds only its own items, so followups on one ticket never conflict. A followup
 * committed as its ticket is deleted, or under a status its ticket just left, is mended by the
 * stream consumer (consumer/collection-repair.ts).
 */
export async function addFollowup(
  ticket: Ticket,
  followup: Followup,
  attachments: Attachment[],
  ticketChanges: FollowupPlan['ticketChanges'],
  event?: OutboxEvent,
  fileCommit?: TransactItem,
  also: TransactItem[] = [],
): Promise<void> {
  const status = ticketChanges.status ?? ticket.status;
  const essential: TransactItem[] = [];
  if (Object.keys(ticketChanges).length) {
    const names: Record<string, string> = { '#status': 'status', '#version': 'version' };
    const values: Record<string, unknown> = { ':old': ticket.status, ':one': 1 };
    const sets: string[] = [];
    Object.entries(ticketChanges).forEach(([field, value], i) => {
      names[`#f${i}`] = field;
      values[`:v${i}`] = value;
      sets.push(`#f${i} = :v${i}`);
    });
    setWrittenBy(sets, names, values);
    if (status !== ticket.status) {
      values[':gsi2pk'] = keys.listByStatus(status, ticket.id, TICKET_SORT_KEY).GSI2PK;
      sets.push(`${INDEXES.gsi2.partitionKey} = :gsi2pk`);
    }
    essential.push({
      Update: {
        TableName: config.tableName,
        Key: keys.ticket(ticket.id),
        UpdateExpression: `SET ${sets.join(', ')} ADD #version :one`,
        ConditionExpression: `${ITEM_EXISTS} AND #status = :old`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    });
  }
  essential.push(
    ...childPuts([followup], attachments, status),
    ...(event ? [outboxPut(event)] : []),
    ...(fileCommit ? [fileCommit] : []),
    ...also,
  );
  let rest: TransactItem[] = [];
  if (status !== ticket.status) {
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
 * items. The ticket items go in the first write, so the tickets disappear at once; followups,
 * attachments and their refs follow (all in that one transaction unless there are over 100 items,
 * or unless the ticket is alone, has no files and is not merged: then its item is deleted by itself
 * first).
 * The first transaction also records all their files for deletion; returns those records (for
 * `removeFiles`). A followup committed meanwhile (its transaction does not hold the ticket) is
 * removed by the stream consumer (consumer/collection-repair.ts).
 * Conditional on the version `root` was read with, so what it deletes is what was read: throws
 * StaleTicket when the ticket changed meanwhile (read again and retry), MissingTicket if it is gone.
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
  for (const c of collections) {
    for (const key of c.itemKeys) {
      const action: TransactItem = { Delete: { TableName: config.tableName, Key: { PK: key.PK, SK: key.SK } } };
      if (key.type === 'ticket') {
        if (c === root) {
          const same = versionIs(root.version);
          Object.assign(action.Delete!, {
            ConditionExpression: `${ITEM_EXISTS} AND ${same.condition}`,
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
  rest.push(
    ...collections
      .flatMap((c) => [
        ...c.followups.map((f) => keys.ref('followup', f.id)),
        ...c.attachments.map((a) => keys.ref('attachment', a.id)),
      ])
      .map((Key): TransactItem => ({ Delete: { TableName: config.tableName, Key } })),
  );
  const files = cleanupsOfDeleted(collections.flatMap((c) => c.attachments.map((a) => a.object_key)));
  essential.push(...files.actions);
  const target = root.ticket.merged_to;
  if (target != null && !seen.has(target)) {
    rest.push({ Delete: { TableName: config.tableName, Key: keys.mergedFrom(target, root.ticket.id) } });
  }
  // A lone ticket without files, not merged into another (the common case), is deleted by itself:
  // one plain DeleteItem is the commit, and its followups and refs follow, which the stream consumer
  // removes should that fail. (A merge pointer in another ticket's collection it would not: those
  // deletes stay in one transaction.)
  const alone = essential.length === 1 && target == null;
  // Who deletes each ticket (store/actor.ts): in the transaction, or just before a lone ticket's plain delete (taken
  // back when that fails: a failed request leaves nothing behind).
  const byWhom = collections.flatMap((c) => [deletionRecord('ticket', c.ticket.id)].filter((a) => a !== undefined));
  if (alone && byWhom.length) await transact(byWhom);
  else essential.push(...byWhom);
  try {
    await (alone ? transact(essential) : transactEssentialFirst(essential, rest));
  } catch (error) {
    if (alone && byWhom.length) {
      const record = { TableName: config.tableName, Key: keys.deletion('ticket', root.ticket.id) };
      await transact([{ Delete: record }]).catch(() => undefined);
    }
    if (error instanceof ConditionFailed && error.positions.includes(0)) {
      throw (await getTicket(root.ticket.id)) ? new StaleTicket() : new MissingTicket();
    }
    throw error;
  }
  if (alone && rest.length) {
    await transactEssentialFirst([], rest).catch((error: unknown) =>
      logger.warn("a deleted ticket's followups and refs not removed: the stream consumer will", {
        ticket: root.ticket.id,
        error: String(error),
      }),
    );
  }
  return files.records;
}

/**
 * Items per ticket that the last page read from each list partition met (ticket items, and the
 * followups and attachments kept beside them). A page's Query asks for the tickets it still wants at
 * that density and a fifth more, so that it is one Query that reads little past the page: the fixed 4
 * a ticket it asked for before (now only a partition's first page in a process) read four times a
 * page of tickets the API created and nobody answered yet, one item each, in read units and in JSON
 * parsed. A page denser than the margin takes one more Query for its rest.
 */
const itemsPerTicket = new Map<string, number>();
const FIRST_ITEMS_PER_TICKET = 4;
const DENSITY_MARGIN = 1.2;
function queryLimit(pk: string, tickets: number): number {
  const met = itemsPerTicket.get(pk);
  return Math.ceil(tickets * (met === undefined ? FIRST_ITEMS_PER_TICKET : met * DENSITY_MARGIN)) + 4;
}

/**
 * Whole collections from a list index (gsi1, or one status partition of gsi2), in id order from
 * ticket `from` on (`forward`), or in reverse from ticket `from` down, until `wanted` tickets are
 * complete. A ticket's own item sorts after its followups and attachments (`…#TICKET`): reading
 * forward a collection is complete at its ticket item; reading backward, at the next ticket item.
 */
async function readCollections(
  index: Extract<IndexName, 'gsi1' | 'gsi2'>,
  pk: string,
  from: number,
  wanted: number,
  forward = true,
): Promise<ReadCollection[]> {
  const items: Item[] = [];
  let tickets = 0;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  reading: do {
    const page = await dynamo.send(
      new QueryCommand({
        TableName: config.tableName,
        IndexName: INDEXES[index].name,
        KeyConditionExpression: inIndex(index, forward ? 'from' : 'below'),
        ExpressionAttributeValues: { ':pk': pk, ':from': keys.listFrom(forward ? from : from + 1) },
        ScanIndexForward: forward,
        ...COLLECTION_PROJECTION,
        Limit: queryLimit(pk, wanted - tickets),
        ExclusiveStartKey,
      }),
    );
    for (const item of page.Items ?? []) {
      if (item.type === 'ticket') {
        if (!forward && tickets === wanted) break reading; // the next ticket: the last one read is complete
        tickets++;
      }
      items.push(item);
      if (forward && item.type === 'ticket' && tickets === wanted) break reading;
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  if (tickets) itemsPerTicket.set(pk, items.length / tickets);
  return [...collectionsFrom(items).values()].sort((a, b) => a.ticket.id - b.ticket.id);
}

/** The collections from `from` on (or down from it), merged over the statuses asked for. */
async function readPage(
  statuses: Set<number> | undefined,
  from: number,
  wanted: number,
  forward = true,
): Promise<ReadCollection[]> {
  const found = statuses
    ? (
        await Promise.all(
          [...statuses].map((s) => readCollections('gsi2', keys.listByStatusPartition(s), from, wanted, forward)),
        )
      ).flat()
    : await readCollections('gsi1', keys.listAllPartition, from, wanted, forward);
  found.sort((a, b) => a.ticket.id - b.ticket.id);
  const page = forward ? found.slice(0, wanted) : found.slice(-wanted);
  // A status re-keying in progress can show a ticket in its old status partition for a moment.
  return page.filter((c) => !statuses || statuses.has(c.ticket.status));
}

export interface TicketPage {
  count: number;
  links: PageLinks;
  tickets: TicketCollection[];
}

/** Count blocks read per request while finding where a numbered page starts (about 16 KB)... */
const BLOCKS_PER_READ = 10;
/** ...and requests at most: past that (a list thinned by deletes or a rare status) use the cursor links. */
const COUNT_READS = 4;

/**
 * Where page `window` starts: the first id of the run of 25 ids that holds its first ticket, and how
 * many tickets of that run come before it; the ticket's own id when the run is full (no id of it
 * deleted or, filtered, of another status). Read from the counts at whichever end is nearer, never
 * further than MAX_PAGE_DEPTH tickets from it.
 */
async function locatePage(
  statuses: Set<number> | undefined,
  window: PageWindow,
  count: number,
  firstRead: { from: 'first' | 'last'; items: Item[]; next?: Item },
) {
  const fromEnd = count - window.offset;
  const from: 'first' | 'last' =
    window.offset <= MAX_PAGE_DEPTH && (firstRead.from === 'first' || fromEnd > MAX_PAGE_DEPTH) ? 'first' : 'last';
  if (window.offset > MAX_PAGE_DEPTH && fromEnd > MAX_PAGE_DEPTH) throw new PageTooDeep(window.page);
  let read = firstRead.from === from ? firstRead : { from, ...(await readCounts(from, 1 + BLOCKS_PER_READ)) };
  let reads = 1;
  let passed = 0; // tickets of the list between the end read from and the current run
  const target = from === 'first' ? window.offset : fromEnd; // reached when `passed` would exceed it
  for (;;) {
    const blocks = read.items.filter((i) => keys.isCountsBlock(String(i.SK)));
    for (const block of blocks) {
      const runs = subBlockCounts(keys.blockNumber(String(block.SK)), block, statuses);
      if (from === 'last') runs.reverse();
      for (const run of runs) {
        if (from === 'first' ? passed + run.count > target : passed + run.count >= target) {
          const before = from === 'first' ? passed : count - passed - run.count;
          const skip = window.offset - before;
          // A run whose every id is a ticket of the list holds the page's first one at its place: read from there.
          return run.count === TICKET_SUB_BLOCK ? { start: run.start + skip, skip: 0 } : { start: run.start, skip };
        }
        passed += run.count;
      }
    }
    // The totals and the blocks change in one transaction, so read in one Query (from the start) the blocks always
    // reach the target. From the end they are read beside the totals item: a transaction between the two reads may
    // leave the blocks behind it, for that moment; the page then starts at the first ticket.
    if (!read.next) {
      if (from === 'last') return { start: 0, skip: 0 };
      throw new Error('Ticket counts: the blocks hold fewer tickets than the totals');
    }
    if (++reads > COUNT_READS) throw new PageTooDeep(window.page);
    read = { from, ...(await readCounts(from, BLOCKS_PER_READ, read.next)) };
  }
}

/** The page's `next` and `previous`: numbered within MAX_PAGE_DEPTH of an end, else cursors. */
function numberedPageLinks(window: PageWindow, count: number, page: TicketCollection[]): PageLinks {
  const near = (offset: number) => offset <= MAX_PAGE_DEPTH || count - offset <= MAX_PAGE_DEPTH;
  const first = page[0]?.ticket.id;
  const last = page.at(-1)?.ticket.id;
  const nextOffset = window.offset + window.limit;
  const previousOffset = window.offset - window.limit;
  return {
    next:
      window.page >= window.pages ? null : near(nextOffset) || last === undefined ? window.page + 1 : { after: last },
    previous:
      window.page <= 1
        ? null
        : near(Math.max(0, previousOffset)) || first === undefined
          ? window.page - 1
          : { before: first },
  };
}

/**
 * One page of tickets in id order, optionally only some statuses. `count` and where the page
 * starts come from the counts partition (store/ticket-counts.ts: one Query, bounded reads), the
 * tickets from one Query of gsi1, or of gsi2 per status asked for, starting at most 24 tickets before
 * the page: the same cost whatever the table size. A cursor page (past MAX_PAGE_DEPTH from both
 * ends) reads from its cursor. The counts follow the stream, so a ticket created a moment ago may be
 * listed before it is counted.
 */
export async function listTickets(statuses: Set<number> | undefined, request: PageRequest): Promise<TicketPage> {
  if (request.cursor && !isIdCursor(request.cursor)) throw new NotFound('Invalid cursor');
  if (request.cursor) return listFromCursor(statuses, request.pageSize, request.cursor);
  const fromEnd = request.page === 'last';
  const from: 'first' | 'last' = fromEnd ? 'last' : 'first';
  const blocksWanted =
    request.page === 1
      ? 0
      : fromEnd
        ? 2
        : Math.min(BLOCKS_PER_READ, Math.ceil(((request.page as number) * request.pageSize) / 1000) + 1);
  // From the start, one Query: the totals item, then the blocks; from the end, the last blocks beside the totals item.
  const [read, totalsItem] = await Promise.all([
    readCounts(from, (fromEnd ? 0 : 1) + blocksWanted),
    fromEnd ? readTotals() : undefined,
  ]);
  const firstRead = { from, ...read };
  const totals = fromEnd
    ? totalsItem
    : firstRead.items[0]?.SK === keys.countsTotals.SK
      ? firstRead.items[0]
      : undefined;
  const count = totalOf(totals, statuses);
  const window = pageWindow(request, count);
  // The last page shows what the list holds beyond the count too: tickets written a moment ago,
  // which the counts (behind the stream) do not have yet, are listed at once.
  const wanted = window.page === window.pages ? request.pageSize : window.limit;
  const { start, skip } =
    window.offset === 0 ? { start: 0, skip: 0 } : await locatePage(statuses, window, count, firstRead);
  const tickets = (await readPage(statuses, start, skip + wanted)).slice(skip);
  return { count, links: numberedPageLinks(window, count, tickets), tickets };
}

/** A page after or before a cursor's ticket id: one more ticket is read to know whether there is a further page. */
async function listFromCursor(
  statuses: Set<number> | undefined,
  pageSize: number,
  cursor: IdCursor,
): Promise<TicketPage> {
  const forward = 'after' in cursor;
  const [countRead, found] = await Promise.all([
    readCounts('first', 1),
    readPage(statuses, forward ? cursor.after + 1 : cursor.before - 1, pageSize + 1, forward),
  ]);
  const totals = countRead.items[0]?.SK === keys.countsTotals.SK ? countRead.items[0] : undefined;
  const more = found.length > pageSize;
  const tickets = forward ? found.slice(0, pageSize) : found.slice(-pageSize);
  const first = tickets[0]?.ticket.id;
  const last = tickets.at(-1)?.ticket.id;
  return {
    count: totalOf(totals, statuses),
    links: {
      next: forward ? (more ? { after: last! } : null) : { after: last ?? cursor.before - 1 },
      previous: forward ? { before: first ?? cursor.after + 1 } : more ? { before: first! } : null,
    },
    tickets,
  };
}

/** Above every ticket id (ids are 12 digits in the list keys). */
const TOP_ID = 10 ** 12 - 2;

/**
 * One page of tickets in reverse id order (`ordering=-id`), optionally only some statuses: the
 * same Query of gsi1 or gsi2 as listTickets, read downwards, paged by cursor (`next` goes to lower
 * ids), and the totals item for `count`.
 */
export async function listTicketsDescending(
  statuses: Set<number> | undefined,
  pageSize: number,
  cursor?: IdCursor,
): Promise<TicketPage> {
  const up = cursor !== undefined && 'after' in cursor;
  const from = cursor === undefined ? TOP_ID : 'after' in cursor ? cursor.after + 1 : cursor.before - 1;
  const [countRead, found] = await Promise.all([readCounts('first', 1), readPage(statuses, from, pageSize + 1, up)]);
  const totals = countRead.items[0]?.SK === keys.countsTotals.SK ? countRead.items[0] : undefined;
  const more = found.length > pageSize;
  const tickets = (up ? found.slice(0, pageSize) : found.slice(-pageSize)).reverse();
  const highest = tickets[0]?.ticket.id;
  const lowest = tickets.at(-1)?.ticket.id;
  return {
    count: totalOf(totals, statuses),
    links: {
      next: up ? (lowest === undefined ? null : { before: lowest }) : more ? { before: lowest! } : null,
      previous: up
        ? more
          ? { after: highest! }
          : null
        : cursor === undefined || highest === undefined
          ? null
          : { after: highest },
    },
    tickets,
  };
}

/** Tickets submitted from `email` (exact), newest first: gsi3, eventually consistent. */
export async function ticketsBySubmitter(email: string): Promise<Ticket[]> {
  const items = await queryAll({
    IndexName: INDEXES.gsi3.name,
    KeyConditionExpression: inIndex('gsi3'),
    ExpressionAttributeValues: { ':pk': keys.submitterPartition(email) },
    ScanIndexForward: false,
  });
  return items.map((i) => strip<Ticket>(i));
}

/** One attachment record by its ticket and id (strongly consistent). */
export async function getAttachment(ticket: number, id: number): Promise<Attachment | undefined> {
  const out = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: keys.attachment(ticket, id), ConsistentRead: true }),
  );
  return out.Item ? strip<Attachment>(out.Item) : undefined;
}
