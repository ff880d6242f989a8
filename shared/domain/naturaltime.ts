/**
 * Django's `naturaltime` in English, as upstream's user_tickets shows `created` and `due_date`:
 * "now"; under a day "N seconds/minutes/hours ago|from now"; else up to two adjacent units of
 * years, months, weeks, days, hours, minutes (cut at the first zero unit). Numbers and units are
 * joined by a non-breaking space (U+00A0), as Django writes them.
 */
const NBSP = '\u00a0';
const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const CHUNKS: [number, string, string][] = [
  [365 * DAY, 'year', 'years'],
  [30 * DAY, 'month', 'months'],
  [7 * DAY, 'week', 'weeks'],
  [DAY, 'day', 'days'],
  [HOUR, 'hour', 'hours'],
  [MINUTE, 'minute', 'minutes'],
];

const unit = (n: number, one: string, many: string) => `${n}${NBSP}${n === 1 ? one : many}`;

/** Django's timesince with depth 2. */
function timesince(seconds: number): string {
  if (seconds < MINUTE) return unit(0, 'minute', 'minutes');
  const index = CHUNKS.findIndex(([size]) => seconds >= size);
  const [size, one, many] = CHUNKS[index]!;
  const count = Math.floor(seconds / size);
  let result = unit(count, one, many);
  const next = CHUNKS[index + 1];
  if (next) {
    const rest = Math.floor((seconds - count * size) / next[0]);
    if (rest > 0) result += `, ${unit(rest, next[1], next[2])}`;
  }
  return result;
}

export function naturalTime(value: Date, now: Date): string {
  const delta = Math.floor((now.getTime() - value.getTime()) / 1000);
  const past = delta >= 0;
  const seconds = Math.abs(delta);
  const suffix = past ? 'ago' : 'from now';
  if (seconds === 0) return 'now';
  if (seconds < MINUTE) return seconds === 1 ? `a second ${suffix}` : `${unit(seconds, 'second', 'seconds')} ${suffix}`;
  if (seconds < HOUR) {
    const m = Math.floor(seconds / MINUTE);
    return m === 1 ? `a minute ${suffix}` : `${unit(m, 'minute', 'minutes')} ${suffix}`;
  }
  if (seconds < DAY) {
    const h = Math.floor(seconds / HOUR);
    return h === 1 ? `an hour ${suffix}` : `${unit(h, 'hour', 'hours')} ${suffix}`;
  }
  return `${timesince(seconds)} ${suffix}`;
}
