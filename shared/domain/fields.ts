/**
 * Request fields with Django REST framework's semantics and messages, declared with zod.
 *
 * Each field is a zod schema that receives the raw value of a key that was sent (JSON or form) and
 * either yields the parsed value or fails with upstream's message. `validateFields` applies a set of
 * fields in their declared order and collects every failure at once, as DRF does.
 */
// zod/mini: the same validation core as zod, a fraction of the bundle (every function loads this).
import * as z from 'zod/mini';
import { DATE_TIME_FORMAT_MESSAGE, parseDateTime } from './datetime';
import type { FieldErrors } from './errors';

export const MESSAGES = {
  required: 'This field is required.',
  null: 'This field may not be null.',
  blank: 'This field may not be blank.',
  notString: 'Not a valid string.',
  nul: 'Null characters are not allowed.',
  maxLength: (n: number) => `Ensure this field has no more than ${n} characters.`,
  email: 'Enter a valid email address.',
  boolean: 'Must be a valid boolean.',
  choice: (input: string) => `"${input}" is not a valid choice.`,
  pkType: (type: string) => `Incorrect type. Expected pk value, received ${type}.`,
  pkMissing: (pk: unknown) => `Invalid pk "${String(pk)}" - object does not exist.`,
  notAFile: 'The submitted data was not a file. Check the encoding type on the form.',
  emptyFile: 'The submitted file is empty.',
  duration: 'Duration has wrong format. Use one of these formats instead: [DD] [HH:[MM:]]ss[.uuuuuu].',
  // DRF's overflow message, with the bounds the store can hold exactly (whole microseconds as a safe
  // integer: about 104249 days) rather than Python's 999999999 days.
  durationOverflow: 'The number of days must be between -104249 and 104249.',
} as const;

/**
 * Long text (a ticket's description and resolution, a followup's comment) has no limit upstream,
 * but a record must fit DynamoDB's 400 KB item: 80,000 characters are at most 320,000 bytes of UTF-8.
 * A ticket's text fields together are checked too (ticket.ts, MAX_TICKET_TEXT_BYTES).
 */
export const MAX_TEXT_LENGTH = 80_000;

/** The longest email address (RFC 5321's path less its brackets): email fields, filters and mail in keep to it. */
export const MAX_EMAIL_LENGTH = 254;

/**
 * The longest text a path parameter (`{address}`, a mail problem's `{id}`) may hold: an email address's most, longer
 * than any key such a parameter names (a mail problem's id is about 40 characters).
 */
export const MAX_TEXT_PARAM = MAX_EMAIL_LENGTH;

/** Django's slug rule (queue slugs, custom field names, slug custom values). */
export const SLUG = {
  pattern: /^[-a-zA-Z0-9_]+$/,
  message: 'Enter a valid "slug" consisting of letters, numbers, underscores or hyphens.',
};

/** Python's name for the type of a JSON value, as DRF puts it in its messages. */
export function pythonType(value: unknown): string {
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (Array.isArray(value)) return 'list';
  if (value === null) return 'NoneType';
  return 'dict';
}

/** Python's `str()` of a JSON value, for "is not a valid choice" messages. */
export function pythonStr(value: unknown): string {
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (value === null) return 'None';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return JSON.stringify(value);
}

type Ctx = { issues: { code: 'custom'; message: string; input: unknown }[]; value: unknown };

function fail(ctx: Ctx, message: string): never {
  ctx.issues.push({ code: 'custom', message, input: ctx.value });
  return z.NEVER;
}

/** A field schema: any JSON value in, the parsed value out, or an issue with upstream's message. */
export function fieldSchema<T>(parse: (raw: unknown, ctx: Ctx) => T): z.ZodMiniType<T> {
  return z.pipe(
    z.unknown(),
    z.transform((raw, ctx) => parse(raw, ctx as unknown as Ctx)),
  );
}

/** How a field treats form bodies, where every value is a string (DRF 3.3 rules). */
export type FieldKind = 'text' | 'boolean' | 'other';

/** How OPTIONS describes a field (DRF's metadata: type, max_length, choices). */
export interface FieldMeta {
  type: string;
  max_length?: number;
  choices?: { value: unknown; display_name: string }[];
  /** A list's items (DRF's ListField metadata `child`). */
  child?: FieldMeta;
}

export interface Field<T = unknown> {
  schema: z.ZodMiniType<T>;
  meta: FieldMeta;
  kind: FieldKind;
  nullable: boolean;
  /** Required when creating or replacing (never for a partial update). */
  required: boolean;
  /**
   * Bounds and patterns the field's parser enforces, as JSON Schema keywords for the OpenAPI
   * document (the parser itself is code, which JSON Schema cannot express).
   */
  constraints?: { minimum?: number; maximum?: number; pattern?: string; minLength?: number };
}

interface TextOptions {
  maxLength?: number;
  allowBlank?: boolean;
  nullable?: boolean;
  required?: boolean;
  /** The trimmed value must match it, else `message`; the OpenAPI document states it as `pattern`. */
  match?: { pattern: RegExp; message: string };
  /** At least this many characters, else `message`; the OpenAPI document states it as `minLength`. */
  minLength?: { length: number; message: string };
  /** A check JSON Schema cannot state (it documents it by `meta`); return a message to reject. */
  check?: (value: string) => string | undefined;
  /** The type OPTIONS reports (default `string`). */
  meta?: string;
}

export function textField(opts: TextOptions = {}): Field<string | null> {
  const schema = fieldSchema((raw, ctx): string | null => {
    if (raw === null) return opts.nullable ? null : fail(ctx, MESSAGES.null);
    if (typeof raw === 'number' && Number.isFinite(raw)) raw = String(raw);
    if (typeof raw !== 'string') return fail(ctx, MESSAGES.notString);
    if (raw.includes('\0')) return fail(ctx, MESSAGES.nul);
    const value = raw.trim();
    if (value === '') return opts.allowBlank ? '' : fail(ctx, MESSAGES.blank);
    const length = [...value].length;
    if (opts.maxLength !== undefined && length > opts.maxLength) return fail(ctx, MESSAGES.maxLength(opts.maxLength));
    if (opts.minLength && length < opts.minLength.length) return fail(ctx, opts.minLength.message);
    if (opts.match && !opts.match.pattern.test(value)) return fail(ctx, opts.match.message);
    const problem = opts.check?.(value);
    return problem ? fail(ctx, problem) : value;
  });
  const meta: FieldMeta = { type: opts.meta ?? 'string', ...(opts.maxLength ? { max_length: opts.maxLength } : {}) };
  const constraints = { pattern: opts.match?.pattern.source, minLength: opts.minLength?.length };
  return { schema, meta, kind: 'text', nullable: !!opts.nullable, required: !!opts.required, constraints };
}

const emailSchema = z.email();
export const isEmail = (value: string) => emailSchema.safeParse(value).success;

export function emailField(opts: Omit<TextOptions, 'check'> = {}): Field<string | null> {
  return textField({
    maxLength: MAX_EMAIL_LENGTH,
    ...opts,
    meta: 'email',
    check: (v) => (isEmail(v) ? undefined : MESSAGES.email),
  });
}

const TRUE_VALUES = new Set(['t', 'true', 'y', 'yes', 'on', '1']);
const FALSE_VALUES = new Set(['f', 'false', 'n', 'no', 'off', '0']);

/** Parses DRF's boolean spellings; undefined when it is none of them. */
export function parseBoolean(raw: unknown): boolean | undefined {
  if (raw === true || raw === 1) return true;
  if (raw === false || raw === 0) return false;
  if (typeof raw === 'string') {
    const lower = raw.trim().toLowerCase();
    if (TRUE_VALUES.has(lower)) return true;
    if (FALSE_VALUES.has(lower)) return false;
  }
  return undefined;
}

export function booleanField(opts: { required?: boolean } = {}): Field<boolean> {
  const schema = fieldSchema((raw, ctx): boolean => {
    if (raw === null) return fail(ctx, MESSAGES.null);
    const value = parseBoolean(raw);
    return value === undefined ? fail(ctx, MESSAGES.boolean) : value;
  });
  return { schema, meta: { type: 'boolean' }, kind: 'boolean', nullable: false, required: !!opts.required };
}

/** An integer choice field such as `status` or `priority`: `2` and `"2"` both work. */
export function choiceField(
  choices: readonly number[],
  opts: { nullable?: boolean; labels?: Record<number, string> } = {},
): Field<number | null> {
  const schema = fieldSchema((raw, ctx): number | null => {
    if (raw === null) return opts.nullable ? null : fail(ctx, MESSAGES.null);
    const text = pythonStr(raw);
    // Exact match on the text, as DRF's `choice_strings_to_values[str(data)]`: "02" is not 2.
    const value = choices.find((choice) => String(choice) === text);
    return value !== undefined ? value : fail(ctx, MESSAGES.choice(text));
  });
  const meta: FieldMeta = {
    type: 'choice',
    choices: choices.map((value) => ({ value, display_name: opts.labels?.[value] ?? String(value) })),
  };
  return { schema, meta, kind: 'other', nullable: !!opts.nullable, required: false };
}

/** A reference to another record by integer id; existence is checked later against the store. */
export function idField(opts: { required?: boolean; nullable?: boolean } = {}): Field<number | null> {
  const schema = fieldSchema((raw, ctx): number | null => {
    if (raw === null) return opts.nullable ? null : fail(ctx, MESSAGES.null);
    if (typeof raw === 'number' && Number.isSafeInteger(raw)) return raw;
    if (typeof raw === 'string' && /^\s*[+-]?\d{1,15}\s*$/.test(raw)) return Number(raw.trim());
    return fail(ctx, MESSAGES.pkType(pythonType(raw)));
  });
  return { schema, meta: { type: 'field' }, kind: 'other', nullable: !!opts.nullable, required: !!opts.required };
}

/** A date-time, stored in UTC with six fractional digits. */
export function dateTimeField(opts: { nullable?: boolean } = {}): Field<string | null> {
  const schema = fieldSchema((raw, ctx): string | null => {
    if (raw === null) return opts.nullable ? null : fail(ctx, MESSAGES.null);
    const parsed = typeof raw === 'string' ? parseDateTime(raw) : null;
    return parsed ?? fail(ctx, DATE_TIME_FORMAT_MESSAGE);
  });
  return { schema, meta: { type: 'datetime' }, kind: 'other', nullable: !!opts.nullable, required: false };
}

const DURATION = /^(?:(-?\d+) (?:days?, )?)?(?:(?:(\d+):)?(\d+):)?(\d+(?:\.\d{1,6})?)$/;
const ISO_DURATION = /^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i;

/** Parses Django's duration formats to whole microseconds. */
export function parseDuration(input: string): number | null {
  const text = input.trim();
  const m = DURATION.exec(text);
  if (m) {
    const [, days = '0', hours = '0', minutes = '0', seconds = '0'] = m;
    return Math.round(((Number(days) * 24 + Number(hours)) * 3600 + Number(minutes) * 60 + Number(seconds)) * 1e6);
  }
  const iso = ISO_DURATION.exec(text);
  if (iso && text.toUpperCase() !== 'P' && !text.toUpperCase().endsWith('T')) {
    const [, d = '0', h = '0', mi = '0', s = '0'] = iso;
    return Math.round(((Number(d) * 24 + Number(h)) * 3600 + Number(mi) * 60 + Number(s)) * 1e6);
  }
  return null;
}

/** Django's `str(timedelta)`-like wire form: `"HH:MM:SS"`, `"D HH:MM:SS"`, with `.ffffff` if any. */
export function formatDuration(micros: number): string {
  // Python's timedelta normalisation: only the days may be negative (-23h is "-1 01:00:00").
  const days = Math.floor(micros / 86_400e6);
  let rest = micros - days * 86_400e6;
  const fraction = rest % 1e6;
  rest = Math.floor(rest / 1e6);
  const hh = String(Math.floor(rest / 3600)).padStart(2, '0');
  const mm = String(Math.floor((rest % 3600) / 60)).padStart(2, '0');
  const ss = String(rest % 60).padStart(2, '0');
  const time = `${hh}:${mm}:${ss}${fraction ? `.${String(fraction).padStart(6, '0')}` : ''}`;
  return `${days ? `${days} ` : ''}${time}`;
}

export function durationField(): Field<number | null> {
  const schema = fieldSchema((raw, ctx): number | null => {
    if (raw === null) return null;
    const value =
      typeof raw === 'number' && Number.isFinite(raw)
        ? Math.round(raw * 1e6)
        : typeof raw === 'string'
          ? parseDuration(raw)
          : null;
    if (value === null) return fail(ctx, MESSAGES.duration);
    return Number.isSafeInteger(value) ? value : fail(ctx, MESSAGES.durationOverflow);
  });
  return { schema, meta: { type: 'duration' }, kind: 'other', nullable: true, required: false };
}

export type Mode = 'create' | 'replace' | 'partial';
export type BodyKind = 'json' | 'form';

export type Fields = Record<string, Field>;
export type Parsed<F extends Fields> = { [K in keyof F]?: z.output<F[K]['schema']> };

/**
 * Validates `data` against `fields` in declared order. Returns the parsed values of the keys that
 * count as sent, or every error at once. Form bodies follow DRF's HTML-input rules: an empty value of
 * an optional non-text field is "not sent" (or null if nullable), and an absent boolean is false
 * unless the update is partial.
 */
export function validateFields<F extends Fields>(
  fields: F,
  data: Record<string, unknown>,
  mode: Mode,
  bodyKind: BodyKind,
): { values: Parsed<F>; errors: FieldErrors } {
  const values: Record<string, unknown> = {};
  const errors: FieldErrors = {};
  for (const [name, field] of Object.entries(fields)) {
    let present = Object.hasOwn(data, name);
    let raw = data[name];
    if (bodyKind === 'form') {
      if (Array.isArray(raw)) raw = raw[raw.length - 1];
      if (present && raw === '' && field.kind !== 'text') {
        // A required id field (queue, ticket) reads "" as null, as DRF's related fields do.
        if (field.nullable || field.required) raw = null;
        else present = false;
      }
      if (!present && field.kind === 'boolean' && mode !== 'partial') {
        present = true;
        raw = false;
      }
    }
    if (!present) {
      if (field.required && mode !== 'partial') errors[name] = [MESSAGES.required];
      continue;
    }
    const result = field.schema.safeParse(raw);
    if (result.success) values[name] = result.data;
    else errors[name] = result.error.issues.map((issue) => issue.message);
  }
  return { values: values as Parsed<F>, errors };
}

/** Keeps DRF's error order (the order of `order`) when errors from two stages are merged. */
export function orderErrors(errors: FieldErrors, order: readonly string[]): FieldErrors {
  const sorted: FieldErrors = {};
  for (const key of order) if (key in errors) sorted[key] = errors[key];
  for (const key of Object.keys(errors)) if (!(key in sorted)) sorted[key] = errors[key];
  return sorted;
}

/** A plain integer (DRF IntegerField): `3` and `"3"` work; bounds are checked. */
export function integerField(
  opts: { required?: boolean; nullable?: boolean; min?: number; max?: number } = {},
): Field<number | null> {
  const schema = fieldSchema((raw, ctx): number | null => {
    if (raw === null) return opts.nullable ? null : fail(ctx, MESSAGES.null);
    const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
    if (typeof raw === 'boolean' || !/^[+-]?\d{1,15}(?:\.0*)?$/.test(text))
      return fail(ctx, 'A valid integer is required.');
    const value = Math.trunc(Number(text));
    if (opts.min !== undefined && value < opts.min)
      return fail(ctx, `Ensure this value is greater than or equal to ${opts.min}.`);
    if (opts.max !== undefined && value > opts.max)
      return fail(ctx, `Ensure this value is less than or equal to ${opts.max}.`);
    return value;
  });
  const constraints = { minimum: opts.min, maximum: opts.max };
  return {
    schema,
    meta: { type: 'integer' },
    kind: 'other',
    nullable: !!opts.nullable,
    required: !!opts.required,
    constraints,
  };
}

/** A choice among strings (DRF ChoiceField with string values). */
export function stringChoiceField<T extends string>(
  choices: readonly T[],
  opts: { required?: boolean } = {},
): Field<T> {
  const schema = fieldSchema((raw, ctx): T => {
    if (raw === null) return fail(ctx, MESSAGES.null);
    const text = pythonStr(raw);
    return (choices as readonly string[]).includes(text) ? (text as T) : fail(ctx, MESSAGES.choice(text));
  });
  const meta: FieldMeta = { type: 'choice', choices: choices.map((value) => ({ value, display_name: value })) };
  return { schema, meta, kind: 'other', nullable: false, required: !!opts.required };
}

/** `field`, with a blank value (or a list of no addresses) stored as null and a list normalised. */
export function blankIsNull(field: Field<string | null>, normalise = (v: string) => v): Field<string | null> {
  const schema = fieldSchema((raw, ctx): string | null => {
    const parsed = field.schema.safeParse(raw);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) ctx.issues.push({ code: 'custom', message: issue.message, input: raw });
      return null;
    }
    const value = parsed.data === null ? '' : normalise(parsed.data);
    return value === '' ? null : value;
  });
  return { ...field, schema };
}
