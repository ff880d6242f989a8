import type { UploadedFile } from './records';

/** A request body after parsing: JSON (an object) or form fields (strings) plus uploaded files. */
export interface ParsedBody {
  kind: 'json' | 'form';
  data: Record<string, unknown>;
  files: UploadedFile[];
}

export const EMPTY_BODY: ParsedBody = { kind: 'json', data: {}, files: [] };
