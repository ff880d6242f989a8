/**
 * GET /api/reports/time-spent/ (staff): the followups' `time_spent` totalled by ticket, queue or
 * author over a range of days, from the cells the stream consumer keeps (store/time-spent.ts).
 */
import { apiHandler } from '../../shared/middleware';
import { json, queryParam } from '../../shared/middleware/http';
import { cellsInQueues, parseTimeSpentQuery, timeSpentReport } from '../../shared/domain/time-spent';
import { readTimeSpentCells } from '../../shared/store/time-spent';

export const handler = apiHandler('reports/time-spent', async (event) => {
  const query = parseTimeSpentQuery({
    by: queryParam(event, 'by'),
    since: queryParam(event, 'since'),
    until: queryParam(event, 'until'),
  });
  const cells = await readTimeSpentCells(query.by, query.since, query.until);
  // The one place per-queue permissions filter the report (every view: each cell carries its
  // ticket's queue): the staff user's visible queues, undefined for every queue.
  const visible: ReadonlySet<number> | undefined = undefined;
  return json(200, timeSpentReport(query, cellsInQueues(cells, visible)));
});
