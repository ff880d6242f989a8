/**
 * Reservations in a queue (docs/data-model.md, "Deleting a queue"): a write that puts a ticket into
 * a queue takes one on the queue item first, so that the queue's delete (store/queues.ts) knows what
 * is on its way. Apart from queues.ts so that the ticket writes carry only this.
 */
import { MissingRecord, ServiceUnavailable } from '../domain/errors';
import { GetCommand } from '../aws/dynamodb';
import { config } from '../config';
import { dynamo } from '../aws/clients';
import { keys, ITEM_EXISTS } from './keys';
import { ConditionFailed, refusedWhole, transact } from './transact';
import { logger } from '../observability';
import { coalescing } from './coalesce';

/** There is no such queue (any more). */
export class MissingQueue extends MissingRecord {}

/** The queue item's own bookkeeping attributes (never part of the record: `toQueue` leaves them out). */
export const RESERVED = { '#reserved': 'reserved' };
const LAST_RESERVED = { '#lastReserved': 'last_reserved' };
export const CLOSED_UNTIL = { '#closedUntil': 'closed_until' };
export const OPEN = `(attribute_not_exists(#closedUntil) OR #closedUntil < :now)`;

/**
 * A delete's close lapses by itself after this (a delete that died holding it); creates wait for it at most so long.
 */
export const CLOSE_MS = 8_000;
export const POLL_MS = 50; // how often a delete reads what it waits for

export const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** The queue stayed closed by deletes longer than one delete holds it (503: try again). */
export class QueueClosed extends ServiceUnavailable {}

export async function readQueueItem(id: number): Promise<Record<string, unknown> | undefined> {
  return (await dynamo.send(new GetCommand({ TableName: config.tableName, Key: keys.queue(id), ConsistentRead: true })))
    .Item;
}

/**
 * Takes a reservation in queue `id` for a write that puts a ticket into it (a create, a move): a
 * plain `ADD` on the queue item, conditional on the queue existing and not being closed by a delete
 * (docs/data-model.md, "Deleting a queue"). Plain writes of one item queue rather than conflict, as
 * the id counter's do, and reservations taken at once in one process share one `ADD` (coalesce.ts).
 * While a delete holds the queue closed it waits for the delete's answer: the
 * queue gone (MissingQueue) or open again. The write that follows marks its ticket item
 * (`RESERVATION_VERSION`), so that the stream consumer counts it as an arrival.
 */
export async function reserveInQueue(id: number): Promise<void> {
  const giveUpAt = Date.now() + CLOSE_MS;
  for (;;) {
    try {
      return await reserveTogether(String(id), id);
    } catch (error) {
      if (!(error instanceof ConditionFailed)) throw error;
    }
    const item = await readQueueItem(id);
    if (!item) throw new MissingQueue();
    if (Date.now() >= giveUpAt) throw new QueueClosed();
    await pause(Math.min(4 * POLL_MS, Math.max(0, Number(item.closed_until) - Date.now())));
  }
}

/** One `ADD` of the reservations asked for at once in one queue (each call names it): taken, or refused, for all. */
const reserveTogether = /* @__PURE__ */ coalescing<number, void>(async (_key, queues) => {
  const now = Date.now();
  await transact([
    {
      Update: {
        TableName: config.tableName,
        Key: keys.queue(queues[0]!),
        UpdateExpression: 'ADD #reserved :count SET #lastReserved = :now',
        ConditionExpression: `${ITEM_EXISTS} AND ${OPEN}`,
        ExpressionAttributeNames: { ...RESERVED, ...LAST_RESERVED, ...CLOSED_UNTIL },
        ExpressionAttributeValues: { ':count': queues.length, ':now': now },
      },
    },
  ]);
  return queues.map(() => undefined);
});

/** Gives back a reservation whose write surely did not happen (transact.ts `refusedWhole`). */
export async function releaseReservation(id: number): Promise<void> {
  await transact([
    {
      Update: {
        TableName: config.tableName,
        Key: keys.queue(id),
        UpdateExpression: 'ADD #reserved :minusOne',
        ConditionExpression: ITEM_EXISTS,
        ExpressionAttributeNames: RESERVED,
        ExpressionAttributeValues: { ':minusOne': -1 },
      },
    },
  ]).catch((error: unknown) => {
    // Not given back: the queue's delete takes it as given up after RESERVATION_GIVEN_UP_MS.
    if (!(error instanceof ConditionFailed))
      logger.warn('queue reservation not given back', { queue: id, error: String(error) });
  });
}

/**
 * Runs `write` (one write that puts a ticket into queue `id`) under a reservation in it, given back
 * when the write surely applied nothing. Throws MissingQueue when there is no such queue.
 */
export async function withReservation<T>(id: number, write: () => Promise<T>): Promise<T> {
  await reserveInQueue(id);
  try {
    return await write();
  } catch (error) {
    if (refusedWhole(error)) await releaseReservation(id);
    throw error;
  }
}
