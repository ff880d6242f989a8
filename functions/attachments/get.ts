/** GET /api/followups-attachments/{id}/: one attachment record. */
import { apiHandler, idParam } from '../../shared/middleware';
import { baseUrl, json } from '../../shared/middleware/http';
import { NotFound } from '../../shared/domain/errors';
import { attachmentView } from '../../shared/domain/views';
import { findAttachment } from '../../shared/store/followups';
import { mayAccessTicketId } from '../../shared/middleware/queue-access';

export const handler = apiHandler('attachments/get', async (event) => {
  const attachment = await findAttachment(idParam(event));
  if (!attachment || !(await mayAccessTicketId(event, attachment.ticket))) throw new NotFound();
  return json(200, attachmentView(baseUrl(event), attachment));
});
