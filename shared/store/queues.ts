/**
 * Queues: one partition, so one Query lists them. Slugs are unique through a claim item written in
 * the same transaction. A queue that tickets use, or that a write is putting a ticket into, cannot be
 * deleted: writes into a queue take a reservation on its item first, and the ticket counts (kept from
 * the stream, consumer/ticket-counts.ts) say how many tickets it has and how many of those writes they
 * hold (docs/data-model.md, "Deleting a queue").
 */
import { GetCommand, QueryCommand } from '../aws/dynamodb';
import type { Queue } from '../domain/records';
import { QUEUE_MAIL_DEFAULTS, queueMailSettings, type QueueMailSettings } from '../domain/mail-settings';
import { config } from '../config';
import { dynamo } from '../aws/clients';
import { highestId, raiseCounters, reserveIds } from './counters';
import { cachedPartition } from './query';
import { forgetQueue } from './references';
import { keys, ITEM_EXISTS, ITEM_IS_NEW, SORT_BEGINS_WITH } from './keys';
import { ConditionFailed, transact, type TransactItem } from './transact';
import {
  CLOSED_UNTIL,
  CLOSE_MS,
  MissingQueue,
  OPEN,
  POLL_MS,
  RESERVED,
  pause,
  readQueueItem,
} from './queue-reservations';
import { readTotals } from './ticket-counts';
import { arrivalsAttribute, queueDeleteDecision } from '../domain/queue-delete';
import { logger } from '../observability';

// The settings an update writes beside title and slug: the mail settings, `escalate_days` and the rest.
const MAIL_ATTRIBUTES: (keyof QueueMailSettings | 'escalate_days' | 'allow_public_submission' | 'locale')[] = [
  ...(Object.keys(QUEUE_MAIL_DEFAULTS) as (keyof QueueMailSettings)[]),
  'escalate_days',
  'allow_public_submission',
  'locale',
];

export class DuplicateSlug extends Error {}
export class QueueInUse extends Error {}
export { MissingQueue };

function toQueue(item: Record<string, unknown>): Queue {
  return {
    id: item.id as number,
    title: item.title as string,
    slug: item.slug as string,
    ...queueMailSettings(item),
    escalate_days: (item.escalate_days as number | null | undefined) ?? null,
    allow_public_submission: item.allow_public_submission === true,
    locale: (item.locale as string | null | undefined) ?? null,
  };
}

/** What a new queue needs: title and slug; its mail settings default to none (QUEUE_MAIL_DEFAULTS). */
export type NewQueue = Pick<Queue, 'title' | 'slug'> &
  Partial<QueueMailSettings> &
  Partial<Pick<Queue, 'escalate_days' | 'allow_public_submission' | 'locale'>>;

/**
 * How long mail in and out keep the queues per process (warm function; the local runtime's SMTP server):
 * a queue's new slug or address counts within it. A message to an address none of the kept queues
 * answers at reads them again before it is refused (`queuesForMail` with `fresh`), so a queue just
 * made is never refused.
 */
export const QUEUES_FOR_MAIL_TTL_MS = 60_000;
const mailQueues = cachedPartition(keys.queuePartition, QUEUES_FOR_MAIL_TTL_MS, toQueue, keys.queueSortPrefix);

/**
 * The queues as mail in reads them for every message (their addresses, their slugs for subject
 * tags): one Query of their partition per QUEUES_FOR_MAIL_TTL_MS per process, or now with `fresh`.
 */
export async function queuesForMail(options: { fresh?: boolean } = {}): Promise<Queue[]> {
  return mailQueues.read(options);
}

/** Queues as mail out has read them (`queueForMail`), each until it is due to be read again. */
const mailOutQueues = new Map<number, { queue: Promise<Queue | undefined>; until: number }>();

/** Forgets the queues kept for mail, in and out: this process changed one. */
function forgetMailQueues(): void {
  mailQueues.forget();
  mailOutQueues.clear();
}

/**
 * Queue `id` as mail out reads it (its address, title, CC lists and the mail it turns off): one GetItem, kept
 * QUEUES_FOR_MAIL_TTL_MS per process (reads of it at once share one), so the mail consumer and the sender do not read
 * it for every mail in a burst, and a lone mail after a quiet minute reads that one queue, not all of them (with 50
 * queues the partition's Query is 4 read units, the GetItem 1). A change made by another function shows within that
 * time, as it does for mail in; one made by this process, at once.
 */
export function queueForMail(id: number, now = Date.now()): Promise<Queue | undefined> {
  const kept = mailOutQueues.get(id);
  if (kept && kept.until > now) return kept.queue;
  const queue = getQueue(id);
  mailOutQueues.set(id, { queue, until: now + QUEUES_FOR_MAIL_TTL_MS });
  queue.catch(() => mailOutQueues.delete(id)); // a failed read is not kept
  return queue;
}

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

/** The first of `ids` that names no queue (a rule's `queues`, checked before it is stored), if any. */
export async function firstMissingQueue(ids: readonly number[]): Promise<number | undefined> {
  if (!ids.length) return undefined;
  const known = new Set((await listQueues()).map((q) => q.id));
  return ids.find((id) => !known.has(id));
}

export async function getQueue(id: number): Promise<Queue | undefined> {
  const out = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: keys.queue(id), ConsistentRead: true }),
  );
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

/** Creates a queue with the counter's next id. */
export async function createQueue(fields: NewQueue): Promise<Queue> {
  for (let attempt = 1; ; attempt++) {
    const queue: Queue = {
      id: (await reserveIds({ queue: 1 })).queue,
      ...QUEUE_MAIL_DEFAULTS,
      escalate_days: null,
      allow_public_submission: false,
      locale: null,
      ...fields,
    };
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
      forgetMailQueues();
      return queue;
    } catch (error) {
      if (!(error instanceof ConditionFailed)) throw error;
      // Only the id was taken, by a queue written under an id of its own that the counter did not know yet (an
      // import's, before it raised the counter; a runtime's queue 1 before seedFirstQueue counted it): the next one.
      if (!error.positions.includes(0) && attempt < 10) continue;
      throw new DuplicateSlug();
    }
  }
}

/**
 * The local runtime's first queue, for a table no queue was ever made in: the counter's first id, 1. Once the counter
 * has handed out a queue id, never again: a queue deleted stays deleted across restarts, and its id is not handed out
 * again (a staff member kept to queue 1 would see its successor). A queue 1 that an earlier runtime made outside the
 * counter is counted now. Returns whether it made the queue.
 */
export async function seedFirstQueue(fields: NewQueue): Promise<boolean> {
  if ((await highestId('queue')) > 0) return false;
  if (await getQueue(1)) {
    await raiseCounters({ queue: 1 });
    return false;
  }
  await createQueue(fields);
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
  forgetMailQueues();
  return next;
}

/**
 * How long a delete waits for the counts to take in the writes that reserved in the queue (they are under a second
 * behind).
 */
export const SETTLE_MS = 3_000;

/** The queue is being deleted by another request. */
export class QueueBeingDeleted extends Error {}
/** Writes that reserved in the queue are not all in the counts yet (SETTLE_MS passed). */
export class QueueFilling extends Error {}

/**
 * Deletes a queue no ticket uses, nor is on its way into (docs/data-model.md, "Deleting a queue"):
 * closes it to new reservations; reads, until they settle or SETTLE_MS passes, the reservations on
 * the queue item and the ticket counts (live tickets, arrivals), which follow the stream; deletes it
 * when domain/queue-delete.ts says so, conditional on the reservations read and the close still
 * held. Otherwise reopens it and throws QueueInUse or QueueFilling. `ticket_count` on queue items
 * is from an earlier version, which kept it in every ticket write's transaction.
 */
export async function deleteQueue(queue: Queue): Promise<void> {
  const closedUntil = Date.now() + CLOSE_MS;
  try {
    await transact([
      {
        Update: {
          TableName: config.tableName,
          Key: keys.queue(queue.id),
          UpdateExpression: 'SET #closedUntil = :until',
          ConditionExpression: `${ITEM_EXISTS} AND ${OPEN}`,
          ExpressionAttributeNames: CLOSED_UNTIL,
          ExpressionAttributeValues: { ':until': closedUntil, ':now': Date.now() },
        },
      },
    ]);
  } catch (error) {
    if (!(error instanceof ConditionFailed)) throw error;
    throw (await readQueueItem(queue.id)) ? new QueueBeingDeleted() : new MissingQueue();
  }
  try {
    const settleBy = Date.now() + SETTLE_MS;
    for (;;) {
      // The queue item first: from the close on, its reservations only fall and the arrivals only grow.
      const item = await readQueueItem(queue.id);
      if (!item) throw new MissingQueue();
      const totals = await readTotals();
      const reserved = Number(item.reserved ?? 0);
      const decision = queueDeleteDecision({
        reserved,
        ...(item.last_reserved === undefined ? {} : { lastReserved: Number(item.last_reserved) }),
        arrived: Number(totals?.[arrivalsAttribute(queue.id)] ?? 0),
        live: Number(totals?.[`q${queue.id}`] ?? 0),
        now: Date.now(),
      });
      if (decision === 'in-use') throw new QueueInUse();
      if (decision === 'delete' && (await deleteClosed(queue, closedUntil, reserved))) return;
      if (Date.now() >= settleBy) throw new QueueFilling();
      await pause(POLL_MS);
    }
  } catch (error) {
    await reopen(queue.id, closedUntil);
    throw error;
  } finally {
    forgetQueue(queue.id);
    forgetMailQueues();
  }
}

/**
 * Deletes the queue and its slug if it still holds `reserved` reservations under this delete's close; false when not.
 */
async function deleteClosed(queue: Queue, closedUntil: number, reserved: number): Promise<boolean> {
  const reservedUnchanged = reserved
    ? '#reserved = :reserved'
    : '(attribute_not_exists(#reserved) OR #reserved = :reserved)';
  try {
    await transact([
      {
        Delete: {
          TableName: config.tableName,
          Key: keys.queue(queue.id),
          ConditionExpression: `#closedUntil = :until AND ${reservedUnchanged}`,
          ExpressionAttributeNames: { ...CLOSED_UNTIL, ...RESERVED },
          ExpressionAttributeValues: { ':until': closedUntil, ':reserved': reserved },
        },
      },
      { Delete: { TableName: config.tableName, Key: keys.queueSlug(queue.slug) } },
    ]);
    return true;
  } catch (error) {
    // A reservation given back meanwhile (or the close lapsed and one was taken): look again.
    if (error instanceof ConditionFailed) return false;
    throw error;
  }
}

/** Lifts this delete's close, if it still holds. */
async function reopen(id: number, closedUntil: number): Promise<void> {
  await transact([
    {
      Update: {
        TableName: config.tableName,
        Key: keys.queue(id),
        UpdateExpression: 'REMOVE #closedUntil',
        ConditionExpression: '#closedUntil = :until',
        ExpressionAttributeNames: CLOSED_UNTIL,
        ExpressionAttributeValues: { ':until': closedUntil },
      },
    },
  ]).catch((error: unknown) => {
    if (!(error instanceof ConditionFailed))
      logger.warn('queue close not lifted: it lapses by itself', { queue: id, error: String(error) });
  });
}
