/**
 * The file sweeper in the local runtime: the same `sweepFileCleanups` that a scheduled function runs
 * on AWS, every HELPDESK_FILE_SWEEP_SECONDS (default 60; 0 turns it off, for tests that sweep by
 * hand). Its first pass runs at start, so files left by a runtime that was killed are found.
 */
import { repeatEvery, type Repeating } from './repeat';
// The store is loaded when the sweeper starts, once the runtime has pointed the clients at the engines.

export type LocalFileSweeper = Repeating;

export function fileSweepInterval(env: Record<string, string | undefined> = process.env): number {
  const raw = env.HELPDESK_FILE_SWEEP_SECONDS ?? '60';
  if (!/^\d+$/.test(raw.trim()))
    throw new Error(`HELPDESK_FILE_SWEEP_SECONDS must be a whole number of seconds, not "${raw}"`);
  return Number(raw) * 1000;
}

export async function startLocalFileSweeper(intervalMs = fileSweepInterval()): Promise<LocalFileSweeper> {
  if (intervalMs === 0) return { stop: () => Promise.resolve() };
  const { sweepFileCleanups } = await import('../../shared/store/file-cleanups');
  const { logger } = await import('../../shared/observability');
  return repeatEvery(intervalMs, async () => {
    try {
      const { finished, unfinished } = await sweepFileCleanups();
      if (finished || unfinished) logger.info('file sweep', { finished, unfinished });
    } catch (error) {
      logger.error('file sweep failed; trying again at the next pass', { error: (error as Error).message });
    }
  });
}
