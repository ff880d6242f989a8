/**
 * Request bodies: JSON, application/x-www-form-urlencoded and multipart/form-data (busboy), with
 * upstream's error bodies. Limits are what one API Gateway + Lambda request can carry.
 */
import busboy from 'busboy';
import { EMPTY_BODY, type ParsedBody } from '../domain/body';
import { ParseError, PayloadTooLarge, UnsupportedMediaType, ValidationError } from '../domain/errors';
import { pythonType } from '../domain/fields';
import type { UploadedFile } from '../domain/records';
import { mimeTypeOf, sanitiseFilename } from '../domain/files';
import { header, type HttpEvent } from './http';

/**
 * A Lambda request event is at most 6 MB and API Gateway base64-encodes binary bodies, so 4 MiB of
 * body is the most that always fits. The local server refuses larger bodies the same way.
 */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;
export const MULTIPART_LIMITS = { files: 20, parts: 200, fieldSize: 1024 * 1024, fieldNameSize: 200 };

export function bodyBytes(event: HttpEvent): Buffer {
  if (!event.body) return Buffer.alloc(0);
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
}

/** No field of this API nests; deeper bodies are refused before any code walks them recursively. */
export const MAX_JSON_DEPTH = 32;

/** How deeply a JSON text nests arrays and objects (a scan, not a recursion: any depth is safe). */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

function parseJson(raw: Buffer): ParsedBody {
  let data: unknown;
  const text = raw.toString('utf8');
  if (jsonDepth(text) > MAX_JSON_DEPTH) throw new ParseError(`JSON parse error - nested more than ${MAX_JSON_DEPTH} levels deep`);
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ParseError(`JSON parse error - ${(error as Error).message}`);
  }
  if (data === null) throw new ValidationError({ non_field_errors: ['No data provided'] });
  if (typeof data !== 'object' || Array.isArray(data)) {
    throw new ValidationError({ non_field_errors: [`Invalid data. Expected a dictionary, but got ${pythonType(data)}.`] });
  }
  return { kind: 'json', data: data as Record<string, unknown>, files: [] };
}

/** A repeated field becomes a list, appended in place (copying it each time was quadratic in the repeats). */
function addField(data: Record<string, unknown>, name: string, value: string): void {
  const existing = data[name];
  if (existing === undefined) data[name] = value;
  else if (Array.isArray(existing)) existing.push(value);
  else data[name] = [existing, value];
}

function parseUrlEncoded(raw: Buffer): ParsedBody {
  const data: Record<string, unknown> = {};
  for (const [name, value] of new URLSearchParams(raw.toString('utf8'))) addField(data, name, value);
  return { kind: 'form', data, files: [] };
}

/**
 * For each file part, in order, whether it carried its own Content-Type header: busboy reports
 * `text/plain` when it did not, but upstream then guesses the type from the file name (4.3).
 */
function filePartsTyped(raw: Buffer, contentType: string): boolean[] {
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  if (!m) return [];
  const heads = `\r\n${raw.toString('latin1')}`.split(`\r\n--${m[1] ?? m[2]}`).slice(1).map((p) => p.slice(0, p.indexOf('\r\n\r\n')));
  // busboy's rule for a file part: a form-data part with a file name or of type application/octet-stream.
  const isFile = (h: string) =>
    /^content-disposition:\s*form-data\b/im.test(h) &&
    (/^content-disposition:.*;\s*filename\*?=/im.test(h) || /^content-type:\s*application\/octet-stream\s*(;|$)/im.test(h));
  return heads.filter(isFile).map((h) => /^content-type:/im.test(h));
}

function parseMultipart(raw: Buffer, contentType: string): Promise<ParsedBody> {
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
      if (info.valueTruncated) abort(new PayloadTooLarge(`The field "${name}" is larger than ${MULTIPART_LIMITS.fieldSize} bytes.`));
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
          files.push({ field: name, filename, contentType: mimeTypeOf(filename, partType), data: Buffer.concat(chunks) });
        }
        finish();
      });
    });
    parser.on('filesLimit', () => abort(new PayloadTooLarge(`At most ${MULTIPART_LIMITS.files} files may be sent in one request.`)));
    parser.on('partsLimit', () => abort(new PayloadTooLarge(`At most ${MULTIPART_LIMITS.parts} parts may be sent in one request.`)));
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

/** Parses the event's body by its Content-Type; an empty body counts as `{}`. */
export async function parseBody(event: HttpEvent): Promise<ParsedBody> {
  const raw = bodyBytes(event);
  if (raw.length > MAX_BODY_BYTES) throw new PayloadTooLarge(`Request body is larger than ${MAX_BODY_BYTES} bytes.`);
  if (raw.length === 0) return EMPTY_BODY;
  const contentType = header(event, 'content-type') ?? '';
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  if (mediaType === 'application/json') return parseJson(raw);
  if (mediaType === 'application/x-www-form-urlencoded') return parseUrlEncoded(raw);
  if (mediaType === 'multipart/form-data') return parseMultipart(raw, contentType);
  throw new UnsupportedMediaType(contentType);
}
