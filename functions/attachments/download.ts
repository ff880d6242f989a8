/** GET /api/tickets/{id}/attachments/{attachmentId}: a redirect to a short-lived presigned download. */
import { apiHandler, idParam } from '../../shared/middleware';
import { redirect } from '../../shared/middleware/http';
import { NotFound } from '../../shared/domain/errors';
import { presignDownload } from '../../shared/aws/s3';
import { getAttachment } from '../../shared/store/tickets';
import { mayAccessTicketId } from '../../shared/middleware/queue-access';

export const handler = apiHandler('attachments/download', async (event) => {
  const ticket = idParam(event);
  const attachment = await getAttachment(ticket, idParam(event, 'attachmentId'));
  if (!attachment || !(await mayAccessTicketId(event, ticket))) throw new NotFound();
  return redirect(await presignDownload(attachment.object_key, attachment.filename, attachment.mime_type));
});
