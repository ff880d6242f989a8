/**
 * GET /api/reports/time-spent/ (staff): the followups' `time_spent` totalled by ticket, queue or
 * author over a range of days, from the cells the stream consumer keeps (store/time-spent.ts).
 */
import { apiHandler } from '../../shared/middleware';
import { json, queryParam } from '../../shared/middleware/http';
import { cellsInQueues, parseTimeSpentQuery, timeSpentReport } from '../../shared/domain/time-spent';
import { queueScopeOf } from '../../shared/middleware/queue-access';
import { readTimeSpentCells } from '../../shared/store/time-spent';

export const handler = apiHandler('reports/time-spent', async (event) => {
  const query = parseTimeSpentQuery({
    by: queryParam(event, 'by'),
    since: queryParam(event, 'since'),
    until: queryParam(event, 'until'),
  });
  const [cells, scope] = await Promise.all([
    readTimeSpentCells(query.by, query.since, query.until),
    queueScopeOf(event),
  ]);
  // Per-queue permissions (every view: each cell carries its ticket's queue). A limited staff member
  // gets the time of their queues' tickets; not that of tickets assigned to them in other queues,
  // which the cells cannot tell apart (they are summed by queue, not by assignee).
  return json(200, timeSpentReport(query, cellsInQueues(cells, scope?.queues)));
});
