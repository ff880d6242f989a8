/**
 * Escalation's commands: escalate (upstream's `escalate_tickets`, which `npm start` and the AWS
 * schedule run daily), create-escalation-exclusions (upstream's `create_escalation_exclusions`:
 * every given weekday over a range) and list-escalation-exclusions.
 */
import { command, Failure, UsageError } from './command';
import { show, showList } from './terminal';

const list = (value: unknown) =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean)
    : undefined;

export const escalate = command({
  name: 'escalate',
  summary: "escalate the tickets that have waited their queue's escalate_days",
  description:
    'Raises the priority of every open or reopened ticket, not on hold and not at priority 1, whose queue has ' +
    'escalate_days and that has waited that many days (excluded dates not counted) since its last escalation or ' +
    'its creation; adds its "Ticket Escalated" followup and mails its submitter, CCs and assignee. A ticket is ' +
    'escalated at most once a day, however often this runs. npm start runs it daily, and so does a schedule on ' +
    'AWS.',
  options: {
    queues: { type: 'string', value: 'SLUGS', help: 'only these queues (comma-separated slugs)' },
    'notify-only': { type: 'boolean', help: 'mail as an escalation would, without changing the tickets' },
    'as-of': {
      type: 'string',
      value: 'TIME',
      help: 'run as if it were TIME (ISO 8601), to preview or test a later day',
    },
  },
  examples: [
    'npm run helpdesk -- escalate',
    'npm run helpdesk -- escalate --queues billing,support --notify-only',
    'npm run helpdesk -- escalate --as-of 2027-01-04T07:00:00Z',
  ],
  prepare(ctx) {
    const asOf = ctx.options['as-of'];
    const now = typeof asOf === 'string' ? new Date(asOf) : new Date();
    if (Number.isNaN(now.getTime()))
      throw new UsageError(`--as-of must be an ISO 8601 time such as 2027-01-04T07:00:00Z, not "${String(asOf)}".`);
    const queues = list(ctx.options.queues);
    return async () => {
      const { runEscalation, UnknownQueues } = await import('../shared/store/escalation');
      const result = await runEscalation({
        now,
        ...(queues ? { queues } : {}),
        notifyOnly: ctx.options['notify-only'] === true,
      }).catch((error: unknown) => {
        throw error instanceof UnknownQueues ? new Failure(error.message) : error;
      });
      const verb = ctx.options['notify-only'] ? 'Notified' : 'Escalated';
      const lines = result.escalated.map(
        (e) => `  ticket ${e.ticket} (queue ${e.queue}): priority ${e.from}${e.to === e.from ? '' : ` -> ${e.to}`}`,
      );
      const more = result.alreadyToday.length
        ? `\n${result.alreadyToday.length} already escalated on ${result.day}.`
        : '';
      show(ctx, result, [`${verb} ${result.escalated.length} ticket(s) on ${result.day}.`, ...lines].join('\n') + more);
    };
  },
});

export const createEscalationExclusions = command({
  name: 'create-escalation-exclusions',
  summary: 'add escalation exclusions: every given weekday over a range',
  description:
    'Adds an exclusion (a date escalation does not count) for each date from --from to --until, or for ' +
    '--occurrences weeks, that falls on one of --days; for the queues given, else for every queue.',
  options: {
    days: { type: 'string', value: 'WEEKDAYS', help: 'comma-separated weekday names, e.g. saturday,sunday (required)' },
    from: { type: 'string', value: 'DATE', help: 'the first date (YYYY-MM-DD; default today, UTC)' },
    until: { type: 'string', value: 'DATE', help: 'the last date (YYYY-MM-DD)' },
    occurrences: {
      type: 'string',
      value: 'N',
      help: "instead of --until: this many weeks (upstream's --occurrences; default 1)",
    },
    queues: { type: 'string', value: 'SLUGS', help: 'only for these queues (comma-separated slugs)' },
    name: { type: 'string', value: 'NAME', help: "the exclusions' name (default: the weekday's)" },
  },
  required: ['days'],
  examples: [
    'npm run helpdesk -- create-escalation-exclusions --days saturday,sunday --from 2027-01-01 --until 2027-12-31',
  ],
  async prepare(ctx) {
    const { WEEKDAYS, addDays, isCalendarDate, weekdayDates } = await import('../shared/domain/escalation');
    const days = list(ctx.options.days) ?? [];
    const unknown = days.filter((d) => !(WEEKDAYS as readonly string[]).includes(d.toLowerCase()));
    if (!days.length || unknown.length)
      throw new UsageError(`--days takes weekday names (${WEEKDAYS.join(', ')}), not "${String(ctx.options.days)}".`);
    const from = typeof ctx.options.from === 'string' ? ctx.options.from : new Date().toISOString().slice(0, 10);
    const occurrences = Number(ctx.options.occurrences ?? 1);
    if (!Number.isInteger(occurrences) || occurrences < 1 || occurrences > 520)
      throw new UsageError('--occurrences must be a whole number of weeks from 1 to 520.');
    const until = typeof ctx.options.until === 'string' ? ctx.options.until : addDays(from, 7 * occurrences - 1);
    for (const date of [from, until])
      if (!isCalendarDate(date)) throw new UsageError(`Dates are YYYY-MM-DD, not "${date}".`);
    if (until < from || until > addDays(from, 3660))
      throw new UsageError('--until must be on or after --from, and within ten years of it.');
    const weekdays = days.map((d) => d.toLowerCase() as (typeof WEEKDAYS)[number]);
    const slugs = list(ctx.options.queues);
    return async () => {
      const [{ listQueues }, { createExclusions }] = await Promise.all([
        import('../shared/store/queues'),
        import('../shared/store/escalation'),
      ]);
      const queues = await listQueues();
      const missing = (slugs ?? []).filter((s) => !queues.some((q) => q.slug === s));
      if (missing.length) throw new Failure(`No queue with the slug ${missing.map((s) => `"${s}"`).join(', ')}.`);
      const ids = queues.filter((q) => slugs?.includes(q.slug)).map((q) => q.id);
      const dates = weekdayDates(from, until, weekdays);
      const weekdayOf = (date: string) => WEEKDAYS[(new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7]!;
      const name = (date: string) =>
        typeof ctx.options.name === 'string' ? ctx.options.name : weekdayOf(date).replace(/^./, (c) => c.toUpperCase());
      const made = await createExclusions(dates.map((date) => ({ name: name(date), date, queues: ids })));
      show(
        ctx,
        made,
        `Added ${made.length} exclusion(s) from ${from} to ${until} for ${slugs ? slugs.join(', ') : 'every queue'}.`,
      );
    };
  },
});

export const listEscalationExclusions = command({
  name: 'list-escalation-exclusions',
  summary: 'list the dates escalation does not count',
  description: 'Every escalation exclusion: its id, date, name and queues (none: every queue).',
  examples: ['npm run helpdesk -- list-escalation-exclusions'],
  async run(ctx) {
    const { listExclusions } = await import('../shared/store/escalation');
    const all = (await listExclusions()).sort((a, b) => a.date.localeCompare(b.date));
    showList(ctx, all, 'No escalation exclusions.', ['ID', 'DATE', 'NAME', 'QUEUES'], (e) => [
      e.id,
      e.date,
      e.name,
      e.queues.length ? e.queues.join(',') : 'all',
    ]);
  },
});
