/**
 * Date-times on the wire are ISO 8601 in UTC with `Z`; the fraction has six digits when non-zero
 * and is left out when zero, as upstream (Django REST framework) writes them. Stored values keep
 * all six digits (`2030-01-02T03:04:05.000000Z`) so that microseconds sent by a client survive.
 */

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,6})\d*)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?)?$/;

export const DATE_TIME_FORMAT_MESSAGE =
  'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].';

function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0');
}

/** Parses an ISO 8601 date-time or date; a value without an offset is read as UTC. */
export function parseDateTime(input: string): string | null {
  const m = DATE_TIME.exec(input.trim());
  if (!m) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone] = m;
  const [year = NaN, month = NaN, day = NaN, hour = NaN, minute = NaN, second = NaN] = [y, mo, d, h, mi, s].map(Number);
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return null;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > daysInMonth || year < 1) return null;
  let offsetMinutes = 0;
  if (zone && zone.toUpperCase() !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    const oh = Number(digits.slice(0, 2));
    const om = Number(digits.slice(2) || '0');
    if (oh > 23 || om > 59) return null;
    offsetMinutes = sign * (oh * 60 + om);
  }
  const local = new Date(0);
  local.setUTCFullYear(year, month - 1, day); // Date.UTC would read years 0-99 as 1900-1999
  local.setUTCHours(hour, minute, second, 0);
  const utc = new Date(local.getTime() - offsetMinutes * 60_000);
  if (Number.isNaN(utc.getTime())) return null;
  const micros = frac.padEnd(6, '0');
  return (
    `${pad(utc.getUTCFullYear(), 4)}-${pad(utc.getUTCMonth() + 1)}-${pad(utc.getUTCDate())}` +
    `T${pad(utc.getUTCHours())}:${pad(utc.getUTCMinutes())}:${pad(utc.getUTCSeconds())}.${micros}Z`
  );
}

/** The stored form of a moment: six fractional digits, UTC. */
export function storedDateTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** The wire form: the fraction is dropped when it is zero. */
export function wireDateTime(stored: string | null | undefined): string | null {
  if (stored == null) return null;
  return stored.replace(/\.0{6}Z$/, 'Z');
}

/**
 * The wire form of a moment kept as JavaScript writes it (`toISOString()`, three fraction digits:
 * webhook subscriptions and deliveries): the same form as every other date-time of the API.
 */
export function wireIsoDateTime(iso: string | null): string | null {
  return iso === null ? null : wireDateTime(iso.replace(/\.(\d{3})Z$/, '.$1000Z'));
}
