/**
 * Queues: one partition, so one Query lists them. Slugs are unique through a claim item written in
 * the same transaction. A queue that tickets use cannot be deleted: the ticket counts (kept from the
 * stream, store/ticket-counts.ts) say how many it has.
 */
import { MissingRecord } from '../domain/errors';
import { GetCommand, QueryCommand } from './dynamodb';
import type { Queue } from '../domain/records';
import { QUEUE_MAIL_DEFAULTS, queueMailSettings, type QueueMailSettings } from '../domain/mail-settings';
import { config } from '../config';
import { dynamo } from './clients';
import { reserveIds } from './counters';
import { forgetQueue } from './references';
import { keys, ITEM_EXISTS, ITEM_IS_NEW, SORT_BEGINS_WITH } from './keys';
import { ConditionFailed, transact, type TransactItem } from './transact';
import { readTotals } from './ticket-counts';

const MAIL_ATTRIBUTES = Object.keys(QUEUE_MAIL_DEFAULTS) as (keyof QueueMailSettings)[];

export class DuplicateSlug extends Error {}
export class QueueInUse extends Error {}
export class MissingQueue extends MissingRecord {}

function toQueue(item: Record<string, unknown>): Queue {
  return { id: item.id as number, title: item.title as string, slug: item.slug as string, ...queueMailSettings(item) };
}

/** What a new queue needs: title and slug; its mail settings default to none (QUEUE_MAIL_DEFAULTS). */
export type NewQueue = Pick<Queue, 'title' | 'slug'> & Partial<QueueMailSettings>;

export async function listQueues(): Promise<Queue[]> {
  const out = await dynamo.send(
    new QueryCommand({
      TableName: config.tableName,
      KeyConditionExpression: SORT_BEGINS_WITH,
      ExpressionAttributeValues: { ':pk': keys.queuePartition, ':sk': keys.queueSortPrefix },
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []).map(toQueue);
}

export async function getQueue(id: number): Promise<Queue | undefined> {
  const out = await dynamo.send(new GetCommand({ TableName: config.tableName, Key: keys.queue(id), ConsistentRead: true }));
  return out.Item ? toQueue(out.Item) : undefined;
}

function claimSlug(queue: Queue): TransactItem {
  return {
    Put: {
      TableName: config.tableName,
      Item: { ...keys.queueSlug(queue.slug), id: queue.id },
      ConditionExpression: ITEM_IS_NEW,
    },
  };
}

/** Creates a queue with the next id (or `id`, when given and free). */
export async function createQueue(fields: NewQueue, id?: number): Promise<Queue> {
  for (let attempt = 1; ; attempt++) {
    const queue: Queue = { id: id ?? (await reserveIds({ queue: 1 })).queue, ...QUEUE_MAIL_DEFAULTS, ...fields };
    try {
      await transact([
        claimSlug(queue),
        {
          Put: {
            TableName: config.tableName,
            Item: { ...keys.queue(queue.id), ...queue },
            ConditionExpression: ITEM_IS_NEW,
          },
        },
      ]);
      return queue;
    } catch (error) {
      if (!(error instanceof ConditionFailed)) throw error;
      // Only the id was taken, by a queue made with an explicit id (the bootstrap's queue 1, which
      // the counter does not know): take the next one.
      if (id === undefined && !error.positions.includes(0) && attempt < 10) continue;
      throw new DuplicateSlug();
    }
  }
}

/** Creates the queue unless one with this id exists already; returns whether it did. */
export async function ensureQueue(queue: NewQueue & Pick<Queue, 'id'>): Promise<boolean> {
  if (await getQueue(queue.id)) return false;
  await createQueue({ title: queue.title, slug: queue.slug }, queue.id);
  return true;
}

export async function updateQueue(current: Queue, changes: Partial<Omit<Queue, 'id'>>): Promise<Queue> {
  const next = { ...current, ...changes };
  const items: TransactItem[] = [
    {
      Update: {
        TableName: config.tableName,
        Key: keys.queue(current.id),
        UpdateExpression: `SET title = :title, slug = :slug, ${MAIL_ATTRIBUTES.map((a) => `#${a} = :${a}`).join(', ')}`,
        ConditionExpression: ITEM_EXISTS,
        ExpressionAttributeNames: Object.fromEntries(MAIL_ATTRIBUTES.map((a) => [`#${a}`, a])),
        ExpressionAttributeValues: {
          ':title': next.title,
          ':slug': next.slug,
          ...Object.fromEntries(MAIL_ATTRIBUTES.map((a) => [`:${a}`, next[a]])),
        },
      },
    },
  ];
  if (next.slug !== current.slug) {
    items.push(claimSlug(next), { Delete: { TableName: config.tableName, Key: keys.queueSlug(current.slug) } });
  }
  try {
    await transact(items);
  } catch (error) {
    if (error instanceof ConditionFailed) throw error.positions.includes(0) ? new MissingQueue() : new DuplicateSlug();
    throw error;
  }
  return next;
}

/**
 * Deletes a queue no ticket uses, by the ticket counts: they follow the stream, so a ticket created
 * in the last moment (well under a second) may not be counted yet, and keeps the deleted queue's id
 * (docs/data-model.md, "Queues"). `ticket_count` on queue items is from an earlier version, which
 * kept it in every ticket write's transaction.
 */
export async function deleteQueue(queue: Queue): Promise<void> {
  if (Number((await readTotals())?.[`q${queue.id}`] ?? 0) > 0) throw new QueueInUse();
  try {
    await transact([
      { Delete: { TableName: config.tableName, Key: keys.queue(queue.id), ConditionExpression: ITEM_EXISTS } },
      { Delete: { TableName: config.tableName, Key: keys.queueSlug(queue.slug) } },
    ]);
  } catch (error) {
    if (error instanceof ConditionFailed) throw new MissingQueue();
    throw error;
  } finally {
    forgetQueue(queue.id);
  }
}
