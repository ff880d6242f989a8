/** New attachment records for uploaded files, with their S3 object keys. */
import { randomUUID } from 'node:crypto';
import type { UploadedFile } from '../domain/body';
import type { Attachment } from '../domain/records';
import { attachmentObjectKey } from './keys';
import type { PendingFile } from './file-cleanups';

export function newAttachments(
  ticket: number,
  followup: number,
  firstId: number,
  uploads: UploadedFile[],
): { records: Attachment[]; files: PendingFile[] } {
  const records: Attachment[] = [];
  const files: PendingFile[] = [];
  uploads.forEach((upload, i) => {
    const object_key = attachmentObjectKey(ticket, randomUUID());
    const mime_type = upload.contentType ?? 'application/octet-stream';
    records.push({
      id: firstId + i,
      ticket,
      followup,
      filename: upload.filename,
      mime_type,
      size: upload.data.length,
      object_key,
    });
    files.push({ key: object_key, data: upload.data, contentType: mime_type });
  });
  return { records, files };
}
