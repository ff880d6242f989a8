/**
 * Followups and attachment records by their own ids: the id indexes say which ticket holds them,
 * so a lookup is one index GetItem plus one read of the ticket's collection, and a list page is
 * one Query per index plus BatchGets of exactly the page's items.
 */
import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import type { Attachment, Followup, Ticket } from '../domain/records';
import type { FollowupChanges } from '../domain/followup';
import { pageWindow, type PageRequest, type PageWindow } from '../domain/pagination';
import { config } from '../config';
import { dynamo } from './clients';
import { keys } from './keys';
import { attachmentSlot, indexChanges, lookupIndex, parseAttachmentSlot, readIndex } from './id-index';
import { attachmentItem, followupItem, strip, type ReadCollection } from './items';
import { MissingTicket, childSlots, put, readTicket } from './tickets';
import { ConditionFailed, transact, type TransactItem } from './transact';
import { cleanupsOfDeleted, type FileCleanup } from './file-cleanups';

type Key = { PK: string; SK: string };

async function batchGet(list: Key[]): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  const chunks: Key[][] = [];
  for (let i = 0; i < list.length; i += 100) chunks.push(list.slice(i, i + 100));
  await Promise.all(
    chunks.map(async (chunk) => {
      let pending: Key[] = chunk;
      while (pending.length) {
        const out = await dynamo.send(new BatchGetCommand({ RequestItems: { [config.tableName]: { Keys: pending, ConsistentRead: true } } }));
        items.push(...(out.Responses?.[config.tableName] ?? []));
        pending = (out.UnprocessedKeys?.[config.tableName]?.Keys ?? []) as Key[];
      }
    }),
  );
  return items;
}

export interface FoundFollowup {
  collection: ReadCollection;
  followup: Followup;
  attachments: Attachment[];
}

export async function findFollowup(id: number): Promise<FoundFollowup | undefined> {
  const ticket = await lookupIndex<number>('followup', id);
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

/** Every followup, in id order (the order of their dates), one page at a time. */
export async function listFollowups(request: PageRequest): Promise<FollowupPage> {
  const [index, attachmentIndex] = await Promise.all([readIndex<number>('followup'), readIndex<string>('attachment')]);
  const window = pageWindow(request, index.length);
  const page = index.slice(window.offset, window.offset + window.limit);
  const onPage = new Set(page.map(([id]) => id));
  const attachmentKeys = attachmentIndex
    .map(([id, slot]) => ({ id, ...parseAttachmentSlot(slot) }))
    .filter((a) => onPage.has(a.followup))
    .map((a) => keys.attachment(a.ticket, a.id));
  const items = await batchGet([...page.map(([id, ticket]) => keys.followup(ticket, id)), ...attachmentKeys]);
  const followups = items.filter((i) => i.type === 'followup').map((i) => strip<Followup>(i)).sort((a, b) => a.id - b.id);
  const attachments = items.filter((i) => i.type === 'attachment').map((i) => strip<Attachment>(i));
  return { count: index.length, window, followups, attachments };
}

/**
 * The ticket item's side of a write to its collection: `delta` more (or fewer) items, and a new
 * `version`, since what GET shows of the ticket changes (its ETag must too).
 */
function collectionChange(ticket: number, delta: number): TransactItem {
  return {
    Update: {
      TableName: config.tableName,
      Key: keys.ticket(ticket),
      UpdateExpression: 'ADD collection_size :delta, #version :one',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeNames: { '#version': 'version' },
      ExpressionAttributeValues: { ':delta': delta, ':one': 1 },
    },
  };
}

/**
 * Edits a followup. Moving it to another ticket (`ticket` changed) moves its attachment records
 * with it, in one transaction; `target` is the destination ticket as read.
 */
export async function updateFollowup(found: FoundFollowup, changes: FollowupChanges, target: Ticket | undefined): Promise<Followup> {
  const { followup, attachments, collection } = found;
  const next: Followup = { ...followup, ...changes };
  try {
    if (!target || target.id === followup.ticket) {
      await transact([put(followupItem(next, collection.ticket.status), 'attribute_exists(PK)'), collectionChange(followup.ticket, 0)]);
    } else {
      const moved = attachments.map((a) => ({ ...a, ticket: target.id }));
      await transact([
        collectionChange(target.id, 1 + moved.length),
        { Delete: { TableName: config.tableName, Key: keys.followup(followup.ticket, followup.id), ConditionExpression: 'attribute_exists(PK)' } },
        ...attachments.map((a) => ({ Delete: { TableName: config.tableName, Key: keys.attachment(a.ticket, a.id) } })),
        collectionChange(followup.ticket, -(1 + moved.length)),
        put(followupItem(next, target.status)),
        ...moved.map((a) => put(attachmentItem(a, target.status))),
        ...childSlots([next], moved),
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
  const { followup, attachments } = found;
  const files = cleanupsOfDeleted(attachments.map((a) => a.object_key));
  try {
    await transact([
      { Delete: { TableName: config.tableName, Key: keys.followup(followup.ticket, followup.id), ConditionExpression: 'attribute_exists(PK)' } },
      ...attachments.map((a) => ({ Delete: { TableName: config.tableName, Key: keys.attachment(a.ticket, a.id) } })),
      collectionChange(followup.ticket, -(1 + attachments.length)),
      ...indexChanges('followup', [], [followup.id]),
      ...indexChanges('attachment', [], attachments.map((a) => a.id)),
      ...files.actions,
    ]);
  } catch (error) {
    if (error instanceof ConditionFailed) throw new MissingTicket();
    throw error;
  }
  return files.records;
}

export async function findAttachment(id: number): Promise<Attachment | undefined> {
  const slot = await lookupIndex<string>('attachment', id);
  if (slot === undefined) return undefined;
  const [item] = await batchGet([keys.attachment(parseAttachmentSlot(slot).ticket, id)]);
  return item ? strip<Attachment>(item) : undefined;
}

export interface AttachmentPage {
  count: number;
  window: PageWindow;
  attachments: Attachment[];
}

/** Every attachment record by file name (then id), one page at a time. */
export async function listAttachments(request: PageRequest): Promise<AttachmentPage> {
  const index = (await readIndex<string>('attachment'))
    .map(([id, slot]) => ({ id, ...parseAttachmentSlot(slot) }))
    .sort((a, b) => (a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : a.id - b.id));
  const window = pageWindow(request, index.length);
  const page = index.slice(window.offset, window.offset + window.limit);
  const items = await batchGet(page.map((a) => keys.attachment(a.ticket, a.id)));
  const byId = new Map(items.map((i) => [i.id as number, strip<Attachment>(i)]));
  return { count: index.length, window, attachments: page.flatMap((a) => (byId.has(a.id) ? [byId.get(a.id)!] : [])) };
}

/** Adds one attachment record to an existing followup of `ticket`, committing its uploaded file. */
export async function addAttachment(ticket: Ticket, attachment: Attachment, fileCommit?: TransactItem): Promise<void> {
  try {
    await transact([
      collectionChange(ticket.id, 1),
      put(attachmentItem(attachment, ticket.status)),
      ...indexChanges('attachment', [[attachment.id, attachmentSlot(attachment)]]),
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
    await transact([
      { Delete: { TableName: config.tableName, Key: keys.attachment(attachment.ticket, attachment.id), ConditionExpression: 'attribute_exists(PK)' } },
      collectionChange(attachment.ticket, -1),
      ...indexChanges('attachment', [], [attachment.id]),
      ...files.actions,
    ]);
  } catch (error) {
    if (error instanceof ConditionFailed) throw new MissingTicket();
    throw error;
  }
  return files.records;
}
