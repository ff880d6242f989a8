/**
 * The daily escalation in the local runtime: store/escalation.ts `runEscalation`, as the AWS
 * schedule runs it (infra/escalation.ts), at HELPDESK_ESCALATION_HOUR (0-23, default 6; `off`
 * never) in HELPDESK_ESCALATION_TIME_ZONE (default UTC). Not at start: a restart does not escalate
 * (a run the same day would change nothing anyway). `npm run helpdesk -- escalate` runs it by hand.
 */
import type { Repeating } from './repeat';

export const DEFAULT_ESCALATION_HOUR = 6;

/** The hour of the day the run starts, or undefined for never. */
export function escalationHour(env: Record<string, string | undefined> = process.env): number | undefined {
  const raw = (env.HELPDESK_ESCALATION_HOUR ?? String(DEFAULT_ESCALATION_HOUR)).trim();
  if (raw === 'off') return undefined;
  if (!/^\d{1,2}$/.test(raw) || Number(raw) > 23)
    throw new Error(`HELPDESK_ESCALATION_HOUR must be an hour from 0 to 23, or off, not "${raw}"`);
  return Number(raw);
}

/** The next whole hour after `now` that is `hour` o'clock in `timeZone`. */
export function nextRun(now: Date, hour: number, timeZone: string): Date {
  const format = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', hourCycle: 'h23' });
  const start = Math.floor(now.getTime() / 3_600_000) * 3_600_000;
  for (let h = 1; h <= 48; h++) {
    const at = new Date(start + h * 3_600_000);
    if (Number(format.format(at)) === hour) return at;
  }
  return new Date(start + 24 * 3_600_000); // a zone that skips the hour today: a day from now
}

export async function startLocalEscalation(hour = escalationHour()): Promise<Repeating> {
  if (hour === undefined) return { stop: () => Promise.resolve() };
  const [{ runEscalation }, { config }, { logger }] = await Promise.all([
    import('../../shared/store/escalation'),
    import('../../shared/config'),
    import('../../shared/observability'),
  ]);
  const timeZone = config.escalation.timeZone;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const schedule = () => {
    timer = setTimeout(
      () => {
        running = runEscalation()
          .then((r) =>
            logger.info('escalation', {
              day: r.day,
              escalated: r.escalated.length,
              alreadyToday: r.alreadyToday.length,
              changed: r.changed.length,
            }),
          )
          .catch((error: unknown) =>
            logger.error('escalation failed; the next run is tomorrow (or run `npm run helpdesk -- escalate`)', {
              error: (error as Error).message,
            }),
          )
          .finally(schedule);
      },
      nextRun(new Date(), hour, timeZone).getTime() - Date.now(),
    );
    timer.unref();
  };
  schedule();
  return {
    async stop() {
      clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
