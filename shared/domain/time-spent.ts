/**
 * Time spent (issue 36): what a followup's `time_spent` counts towards, the per-ticket summary the
 * stream consumer keeps (consumer/time-spent.ts), and the report's query and answer. Pure.
 *
 * Time belongs to the followup's author (`user`, null for mail or an anonymous author) and to the
 * UTC calendar day of its `date`; for the queue view, to the queue its ticket is in now, as
 * upstream's `Queue.dedicated_time` sums the followups of the queue's current tickets (a ticket
 * moved to another queue takes all its time with it).
 */
import { ValidationError, type FieldErrors } from './errors';
import { formatDuration, MESSAGES } from './fields';

export const TIME_SPENT_DIMENSIONS = ['ticket', 'queue', 'user'] as const;
export type TimeSpentDimension = (typeof TIME_SPENT_DIMENSIONS)[number];

type Item = Record<string, unknown>;

/** What one followup counts towards: its ticket, author, day (`YYYY-MM-DD`, UTC) and microseconds. */
export interface Contribution {
  ticket: number;
  user: number | null;
  day: string;
  micros: number;
}

/** A followup item's contribution, or null when it has no time (none, or zero). */
export function contributionOf(followup: Item | undefined): Contribution | null {
  const micros = followup?.time_spent;
  if (!followup || typeof micros !== 'number' || micros === 0) return null;
  return {
    ticket: Number(followup.ticket),
    user: typeof followup.user === 'number' ? followup.user : null,
    day: String(followup.date).slice(0, 10),
    micros,
  };
}

/**
 * Whether a stream record of a followup can change what is counted: it had or has time. Anything
 * else (a comment edited, a followup without time added) is left alone.
 */
export function changesTime(oldImage: Item | undefined, newImage: Item | undefined): boolean {
  const before = contributionOf(oldImage);
  const after = contributionOf(newImage);
  if (!before && !after) return false;
  return JSON.stringify(before) !== JSON.stringify(after) || !oldImage || !newImage;
}

/**
 * A ticket's time as counted (the consumer's summary item): the queue each day's time is counted
 * under, and each followup's author and microseconds on that day (users as `u<id>` or `none`).
 */
export interface TicketTime {
  days: Record<string, { q: number | null; f: Record<string, [number | null, number]> }>;
}

/** One bucket's change: add `micros` to the (day, queue, ticket, user) cell of every view. */
export interface CellDelta {
  day: string;
  queue: number | null;
  ticket: number;
  user: number | null;
  micros: number;
}

/** The followup's contribution as the summary holds it, if any. */
export function countedOf(
  time: TicketTime,
  followup: number,
): { day: string; user: number | null; micros: number } | undefined {
  for (const [day, entry] of Object.entries(time.days)) {
    const found = entry.f[String(followup)];
    if (found) return { day, user: found[0], micros: found[1] };
  }
  return undefined;
}

/** Removes a followup from a ticket's summary; returns the cell it leaves. */
export function withoutFollowup(time: TicketTime, ticket: number, followup: number): CellDelta[] {
  const counted = countedOf(time, followup);
  if (!counted) return [];
  const entry = time.days[counted.day]!;
  delete entry.f[String(followup)];
  if (!Object.keys(entry.f).length) delete time.days[counted.day];
  return [{ day: counted.day, queue: entry.q, ticket, user: counted.user, micros: -counted.micros }];
}

/**
 * Moves a day's time to `queue` (the ticket's queue now): the cells it leaves and enters. Every day
 * of a ticket is counted under its current queue once the consumer has seen the move.
 */
export function moveDay(time: TicketTime, ticket: number, day: string, queue: number | null): CellDelta[] {
  const entry = time.days[day];
  if (!entry || entry.q === queue) return [];
  const deltas = Object.values(entry.f).flatMap(([user, micros]) => [
    { day, queue: entry.q, ticket, user, micros: -micros },
    { day, queue, ticket, user, micros },
  ]);
  entry.q = queue;
  return deltas;
}

/** Adds a followup to a ticket's summary under `queue` (moving its day there first). */
export function withFollowup(time: TicketTime, followup: number, c: Contribution, queue: number | null): CellDelta[] {
  const deltas = moveDay(time, c.ticket, c.day, queue);
  const entry = (time.days[c.day] ??= { q: queue, f: {} });
  entry.f[String(followup)] = [c.user, c.micros];
  return [...deltas, { day: c.day, queue, ticket: c.ticket, user: c.user, micros: c.micros }];
}

/** The report's query: which view, and the first and last day (both included; none: unbounded). */
export interface TimeSpentQuery {
  by: TimeSpentDimension;
  since: string | undefined;
  until: string | undefined;
}

const DATE_MESSAGE = 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.';

function parseDay(raw: string | undefined, name: string, errors: FieldErrors): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw.trim());
  const date = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : undefined;
  if (!date || date.toISOString().slice(0, 10) !== raw.trim()) {
    errors[name] = [DATE_MESSAGE];
    return undefined;
  }
  return raw.trim();
}

/** `?by=&since=&until=` (`by` by default `ticket`), with DRF's messages for an unknown `by` and a malformed date. */
export function parseTimeSpentQuery(params: Record<string, string | undefined>): TimeSpentQuery {
  const errors: FieldErrors = {};
  const by = params.by ?? 'ticket';
  if (!(TIME_SPENT_DIMENSIONS as readonly string[]).includes(by)) errors.by = [MESSAGES.choice(by)];
  const since = parseDay(params.since, 'since', errors);
  const until = parseDay(params.until, 'until', errors);
  if (since && until && until < since) errors.until = ['Must not be before `since`.'];
  if (Object.keys(errors).length) throw new ValidationError(errors);
  return { by: by as TimeSpentDimension, since, until };
}

/** One bucket as the report reads it: its view's value (null: no queue or no author) and its time. */
export interface TimeSpentCell {
  queue: number | null;
  value: number | null;
  micros: number;
}

/**
 * The report: each value's total in the range (those with none left out), in id order (null last),
 * and the total of them all, as upstream's durations.
 */
export function timeSpentReport(query: TimeSpentQuery, cells: TimeSpentCell[]) {
  const totals = new Map<number | null, number>();
  for (const c of cells) totals.set(c.value, (totals.get(c.value) ?? 0) + c.micros);
  const rows = [...totals].filter(([, micros]) => micros !== 0);
  rows.sort(([a], [b]) => (a ?? Infinity) - (b ?? Infinity));
  const total = rows.reduce((sum, [, micros]) => sum + micros, 0);
  return {
    by: query.by,
    since: query.since ?? null,
    until: query.until ?? null,
    time_spent: formatDuration(total),
    results: rows.map(([value, micros]) => ({ [query.by]: value, time_spent: formatDuration(micros) })),
  };
}

/** The cells of the queues a staff user may see (undefined: every queue; a cell without one only then). */
export function cellsInQueues(cells: TimeSpentCell[], visible: ReadonlySet<number> | undefined): TimeSpentCell[] {
  return visible ? cells.filter((c) => c.queue !== null && visible.has(c.queue)) : cells;
}
