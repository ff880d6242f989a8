/** GET /api/followups-attachments/: every attachment record, by file name, paginated. */
import { apiHandler } from '../../shared/middleware';
import { baseUrl } from '../../shared/middleware/http';
import { pageRequest, pageResponse } from '../../shared/middleware/pages';
import { attachmentView } from '../../shared/domain/views';
import { listAttachments } from '../../shared/store/followups';
import { visibleTicketIds } from '../../shared/middleware/queue-access';

export const handler = apiHandler('attachments/list', async (event) => {
  const page = await listAttachments(pageRequest(event), await visibleTicketIds(event));
  const base = baseUrl(event);
  return pageResponse(
    event,
    page.window,
    page.count,
    page.attachments.map((a) => attachmentView(base, a)),
  );
});
