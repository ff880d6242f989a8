/** The change feed command: tail-events. */
import type { ChangeEvent } from '../shared/domain/events';
import { command, Failure, type Context } from './command';

/** How often --follow reads the feed again. */
const FOLLOW_EVERY_MS = 2000;

/** One line per event: when, what, which records, the changed fields, its id. */
export function eventLine(e: ChangeEvent): string {
  const records = [
    `ticket ${e.ticket}`,
    ...(e.followup ? [`followup ${e.followup}`] : []),
    ...(e.attachment ? [`attachment ${e.attachment}`] : []),
  ].join(' ');
  const changed = e.changes ? ` (${Object.keys(e.changes).join(', ')})` : '';
  return `${e.created}  ${e.event.padEnd(21)} ${records}${changed}  ${e.id}`;
}

export const tailEvents = command({
  name: 'tail-events',
  summary: 'print the change feed, one line per event (--follow: keep printing new ones)',
  description:
    'Prints the change events after --after (a cursor, as GET /api/events/ gives; without it, from the oldest ' +
    'kept), oldest first, one line each (--json: one JSON object each), then the cursor to continue from. With ' +
    '--follow it keeps ' +
    `reading every ${FOLLOW_EVERY_MS / 1000} s until Ctrl-C. Events show a few seconds after their change (the ` +
    `feed's settle horizon).`,
  options: {
    after: { type: 'string', value: 'CURSOR', help: 'start after this cursor (from an earlier run or the API)' },
    follow: { type: 'boolean', short: 'f', help: 'keep reading new events until Ctrl-C' },
  },
  examples: [
    'npm run helpdesk -- tail-events',
    'npm run helpdesk -- tail-events --follow --after MjAyNi0xMS0yNVQxMjowMDowMC4wMDBa...',
  ],
  prepare(ctx: Context) {
    return async () => {
      const { decodeFeedCursor, encodeFeedCursor, feedCursorKey, readChangeEvents } =
        await import('../shared/store/change-feed');
      const { MAX_FEED_PAGE } = await import('../shared/domain/events');
      const raw = ctx.options.after === undefined ? undefined : String(ctx.options.after);
      const key = await feedCursorKey();
      let position = raw === undefined ? undefined : decodeFeedCursor(raw, key);
      if (raw !== undefined && position === undefined) throw new Failure(`Not a cursor of the change feed: ${raw}`);
      let stopped = false;
      const stop = () => (stopped = true);
      if (ctx.options.follow) process.once('SIGINT', stop);
      try {
        for (;;) {
          const page = await readChangeEvents(position, MAX_FEED_PAGE);
          for (const e of page.events) ctx.out(ctx.json ? JSON.stringify(e) : eventLine(e));
          position = page.last ?? position;
          if (page.more) continue;
          if (!ctx.options.follow || stopped) break;
          await new Promise((resolve) => setTimeout(resolve, FOLLOW_EVERY_MS));
          if (stopped) break;
        }
      } finally {
        process.removeListener('SIGINT', stop);
      }
      const cursor = position === undefined ? null : encodeFeedCursor(position, key);
      ctx.out(
        ctx.json ? JSON.stringify({ cursor }) : cursor ? `Continue with: --after ${cursor}` : 'The feed is empty.',
      );
    };
  },
});
