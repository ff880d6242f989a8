/** GET /api/tickets/{id}/attachments/{attachmentId}: a redirect to a short-lived presigned download. */
import { apiHandler, idParam } from '../../shared/middleware';
import { redirect } from '../../shared/middleware/http';
import { NotFound } from '../../shared/domain/errors';
import { presignDownload } from '../../shared/aws/s3';
import { getAttachment } from '../../shared/store/tickets';

export const handler = apiHandler('attachments/download', async (event) => {
  const attachment = await getAttachment(idParam(event), idParam(event, 'attachmentId'));
  if (!attachment) throw new NotFound();
  return redirect(await presignDownload(attachment.object_key, attachment.filename, attachment.mime_type));
});
