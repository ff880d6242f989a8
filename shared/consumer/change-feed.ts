/**
 * The change feed (issue 15, `GET /api/events/`): every change event, in one partition (`EVENTS`)
 * in commit order, kept EVENT_RETENTION_DAYS by TTL. Written by the table's stream consumer from
 * the records of ticket, followup and attachment items (consumer/events-of.ts), never by a request:
 * the stream has a record of a change exactly when it committed. Each item inserted here reaches
 * the webhook dispatcher through the stream too (shared/webhooks/change-events.ts).
 *
 * Readers are served only what is older than the settle horizon (config.eventsSettleMs), and the
 * consumer writes an event that it is late with at the current time instead (same id), so an event
 * is never written behind a cursor already handed out: docs/data-model.md, "The change feed".
 */
import { config } from '../config';
import { EVENT_RETENTION_DAYS } from '../domain/events';
import { listCustomFields } from '../store/custom-fields';
import { CHANGE_EVENT_ITEM_TYPE } from '../store/change-feed';
import { eventsOf, isMailStatusEvent, type DerivedEvent, type EventContext } from './events-of';
import { keys, TICKET_PREFIX } from '../store/keys';
import { openingOf } from '../store/items';
import { batchGet, batchWrite } from '../store/query';
import { WRITTEN_BY } from '../store/actor';
import type { TableChange } from './changes';

type Item = Record<string, unknown>;

/** The `type` of a late event's mark (keys.ts `lateEvent`), which no stream consumer acts on. */
const LATE_EVENT_ITEM_TYPE = 'late-change-event';

/**
 * Where an event goes in the feed: at its stream record's time, unless that is more than half the
 * settle horizon ago (a consumer late or retrying), then at `now`: readers have been served events up
 * to `now - settleMs`, and the margin covers this write's own latency and clocks that differ a little.
 */
export function feedPosition(
  d: Pick<DerivedEvent, 'stream' | 'index'>,
  now: number,
  settleMs: number,
): { position: string; time: number } {
  const time = d.stream.at >= now - settleMs / 2 ? d.stream.at : now;
  return { position: keys.eventPosition(new Date(time).toISOString(), d.stream.sequence, d.index), time };
}

/** Where an event goes when it is written in time: its stream record's time, sequence number, index. */
export function naturalPosition(d: Pick<DerivedEvent, 'stream' | 'index'>): string {
  return keys.eventPosition(new Date(d.stream.at).toISOString(), d.stream.sequence, d.index);
}

/** When an item written at `time` (ms) expires (TTL, seconds): the feed's retention. */
const expiresAt = (time: number) => Math.floor(time / 1000) + EVENT_RETENTION_DAYS * 86_400;

/** The feed's item of an event: the ChangeEvent's fields at top level (what the dispatcher reads). */
export function changeEventItem(d: DerivedEvent, now: number, settleMs: number): Item {
  const { position, time } = feedPosition(d, now, settleMs);
  return { ...keys.changeEvent(position), type: CHANGE_EVENT_ITEM_TYPE, ...d.event, expires_at: expiresAt(time) };
}

/**
 * The events of a batch, in stream order. An attachment's `public` is its followup's at that point
 * of the stream (what the subscriptions' payload policy reads: a private followup's files are named
 * by their ids only): from the batch's own followup and ticket images before it, else one BatchGet
 * of those followups and their tickets (an opening followup its ticket item holds); a followup found
 * nowhere (gone) counts as private.
 */
async function eventsOfBatch(changes: TableChange[], ctx: EventContext): Promise<DerivedEvent[]> {
  const known = new Map<number, boolean>();
  const learn = (item: Item | undefined) => {
    if (item?.type === 'followup') known.set(Number(item.id), item.public === true);
    const opening = item?.type === 'ticket' ? openingOf(item) : undefined;
    if (opening) known.set(opening.id, opening.public);
  };
  const derived: DerivedEvent[] = [];
  const unknown: DerivedEvent[] = [];
  const deletedBy = await deletionActors(changes);
  for (const change of changes) {
    learn(change.oldImage);
    learn(change.newImage);
    for (const d of eventsOf(change, ctx, deletedBy(change))) {
      derived.push(d);
      if (d.event.attachment === null) continue;
      const visible = known.get(d.event.followup!);
      if (visible === undefined) unknown.push(d);
      else d.event.data.public = visible;
    }
  }
  if (unknown.length)
    (
      await batchGet(
        unknown.flatMap((d) => [keys.followup(d.event.ticket, d.event.followup!), keys.ticket(d.event.ticket)]),
      )
    ).forEach(learn);
  for (const d of unknown) d.event.data.public = known.get(d.event.followup!) ?? false;
  return derived;
}

/**
 * Who deleted what the batch's REMOVE records name (store/actor.ts `deletionRecord`): one BatchGet of their records
 * (an attachment's own, else its followup's, deleted with it), only for a batch that has deletions.
 */
async function deletionActors(changes: TableChange[]): Promise<(change: TableChange) => unknown> {
  const candidates = (change: TableChange) => {
    const old = change.eventName === 'REMOVE' ? change.oldImage : undefined;
    if (old?.type === 'ticket') return [keys.deletion('ticket', Number(old.id))];
    if (old?.type === 'followup') return [keys.deletion('followup', Number(old.id))];
    if (old?.type === 'attachment')
      return [keys.deletion('attachment', Number(old.id)), keys.deletion('followup', Number(old.followup))];
    return [];
  };
  const wanted = changes.flatMap(candidates);
  if (!wanted.length) return () => undefined;
  const found = new Map((await batchGet(wanted)).map((item) => [String(item.PK), item[WRITTEN_BY]]));
  return (change) =>
    candidates(change)
      .map((key) => found.get(key.PK))
      .find((by) => by !== undefined);
}

const childDeletion = (d: DerivedEvent) =>
  d.event.event === 'followup.deleted' || d.event.event === 'attachment.deleted';

/**
 * The stream consumer's part: derives the events of a batch of records and writes them, 25 to a
 * BatchWriteItem. Idempotent: a retried batch puts the same items again (the same keys, unless the
 * retry comes late: see feedPosition), which changes nothing and inserts nothing; a late retry or
 * a replay (cli/stream.ts) of events already written, in time or late, finds them (at their place,
 * or by their late mark) and writes nothing either (a restarted local runtime reads its stream
 * again from the start). Followups and attachments removed with their
 * ticket (its deletion, or the consumer's own repair of leftovers) give no event: one BatchGet of
 * those tickets tells whether they are gone.
 */
export async function recordChangeEvents(changes: TableChange[], now: () => number = Date.now): Promise<void> {
  const relevant = changes.filter((c) => c.stream && (c.keys.PK.startsWith(TICKET_PREFIX) || isMailStatusEvent(c)));
  if (!relevant.length) return;
  const ctx = { defs: await listCustomFields(), baseUrl: config.publicUrl ?? '' };
  let derived = await eventsOfBatch(relevant, ctx);
  const orphaned = [...new Set(derived.filter(childDeletion).map((d) => d.event.ticket))];
  if (orphaned.length) {
    const live = new Set((await batchGet(orphaned.map((t) => keys.ticket(t)))).map((t) => Number(t.id)));
    derived = derived.filter((d) => !childDeletion(d) || live.has(d.event.ticket));
  }
  if (!derived.length) return;
  const at = now();
  // An event that goes at `now` (late) may be a retry, or a replay (cli/stream.ts), of one already
  // written: where it belongs (in time), or at an earlier `now` (late, and marked by its id). One
  // BatchGet of both, and what is there (same id) is not written again.
  const late = derived.filter((d) => feedPosition(d, at, config.eventsSettleMs).time !== d.stream.at);
  const written = late.length
    ? new Set(
        (await batchGet(late.flatMap((d) => [keys.changeEvent(naturalPosition(d)), keys.lateEvent(d.event.id)]))).map(
          (i) => String(i.id),
        ),
      )
    : new Set<string>();
  await batchWrite(
    derived.filter((d) => !written.has(d.event.id)).map((d) => changeEventItem(d, at, config.eventsSettleMs)),
  );
  // The marks after the events: a failure between them writes an event twice on a retry, never not at all.
  const marks = late
    .filter((d) => !written.has(d.event.id))
    .map((d) => ({
      ...keys.lateEvent(d.event.id),
      type: LATE_EVENT_ITEM_TYPE,
      id: d.event.id,
      expires_at: expiresAt(at),
    }));
  if (marks.length) await batchWrite(marks);
}
