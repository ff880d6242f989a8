/** DELETE /api/followups-attachments/{id}/: the record and its file. */
import { apiHandler, idParam } from '../../shared/middleware';
import { noContent } from '../../shared/middleware/http';
import { NotFound } from '../../shared/domain/errors';
import { removeFiles } from '../../shared/store/file-cleanups';
import { deleteAttachment, findAttachment } from '../../shared/store/followups';
import { mayAccessTicketId } from '../../shared/middleware/queue-access';

export const handler = apiHandler('attachments/delete', async (event) => {
  const attachment = await findAttachment(idParam(event));
  if (!attachment || !(await mayAccessTicketId(event, attachment.ticket))) throw new NotFound();
  await removeFiles(await deleteAttachment(attachment));
  return noContent();
});
