/** GET /api/followups/: every followup, by date, paginated. */
import { apiHandler } from '../../shared/middleware';
import { baseUrl } from '../../shared/middleware/http';
import { pageRequest, pageResponse } from '../../shared/middleware/pages';
import { followupView } from '../../shared/domain/views';
import { listFollowups } from '../../shared/store/followups';
import { visibleTicketIds } from '../../shared/middleware/queue-access';

export const handler = apiHandler('followups/list', async (event) => {
  const page = await listFollowups(pageRequest(event), await visibleTicketIds(event));
  const base = baseUrl(event);
  return pageResponse(
    event,
    page.window,
    page.count,
    page.followups.map((f) => followupView(base, f, page.attachments)),
  );
});
