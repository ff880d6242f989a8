/** POST /api/followups-attachments/: a file added to an existing followup (multipart). */
import { apiHandler } from '../../shared/middleware';
import { baseUrl, json } from '../../shared/middleware/http';
import { ValidationError } from '../../shared/domain/errors';
import { MESSAGES } from '../../shared/domain/fields';
import { followupFullError, parseAttachmentBody } from '../../shared/domain/attachment';
import { attachmentView } from '../../shared/domain/views';
import { newAttachments } from '../../shared/store/attachments';
import { reserveIds } from '../../shared/store/counters';
import { withFiles } from '../../shared/store/file-cleanups';
import { addAttachment, followupTicket } from '../../shared/store/followups';
import { MissingTicket, readTicket } from '../../shared/store/tickets';
import { queueScopeOf } from '../../shared/middleware/queue-access';
import { canAccessTicket } from '../../shared/domain/queue-access';

export const handler = apiHandler('attachments/create', async (event) => {
  const draft = parseAttachmentBody(await event.parseBody!());
  const missing = () => new ValidationError({ followup: [MESSAGES.pkMissing(draft.followup)] });
  const ticketId = await followupTicket(draft.followup);
  const collection = ticketId === undefined ? undefined : await readTicket(ticketId);
  if (!collection || !canAccessTicket(await queueScopeOf(event), collection.ticket)) throw missing();
  const full = followupFullError(collection.attachments.filter((a) => a.followup === draft.followup).length);
  if (full) throw full;
  const { ticket } = collection;

  const { attachment: id } = await reserveIds({ attachment: 1 });
  const upload = { ...draft.file, filename: draft.filename, contentType: draft.mime_type };
  const { records, files } = newAttachments(ticket.id, draft.followup, id, [upload]);
  const record = { ...records[0]!, size: draft.size };
  await withFiles(files, (fileCommit) =>
    addAttachment(ticket, record, fileCommit, collection.inlineFollowup === draft.followup),
  ).catch((error) => {
    throw error instanceof MissingTicket ? missing() : error;
  });
  return json(201, attachmentView(baseUrl(event), record));
});
