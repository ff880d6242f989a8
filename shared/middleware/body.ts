/**
 * Request bodies: JSON, application/x-www-form-urlencoded and multipart/form-data (multipart.ts), with
 * upstream's error bodies. Limits are what one API Gateway + Lambda request can carry.
 */
import { addField, EMPTY_BODY, type ParsedBody } from '../domain/body';
import { ParseError, PayloadTooLarge, UnsupportedMediaType, ValidationError } from '../domain/errors';
import { pythonType } from '../domain/fields';
import { LONE_SURROGATE } from '../domain/unicode';
import { header, type HttpEvent } from './http';

/**
 * The multipart parser (busboy, ~23 KiB) is bundled only into functions whose route takes a body:
 * the others never parse one, and their bundles define this `false` (infra/bundling.ts). Unbundled
 * (the local runtime, tests) it is always there.
 */
// It must stay this expression: esbuild's define replaces it (infra/bundling.ts).
// eslint-disable-next-line no-restricted-properties -- a build-time constant (esbuild's define), not a setting
const multipart = process.env.HELPDESK_MULTIPART === 'false' ? undefined : await import('./multipart');

/**
 * A Lambda request event is at most 6 MB and API Gateway base64-encodes binary bodies, so 4 MiB of
 * body is the most that always fits. The local server refuses larger bodies the same way.
 */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

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
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/** Whether any string of a parsed JSON value (keys included) holds a lone surrogate. */
function holdsLoneSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return LONE_SURROGATE.test(value);
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some(holdsLoneSurrogate);
  return Object.entries(value).some(([key, field]) => LONE_SURROGATE.test(key) || holdsLoneSurrogate(field));
}

/**
 * Text that is not Unicode is refused whole: a lone surrogate stored would be text no search engine, mail or client
 * can take (PostgreSQL's JSON refuses it). Bytes that are not UTF-8 cannot be told apart here: API Gateway hands a
 * JSON body over as text, already decoded (the local server too), so they arrive as U+FFFD.
 */
function parseJson(raw: Buffer): ParsedBody {
  let data: unknown;
  const text = raw.toString('utf8');
  if (jsonDepth(text) > MAX_JSON_DEPTH)
    throw new ParseError(`JSON parse error - nested more than ${MAX_JSON_DEPTH} levels deep`);
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ParseError(`JSON parse error - ${(error as Error).message}`);
  }
  // Raw UTF-8 cannot encode a surrogate: only an escape can bring one.
  if (text.includes('\\u') && holdsLoneSurrogate(data))
    throw new ParseError('JSON parse error - a string holds a lone UTF-16 surrogate, which is not Unicode text');
  if (data === null) throw new ValidationError({ non_field_errors: ['No data provided'] });
  if (typeof data !== 'object' || Array.isArray(data)) {
    throw new ValidationError({
      non_field_errors: [`Invalid data. Expected a dictionary, but got ${pythonType(data)}.`],
    });
  }
  return { kind: 'json', data: data as Record<string, unknown>, files: [] };
}

function parseUrlEncoded(raw: Buffer): ParsedBody {
  const data: Record<string, unknown> = {};
  for (const [name, value] of new URLSearchParams(raw.toString('utf8'))) addField(data, name, value);
  return { kind: 'form', data, files: [] };
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
  if (mediaType === 'multipart/form-data' && multipart) return multipart.parseMultipart(raw, contentType);
  throw new UnsupportedMediaType(contentType);
}
