/** A file received in a multipart body. */
export interface UploadedFile {
  field: string;
  filename: string;
  /** The part's Content-Type, when the client sent one. */
  contentType: string | undefined;
  data: Buffer;
}

/** A request body after parsing: JSON (an object) or form fields (strings) plus uploaded files. */
export interface ParsedBody {
  kind: 'json' | 'form';
  data: Record<string, unknown>;
  files: UploadedFile[];
}

export const EMPTY_BODY: ParsedBody = { kind: 'json', data: {}, files: [] };

/** A repeated field becomes a list, appended in place (copying it each time was quadratic in the repeats). */
export function addField(data: Record<string, unknown>, name: string, value: string): void {
  const existing = data[name];
  if (existing === undefined) data[name] = value;
  else if (Array.isArray(existing)) existing.push(value);
  else data[name] = [existing, value];
}
