/** POST /api/followups-attachments/: one file added to an existing followup. */
import type { ParsedBody } from './body';
import { ValidationError, type FieldErrors } from './errors';
import { MESSAGES, idField, integerField, textField, validateFields } from './fields';
import { MAX_FILENAME_LENGTH, mimeTypeOf, sanitiseFilename } from './files';
import type { UploadedFile } from './body';

export const attachmentFields = {
  followup: idField({ required: true }),
  filename: textField({ maxLength: MAX_FILENAME_LENGTH }),
  // Sent as the file's Content-Type header on upload: printable ASCII only (files.ts, isHeaderSafe).
  mime_type: textField({
    maxLength: 255,
    match: { pattern: /^[\x20-\x7e]*$/, message: 'Enter a valid content type: printable ASCII characters only.' },
  }),
  size: integerField({ min: 0 }),
};

/**
 * Attachments one followup may hold: every write of a followup with its files is one transaction,
 * and DynamoDB allows 100 actions in one. The largest is a PUT that moves it to another ticket:
 * each attachment is deleted, put again and its ref rewritten (3 per file, plus 5), so 31 files fit.
 * Concurrent adds may pass it by a few, still within the bound (a delete takes 2 per file plus 4).
 */
export const MAX_ATTACHMENTS_PER_FOLLOWUP = 31;

/** The 400 for a file added to a followup that holds `held` attachments already, if it is full. */
export function followupFullError(held: number): ValidationError | undefined {
  if (held < MAX_ATTACHMENTS_PER_FOLLOWUP) return undefined;
  return new ValidationError({ followup: [`A followup holds at most ${MAX_ATTACHMENTS_PER_FOLLOWUP} attachments.`] });
}

export interface AttachmentDraft {
  followup: number;
  file: UploadedFile;
  filename: string;
  mime_type: string;
  size: number;
}

/** `filename`, `mime_type` and `size` default to the upload's name, the guessed type and the byte count. */
export function parseAttachmentBody(body: ParsedBody): AttachmentDraft {
  const { values, errors } = validateFields(attachmentFields, body.data, 'create', body.kind);
  const ordered: FieldErrors = {};
  if (errors.followup) ordered.followup = errors.followup;
  const files = body.files.filter((f) => f.field === 'file');
  const file = files[0];
  // Upstream keeps one of several silently (Django's last); a client that sent two would think both stored.
  if (files.length > 1)
    ordered.file = ['Only one file may be added at a time; send each file in a request of its own.'];
  else if (!file)
    ordered.file = [
      Object.hasOwn(body.data, 'file') && body.data.file !== '' ? MESSAGES.notAFile : 'No file was submitted.',
    ];
  else if (file.data.length === 0) ordered.file = [MESSAGES.emptyFile];
  for (const key of ['filename', 'mime_type', 'size']) if (errors[key]) ordered[key] = errors[key];
  if (Object.keys(ordered).length) throw new ValidationError(ordered);
  const filename = values.filename ? sanitiseFilename(values.filename) : file!.filename;
  return {
    followup: values.followup!,
    file: file!,
    filename,
    // Upstream's model guesses from the (final) name and ignores the part's Content-Type here.
    mime_type: values.mime_type ?? mimeTypeOf(filename, undefined),
    size: values.size ?? file!.data.length,
  };
}
