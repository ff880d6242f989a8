/**
 * multipart/form-data bodies (busboy): fields, and files with their names and types as upstream
 * reads them. Loaded only by functions whose route takes a body (body.ts).
 */
import busboy from 'busboy';
import { addField, type ParsedBody } from '../domain/body';
import { ParseError, PayloadTooLarge } from '../domain/errors';
import { mimeTypeOf, sanitiseFilename } from '../domain/files';
import type { UploadedFile } from '../domain/body';

export const MULTIPART_LIMITS = { files: 20, parts: 200, fieldSize: 1024 * 1024, fieldNameSize: 200 };

/**
 * For each file part, in order, whether it carried its own Content-Type header: busboy reports
 * `text/plain` when it did not, but upstream then guesses the type from the file name.
 */
function filePartsTyped(raw: Buffer, contentType: string): boolean[] {
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  if (!m) return [];
  const heads = `\r\n${raw.toString('latin1')}`
    .split(`\r\n--${m[1] ?? m[2]}`)
    .slice(1)
    .map((p) => p.slice(0, p.indexOf('\r\n\r\n')));
  // busboy's rule for a file part: a form-data part with a file name or of type application/octet-stream.
  const isFile = (h: string) =>
    /^content-disposition:\s*form-data\b/im.test(h) &&
    (/^content-disposition:.*;\s*filename\*?=/im.test(h) ||
      /^content-type:\s*application\/octet-stream\s*(;|$)/im.test(h));
  return heads.filter(isFile).map((h) => /^content-type:/im.test(h));
}

export function parseMultipart(raw: Buffer, contentType: string): Promise<ParsedBody> {
  return new Promise((resolve, reject) => {
    const fail = (message: string) => reject(new ParseError(`Multipart form parse error - ${message}`));
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: { 'content-type': contentType }, limits: MULTIPART_LIMITS, defParamCharset: 'utf8' });
    } catch (error) {
      return fail((error as Error).message);
    }
    const data: Record<string, unknown> = {};
    const files: UploadedFile[] = [];
    let pending = 0;
    let closed = false;
    let failed = false;
    const finish = () => {
      if (closed && pending === 0 && !failed) resolve({ kind: 'form', data, files });
    };
    const abort = (error: Error) => {
      if (failed) return;
      failed = true;
      reject(error);
    };
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated)
        abort(new PayloadTooLarge(`The field "${name}" is larger than ${MULTIPART_LIMITS.fieldSize} bytes.`));
      else addField(data, name, value);
    });
    const typed = filePartsTyped(raw, contentType);
    let fileIndex = 0;
    parser.on('file', (name, stream, info) => {
      const partType = typed[fileIndex++] === false ? undefined : info.mimeType;
      pending++;
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', (error) => abort(new ParseError(`Multipart form parse error - ${error.message}`)));
      stream.on('end', () => {
        pending--;
        if (info.filename === undefined) {
          // A part without a file name is a plain field, as Django reads it.
          addField(data, name, Buffer.concat(chunks).toString('utf8'));
        } else {
          const filename = sanitiseFilename(info.filename);
          files.push({
            field: name,
            filename,
            contentType: mimeTypeOf(filename, partType),
            data: Buffer.concat(chunks),
          });
        }
        finish();
      });
    });
    parser.on('filesLimit', () =>
      abort(new PayloadTooLarge(`At most ${MULTIPART_LIMITS.files} files may be sent in one request.`)),
    );
    parser.on('partsLimit', () =>
      abort(new PayloadTooLarge(`At most ${MULTIPART_LIMITS.parts} parts may be sent in one request.`)),
    );
    parser.on('error', (error: Error) => {
      if (!failed) {
        failed = true;
        fail(error.message);
      }
    });
    parser.on('close', () => {
      closed = true;
      finish();
    });
    parser.end(raw);
  });
}
