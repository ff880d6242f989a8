/**
 * Escalation (upstream's `escalate_tickets` and `EscalationExclusion`): which tickets a run raises,
 * and the exclusions' fields. Pure: the run (store/escalation.ts) reads the records and writes.
 *
 * A ticket escalates when it is open or reopened, not on hold, not already at priority 1, and its
 * queue's `escalate_days` days that are not excluded have passed since its last escalation (or
 * its creation). Days are calendar dates in the run's time zone; an exclusion's date does not
 * count, so a holiday lengthens the wait by a day. Upstream's code counts the other way (an
 * excluded day shortens it); this follows what its documentation says it means (docs/email.md,
 * "Escalation").
 */
import type { ParsedBody } from './body';
import { ValidationError } from './errors';
import { fieldSchema, integerField, pythonType, textField, validateFields, type Field, type Mode } from './fields';
import { STATUS, type Ticket } from './records';

/** Upstream's `Queue.escalate_days`: null (or 0) never escalates. Capped at ten years. */
export const escalateDaysField = () => integerField({ nullable: true, min: 0, max: 3650 });

/** Upstream's EscalationExclusion: a named date, for the queues it lists (none: every queue). */
export interface EscalationExclusion {
  id: number;
  name: string;
  /** `YYYY-MM-DD`. */
  date: string;
  queues: number[];
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
export const DATE_FORMAT_MESSAGE = 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.';

/** Whether `value` is a real calendar date `YYYY-MM-DD`. */
export function isCalendarDate(value: string): boolean {
  if (!DATE.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

/** A list of queue ids (whether they exist is the store's to say): an exclusion's, an ignored sender's. */
export const queueIdList: Field<number[]> = {
  schema: fieldSchema((raw, ctx): number[] => {
    // A form body sends the list as one comma-separated value.
    const list: unknown =
      typeof raw === 'string'
        ? raw
            .split(',')
            .map((v) => v.trim())
            .filter(Boolean)
        : raw;
    if (!Array.isArray(list)) {
      ctx.issues.push({
        code: 'custom',
        message: `Expected a list of items but got type "${pythonType(list)}".`,
        input: raw,
      });
      return [];
    }
    const bad: unknown = (list as unknown[]).find((v) => !/^\d{1,12}$/.test(String(v)) || Number(v) < 1);
    if (bad !== undefined) {
      ctx.issues.push({
        code: 'custom',
        message: `Incorrect type. Expected pk value, received ${pythonType(bad)}.`,
        input: raw,
      });
      return [];
    }
    return [...new Set((list as unknown[]).map(Number))].sort((a, b) => a - b);
  }),
  meta: { type: 'list' },
  kind: 'other',
  nullable: false,
  required: false,
};

export const exclusionFields = {
  name: textField({ required: true, maxLength: 100 }),
  date: textField({
    required: true,
    match: { pattern: DATE, message: DATE_FORMAT_MESSAGE },
    check: (v) => (isCalendarDate(v) ? undefined : DATE_FORMAT_MESSAGE),
  }),
  queues: queueIdList,
};

export function parseExclusionBody(body: ParsedBody, mode: Mode): Partial<Omit<EscalationExclusion, 'id'>> {
  const { values, errors } = validateFields(exclusionFields, body.data, mode, body.kind);
  if (Object.keys(errors).length) throw new ValidationError(errors);
  return values as Partial<Omit<EscalationExclusion, 'id'>>;
}

export const exclusionView = (e: EscalationExclusion) => ({ id: e.id, name: e.name, date: e.date, queues: e.queues });

/** DRF's message for a related id that names nothing. */
export const missingPk = (id: number) => `Invalid pk "${id}" - object does not exist.`;

/** The calendar date of `at` in `timeZone` (an IANA name), `YYYY-MM-DD`. */
export function localDate(at: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).formatToParts(at);
  const part = (type: string) => parts.find((p) => p.type === type)!.value;
  return `${part('year')}-${part('month')}-${part('day')}`;
}

/** Whether `timeZone` is one Intl knows. */
export function isTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone });
    return true;
  } catch {
    return false;
  }
}

export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** The dates an exclusion list takes out for `queue`: its own and those for every queue. */
export function excludedDates(exclusions: readonly EscalationExclusion[], queue: number): Set<string> {
  return new Set(exclusions.filter((e) => e.queues.length === 0 || e.queues.includes(queue)).map((e) => e.date));
}

/** What the rule reads of a ticket: its state, and when it was created and last escalated (stored date-times). */
export type EscalationFacts = Pick<Ticket, 'status' | 'on_hold' | 'priority' | 'created'> & {
  last_escalation?: string | null;
};

/** The days that count from `from` (excluded) to `today` (included): those not excluded; it stops at `enough`. */
export function countedDays(from: string, today: string, excluded: ReadonlySet<string>, enough = Infinity): number {
  let days = 0;
  for (let day = addDays(from, 1); day <= today && days < enough; day = addDays(day, 1)) if (!excluded.has(day)) days++;
  return days;
}

/**
 * Whether the ticket escalates on `today` (its queue's `escalateDays`, the dates excluded for its
 * queue, days in `timeZone`). A ticket escalated on `today` never escalates again that day.
 */
export function escalatesOn(
  t: EscalationFacts,
  escalateDays: number | null,
  today: string,
  excluded: ReadonlySet<string>,
  timeZone: string,
): boolean {
  if (!escalateDays || escalateDays < 1) return false;
  if (t.status !== STATUS.OPEN && t.status !== STATUS.REOPENED) return false;
  if (t.on_hold || t.priority <= 1) return false;
  const since = localDate(new Date(t.last_escalation || t.created), timeZone);
  return since < today && countedDays(since, today, excluded, escalateDays) >= escalateDays;
}

/** Upstream's followup of an escalation: public, by nobody, with the priority's change. */
export const ESCALATED_TITLE = 'Ticket Escalated';
export const escalatedComment = (escalateDays: number) => `Ticket escalated after ${escalateDays} days`;

/** The weekday names the exclusions command takes (upstream's `--days`), Monday first as Python's `weekday()`. */
export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;

/** Every date from `from` to `until` (both included) that falls on one of `weekdays`. */
export function weekdayDates(from: string, until: string, weekdays: readonly (typeof WEEKDAYS)[number][]): string[] {
  const wanted = new Set(weekdays.map((w) => (WEEKDAYS.indexOf(w) + 1) % 7)); // JavaScript's getUTCDay: Sunday 0
  const dates: string[] = [];
  for (let day = from; day <= until; day = addDays(day, 1))
    if (wanted.has(new Date(`${day}T00:00:00Z`).getUTCDay())) dates.push(day);
  return dates;
}
