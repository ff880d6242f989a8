/** Rules for uploaded files: names are made safe to store and show; types are recorded as sent. */
import { extname } from 'node:path';

export const MAX_FILENAME_LENGTH = 255;

/**
 * A display name safe to store: no path (only the last segment is kept), no control characters and
 * no bidirectional controls (which make `invoice\u202Efdp.exe` display as `invoiceexe.pdf`), at most
 * 255 characters with the extension kept. Object keys never use it.
 */
export function sanitiseFilename(raw: string | undefined): string {
  const last = (raw ?? '').split(/[/\\]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  let name = last.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '').trim();
  if (name === '' || name === '.' || name === '..') name = 'file';
  const chars = [...name];
  if (chars.length > MAX_FILENAME_LENGTH) {
    const ext = [...extname(name)].slice(0, 16);
    name = chars.slice(0, MAX_FILENAME_LENGTH - ext.length).join('') + ext.join('');
  }
  return name;
}

const TYPES: Record<string, string> = {
  '.txt': 'text/plain',
  '.asc': 'text/plain',
  '.csv': 'text/csv',
  '.htm': 'text/html',
  '.html': 'text/html',
  '.pdf': 'application/pdf',
  '.doc': 'application/msword',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.odt': 'application/vnd.oasis.opendocument.text',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.gif': 'image/gif',
  '.eml': 'message/rfc822',
  '.json': 'application/json',
  '.zip': 'application/zip',
};

/**
 * The part's Content-Type when it has one (an explicit `application/octet-stream` included), else a
 * guess from the name, as upstream (`content_type or guess_type(name) or octet-stream`).
 */
export function mimeTypeOf(filename: string, partType: string | undefined): string {
  if (partType && isHeaderSafe(partType)) return partType;
  return TYPES[extname(filename).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * Whether a content type can be sent as an HTTP header (the file's S3 Content-Type): visible ASCII
 * and spaces only. A part type with CR, LF or other controls is ignored (the name decides), where it
 * used to fail the upload and answer a misleading 503.
 */
export function isHeaderSafe(value: string): boolean {
  return /^[\x20-\x7e]*$/.test(value);
}
