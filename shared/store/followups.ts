/**
 * Followups and attachment records by their own ids: their ref items say which ticket holds them,
 * so a lookup is one GetItem plus one read of the ticket's collection, and a list page is one Query
 * of the refs (gsi1) per kind plus BatchGets of exactly the page's items.
 */
import { GetCommand } from '../aws/dynamodb';
import type { Attachment, Followup, Ticket } from '../domain/records';
import type { FollowupChanges } from '../domain/followup';
import { pageOf, type PageRequest, type PageWindow } from '../domain/pagination';
import { config } from '../config';
import { dynamo } from '../aws/clients';
import { keys, type RefKind, ITEM_EXISTS, ITEM_IS_NEW, INDEXES, inIndex } from './keys';
import { byFilename, type AttachmentLocation } from '../domain/attachment-location';
import { followupItem, openingOf, strip, WRITTEN_OUT, type ReadCollection } from './items';
import { batchGet, queryAll } from './query';
import { MissingTicket, childDeletes, childPuts, put, readTicket } from './tickets';
import { ConditionFailed, TransactionConflict, transact, type TransactItem } from './transact';
import { cleanupsOfDeleted, type FileCleanup } from './file-cleanups';
import { deletionRecord } from './actor';

export interface FoundFollowup {
  collection: ReadCollection;
  followup: Followup;
  attachments: Attachment[];
}

/** A followup's or attachment's ref item (one consistent GetItem). */
async function readRef<R extends { ticket: number }>(kind: RefKind, id: number): Promise<R | undefined> {
  const out = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: keys.ref(kind, id), ConsistentRead: true }),
  );
  return out.Item as R | undefined;
}

/** Every ref of a kind, in id order (gsi1: eventually consistent, as lists are). */
async function listRefs<R>(kind: RefKind): Promise<R[]> {
  return (await queryAll({
    IndexName: INDEXES.gsi1.name,
    KeyConditionExpression: inIndex('gsi1'),
    ExpressionAttributeValues: { ':pk': keys.refListPartition(kind) },
  })) as R[];
}

/** Which ticket holds followup `id` (undefined: no such followup). */
export async function followupTicket(id: number): Promise<number | undefined> {
  return (await readRef<{ ticket: number }>('followup', id))?.ticket;
}

export async function findFollowup(id: number): Promise<FoundFollowup | undefined> {
  const ticket = await followupTicket(id);
  if (ticket === undefined) return undefined;
  const collection = await readTicket(ticket);
  const followup = collection?.followups.find((f) => f.id === id);
  if (!collection || !followup) return undefined;
  return { collection, followup, attachments: collection.attachments.filter((a) => a.followup === id) };
}

export interface FollowupPage {
  count: number;
  window: PageWindow;
  followups: Followup[];
  attachments: Attachment[];
}

/**
 * Every followup, in id order (the order of their dates), one page at a time; with `visible`, only
 * those of its tickets (a limited staff member's: middleware/queue-access.ts), the count exact.
 */
export async function listFollowups(request: PageRequest, visible?: ReadonlySet<number>): Promise<FollowupPage> {
  const [all, attachmentRefs] = await Promise.all([
    listRefs<{ id: number; ticket: number }>('followup'),
    listRefs<AttachmentLocation>('attachment'),
  ]);
  const refs = visible ? all.filter((r) => visible.has(r.ticket)) : all;
  const { window, page } = pageOf(request, refs);
  const onPage = new Set(page.map((f) => f.id));
  const attachmentKeys = attachmentRefs
    .filter((a) => onPage.has(a.followup))
    .map((a) => keys.attachment(a.ticket, a.id));
  const items = await batchGet([...page.map((f) => keys.followup(f.ticket, f.id)), ...attachmentKeys]);
  const followups = items.filter((i) => i.type === 'followup').map((i) => strip<Followup>(i));
  // Opening followups still held by their ticket items: one more BatchGet, of those tickets.
  const stored = new Set(followups.map((f) => f.id));
  const inline = page.filter((f) => !stored.has(f.id));
  if (inline.length) {
    const wanted = new Set(inline.map((f) => f.id));
    for (const item of await batchGet([...new Set(inline.map((f) => f.ticket))].map((t) => keys.ticket(t)))) {
      const opening = openingOf(item);
      if (opening && wanted.has(opening.id)) followups.push(opening);
    }
  }
  const attachments = items.filter((i) => i.type === 'attachment').map((i) => strip<Attachment>(i));
  return { count: refs.length, window, followups: followups.sort((a, b) => a.id - b.id), attachments };
}

/**
 * The ticket item's side of an edit or delete in its collection: a new `version`, since what GET
 * shows of the ticket changes (its ETag must too). Additions need none: the tag counts the
 * collection (domain/etag.ts), so adding never writes the ticket item (no conflicts under bursts).
 */
function collectionChange(ticket: number): TransactItem {
  return {
    Update: {
      TableName: config.tableName,
      Key: keys.ticket(ticket),
      UpdateExpression: 'ADD #version :one',
      ConditionExpression: ITEM_EXISTS,
      ExpressionAttributeNames: { '#version': 'version' },
      ExpressionAttributeValues: { ':one': 1 },
    },
  };
}

/**
 * Writes out the opening followup that its ticket item still holds (items.ts `ticketItem`) as an
 * item of its own, before it is edited, moved or deleted like any other followup. What GET shows does
 * not change, so the ticket's version does not either. Conditional on the ticket still holding it
 * under the status read; when that fails the followup is read again (someone else wrote it out, the
 * status changed, or the ticket is gone).
 */
async function writeOut(found: FoundFollowup): Promise<FoundFollowup> {
  for (let attempt = 1; found.collection.inlineFollowup === found.followup.id; attempt++) {
    const { collection, followup } = found;
    try {
      await transact([
        put({ ...followupItem(followup, collection.ticket.status), [WRITTEN_OUT]: true }, ITEM_IS_NEW),
        {
          Update: {
            TableName: config.tableName,
            Key: keys.ticket(collection.ticket.id),
            UpdateExpression: 'REMOVE #opening',
            ConditionExpression: '#opening.#id = :id AND #status = :status',
            ExpressionAttributeNames: { '#opening': 'opening', '#id': 'id', '#status': 'status' },
            ExpressionAttributeValues: { ':id': followup.id, ':status': collection.ticket.status },
          },
        },
      ]);
      return { ...found, collection: { ...collection, inlineFollowup: undefined } };
    } catch (error) {
      if (!(error instanceof ConditionFailed)) throw error;
      if (attempt === 3)
        throw new TransactionConflict('The opening followup changed while being written out', { cause: error });
      const again = await findFollowup(followup.id);
      if (!again) throw new MissingTicket();
      found = again;
    }
  }
  return found;
}

/**
 * Edits a followup. Moving it to another ticket (`ticket` changed) moves its attachment records
 * with it, in one transaction; `target` is the destination ticket as read.
 */
export async function updateFollowup(
  found: FoundFollowup,
  changes: FollowupChanges,
  target: Ticket | undefined,
): Promise<Followup> {
  const { followup, attachments, collection } = await writeOut(found);
  const next: Followup = { ...followup, ...changes };
  try {
    if (!target || target.id === followup.ticket) {
      await transact([
        put(followupItem(next, collection.ticket.status), ITEM_EXISTS),
        collectionChange(followup.ticket),
      ]);
    } else {
      const moved = attachments.map((a) => ({ ...a, ticket: target.id }));
      await transact([
        collectionChange(target.id),
        {
          Delete: {
            TableName: config.tableName,
            Key: keys.followup(followup.ticket, followup.id),
            ConditionExpression: ITEM_EXISTS,
          },
        },
        ...attachments.map((a) => ({ Delete: { TableName: config.tableName, Key: keys.attachment(a.ticket, a.id) } })),
        collectionChange(followup.ticket),
        ...childPuts([next], moved, target.status), // the refs are overwritten with the new ticket
      ]);
    }
  } catch (error) {
    if (error instanceof ConditionFailed) throw new MissingTicket();
    throw error;
  }
  return next;
}

/** Deletes a followup and its attachment records; returns the cleanup records of its files (for `removeFiles`). */
export async function deleteFollowup(found: FoundFollowup): Promise<FileCleanup[]> {
  const { followup, attachments } = await writeOut(found);
  const files = cleanupsOfDeleted(attachments.map((a) => a.object_key));
  try {
    const [followupDelete, ...others] = childDeletes([followup], attachments);
    await transact([
      { Delete: { ...followupDelete!.Delete!, ConditionExpression: ITEM_EXISTS } },
      ...others,
      collectionChange(followup.ticket),
      ...files.actions,
      ...[deletionRecord('followup', followup.id)].filter((a) => a !== undefined),
    ]);
  } catch (error) {
    if (error instanceof ConditionFailed) throw new MissingTicket();
    throw error;
  }
  return files.records;
}

export async function findAttachment(id: number): Promise<Attachment | undefined> {
  const ref = await readRef<AttachmentLocation>('attachment', id);
  if (!ref) return undefined;
  const [item] = await batchGet([keys.attachment(ref.ticket, id)]);
  return item ? strip<Attachment>(item) : undefined;
}

export interface AttachmentPage {
  count: number;
  window: PageWindow;
  attachments: Attachment[];
}

/** Every attachment record by file name (then id), one page at a time; `visible` as listFollowups'. */
export async function listAttachments(request: PageRequest, visible?: ReadonlySet<number>): Promise<AttachmentPage> {
  const index = (await listRefs<AttachmentLocation>('attachment'))
    .filter((r) => !visible || visible.has(r.ticket))
    .sort(byFilename);
  const { window, page } = pageOf(request, index);
  const items = await batchGet(page.map((a) => keys.attachment(a.ticket, a.id)));
  const byId = new Map(items.map((i) => [i.id as number, strip<Attachment>(i)]));
  return { count: index.length, window, attachments: page.flatMap((a) => (byId.has(a.id) ? [byId.get(a.id)!] : [])) };
}

/**
 * Adds one attachment record to an existing followup of `ticket`, committing its uploaded file. The
 * followup must still exist (a check on its item, not the ticket's: additions never write the
 * ticket item, so concurrent ones do not conflict).
 */
export async function addAttachment(
  ticket: Ticket,
  attachment: Attachment,
  fileCommit?: TransactItem,
  inline = false,
): Promise<void> {
  // An opening followup the ticket item still holds is checked there (items.ts `ticketItem`).
  const followupExists: TransactItem = inline
    ? {
        ConditionCheck: {
          TableName: config.tableName,
          Key: keys.ticket(ticket.id),
          ConditionExpression: '#opening.#id = :id',
          ExpressionAttributeNames: { '#opening': 'opening', '#id': 'id' },
          ExpressionAttributeValues: { ':id': attachment.followup },
        },
      }
    : {
        ConditionCheck: {
          TableName: config.tableName,
          Key: keys.followup(ticket.id, attachment.followup),
          ConditionExpression: ITEM_EXISTS,
        },
      };
  try {
    await transact([
      followupExists,
      ...childPuts([], [attachment], ticket.status),
      ...(fileCommit ? [fileCommit] : []),
    ]);
  } catch (error) {
    if (error instanceof ConditionFailed) throw new MissingTicket();
    throw error;
  }
}

/** Deletes an attachment record; returns the cleanup record of its file (for `removeFiles`). */
export async function deleteAttachment(attachment: Attachment): Promise<FileCleanup[]> {
  const files = cleanupsOfDeleted([attachment.object_key]);
  try {
    const [recordDelete, refDelete] = childDeletes([], [attachment]);
    await transact([
      { Delete: { ...recordDelete!.Delete!, ConditionExpression: ITEM_EXISTS } },
      refDelete!,
      collectionChange(attachment.ticket),
      ...files.actions,
      ...[deletionRecord('attachment', attachment.id)].filter((a) => a !== undefined),
    ]);
  } catch (error) {
    if (error instanceof ConditionFailed) throw new MissingTicket();
    throw error;
  }
  return files.records;
}
