/**
 * GET /api/events/ (staff): the change feed, oldest first, after a cursor (store/change-feed.ts).
 * DRF's cursor envelope `{next, previous, results}`, and `cursor`: where the next poll starts, also
 * when this page is the last (an integration keeps it and asks again later).
 */
import { apiHandler } from '../../shared/middleware';
import { baseUrl, json, queryParam } from '../../shared/middleware/http';
import { ValidationError } from '../../shared/domain/errors';
import { DEFAULT_FEED_PAGE, MAX_FEED_PAGE } from '../../shared/domain/events';
import { decodeFeedCursor, encodeFeedCursor, feedCursorKey, readChangeEvents } from '../../shared/store/change-feed';
import { visibleTicketIds } from '../../shared/middleware/queue-access';

function parseLimit(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_FEED_PAGE;
  if (!/^\s*\d+\s*$/.test(raw) || Number(raw) < 1)
    throw new ValidationError({ limit: [`A whole number of events from 1 to ${MAX_FEED_PAGE}.`] });
  return Math.min(Number(raw), MAX_FEED_PAGE);
}

export const handler = apiHandler('events/list', async (event) => {
  const limit = parseLimit(queryParam(event, 'limit'));
  const rawAfter = queryParam(event, 'after');
  const key = await feedCursorKey();
  const after = rawAfter === undefined ? undefined : decodeFeedCursor(rawAfter, key);
  if (rawAfter !== undefined && after === undefined) {
    throw new ValidationError({
      after: [
        'Not a cursor of this feed: pass the `cursor` of an earlier answer, or leave `after` out to start from ' +
          'the oldest event kept.',
      ],
    });
  }
  const [page, visible] = await Promise.all([readChangeEvents(after, limit), visibleTicketIds(event)]);
  const position = page.last ?? after;
  const cursor = position === undefined ? null : encodeFeedCursor(position, key);
  let next: string | null = null;
  if (page.more && cursor) {
    const url = new URL(`${baseUrl(event)}${event.rawPath}`);
    url.searchParams.set('after', cursor);
    if (queryParam(event, 'limit') !== undefined) url.searchParams.set('limit', String(limit));
    next = url.toString();
  }
  // A limited staff member's page leaves out the events of tickets they may not see (it may be short; the cursor
  // still moves past them).
  const results = visible ? page.events.filter((e) => visible.has(e.ticket)) : page.events;
  return json(200, { next, previous: null, cursor, results });
});
