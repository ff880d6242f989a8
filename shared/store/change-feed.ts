/**
 * The change feed's read half (issue 15, `GET /api/events/`): the feed's items as events, the
 * cursor key and cursors, and the page a reader is served. The consumer writes the feed
 * (consumer/change-feed.ts); docs/data-model.md, "The change feed".
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand } from '../aws/dynamodb';
import { config } from '../config';
import { feedEvent, type ChangeEvent } from '../domain/events';
import { dynamo } from '../aws/clients';
import { keys, ITEM_IS_NEW, SORT_BELOW } from './keys';
import { conditionHeld } from './transact';

/** The `type` attribute of change event items (the stream filter's discriminator). */
export const CHANGE_EVENT_ITEM_TYPE = 'change-event';

/** Whether a table item is a change event (what the dispatcher's stream filter lets through). */
export function isChangeEventItem(item: Record<string, unknown> | undefined): boolean {
  return item?.type === CHANGE_EVENT_ITEM_TYPE;
}

export function changeEventFromItem(item: Record<string, unknown>): ChangeEvent {
  const { id, event, created, ticket, followup, attachment, actor, source, changes, data, private_fields } =
    item as unknown as ChangeEvent;
  return {
    id,
    event,
    created,
    ticket,
    followup: followup ?? null,
    attachment: attachment ?? null,
    // Events written before the actor was recorded: unknown.
    actor: actor ?? null,
    source: source ?? 'unknown',
    changes: changes ?? null,
    data: data ?? {},
    ...(private_fields ? { private_fields } : {}),
  };
}

/** The size of a cursor's tag: 128 bits of HMAC-SHA256, base64url. */
const TAG_LENGTH = 22;

let cursorKey: Promise<Buffer> | undefined;

/**
 * The key cursors are signed with: 32 random bytes in the table (its own partition, which only the
 * feed's route may read and write), made by the first read that finds none (a conditional put: two
 * first reads at once keep the one that landed). Read once per process. The same on AWS and in the
 * local runtime; deleting the item makes every cursor given out a 400 (the integrations then start
 * again without `after`).
 */
export function feedCursorKey(): Promise<Buffer> {
  cursorKey ??= readCursorKey().catch((error: unknown) => {
    cursorKey = undefined; // read again next time
    throw error;
  });
  return cursorKey;
}

async function readCursorKey(): Promise<Buffer> {
  const get = () =>
    dynamo.send(new GetCommand({ TableName: config.tableName, Key: keys.feedCursorKey, ConsistentRead: true }));
  let stored = (await get()).Item;
  if (!stored) {
    // Another first read may have put one meanwhile: then that one stands.
    await conditionHeld(
      dynamo.send(
        new PutCommand({
          TableName: config.tableName,
          Item: { ...keys.feedCursorKey, key: randomBytes(32).toString('base64') },
          ConditionExpression: ITEM_IS_NEW,
        }),
      ),
    );
    stored = (await get()).Item;
  }
  return Buffer.from(String(stored!.key), 'base64');
}

const cursorTag = (position: string, key: Buffer) =>
  createHmac('sha256', key).update(position).digest('base64url').slice(0, TAG_LENGTH);

/**
 * A cursor is opaque to clients, and only the feed can make one: the position and its tag (an HMAC
 * with the feed's key), base64url-encoded. A well-formed position the feed did not give out (one
 * far ahead, which would leave its holder waiting for events forever) has no valid tag.
 */
export function encodeFeedCursor(position: string, key: Buffer): string {
  return Buffer.from(`${position}.${cursorTag(position, key)}`).toString('base64url');
}

/** The position a cursor names, or undefined when it is not one this feed gave out. */
export function decodeFeedCursor(cursor: string, key: Buffer): string | undefined {
  const text = Buffer.from(cursor, 'base64url').toString();
  const dot = text.lastIndexOf('.');
  const [position, tag] = [text.slice(0, dot), Buffer.from(text.slice(dot + 1))];
  const expected = Buffer.from(cursorTag(position, key));
  const signed = dot > 0 && tag.length === expected.length && timingSafeEqual(tag, expected);
  return signed && keys.eventPositionPattern.test(position) && encodeFeedCursor(position, key) === cursor
    ? position
    : undefined;
}

export interface FeedPage {
  events: ChangeEvent[];
  /** The position of the last event returned (undefined when none was). */
  last: string | undefined;
  /** Whether more events are readable now. */
  more: boolean;
}

/**
 * Up to `limit` events after position `after` (from the oldest kept without it), of those older than
 * the settle horizon: one strongly consistent Query of the feed's partition, in position order.
 */
export async function readChangeEvents(
  after: string | undefined,
  limit: number,
  now: number = Date.now(),
): Promise<FeedPage> {
  const horizon = new Date(now - config.eventsSettleMs).toISOString();
  // Nothing is readable after a position at or past the horizon (and DynamoDB refuses a start key outside the key
  // condition).
  if (after !== undefined && after >= horizon) return { events: [], last: undefined, more: false };
  const out = await dynamo.send(
    new QueryCommand({
      TableName: config.tableName,
      KeyConditionExpression: SORT_BELOW,
      ExpressionAttributeValues: { ':pk': keys.eventsPartition, ':sk': horizon },
      ...(after !== undefined ? { ExclusiveStartKey: keys.changeEvent(after) } : {}),
      Limit: limit + 1,
      ConsistentRead: true,
    }),
  );
  const items = (out.Items ?? []).slice(0, limit);
  return {
    events: items.map((item) => feedEvent(changeEventFromItem(item))),
    last: items.length ? String(items.at(-1)!.SK) : undefined,
    more: (out.Items ?? []).length > limit || out.LastEvaluatedKey !== undefined,
  };
}
