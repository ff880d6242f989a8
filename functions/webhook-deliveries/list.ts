/**
 * GET /api/webhook-deliveries/ (staff): the delivery log, newest first. Cursor pagination, as DRF's
 * CursorPagination: `{next, previous, results}` with `?cursor=` (the log grows at the front, so
 * page numbers would shift under the reader); `page_size` as elsewhere.
 */
import { apiHandler } from '../../shared/middleware';
import { baseUrl, json, queryParam } from '../../shared/middleware/http';
import { parsePageRequest } from '../../shared/domain/pagination';
import { DELIVERY_ID, deliveryView } from '../../shared/domain/webhooks';
import { HttpError } from '../../shared/domain/errors';
import { listDeliveries } from '../../shared/store/deliveries';
import { visibleTicketIds } from '../../shared/middleware/queue-access';

export const handler = apiHandler('webhook-deliveries/list', async (event) => {
  const { pageSize } = parsePageRequest({ page_size: queryParam(event, 'page_size') });
  const cursor = queryParam(event, 'cursor');
  if (cursor !== undefined && !DELIVERY_ID.test(cursor)) throw new HttpError(404, { detail: 'Invalid cursor' });
  const [{ deliveries, more }, visible] = await Promise.all([
    listDeliveries(pageSize, cursor),
    visibleTicketIds(event),
  ]);
  const next = new URL(`${baseUrl(event)}${event.rawPath}`);
  next.searchParams.set('cursor', deliveries.at(-1)?.id ?? '');
  if (queryParam(event, 'page_size')) next.searchParams.set('page_size', String(pageSize));
  // A limited staff member's page leaves out the deliveries of tickets they may not see (it may be short).
  return json(200, {
    next: more ? next.toString() : null,
    previous: null,
    results: deliveries
      .filter((d) => !visible || d.event === 'subscription.disabled' || visible.has(d.ticket))
      .map(deliveryView),
  });
});
