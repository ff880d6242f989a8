/**
 * Operator-defined custom fields: their definitions, and the values tickets carry for them under
 * `custom_<name>`. Values are stored as strings (as upstream stores them) and rendered per type.
 * Pure: the store supplies the definitions.
 */
import { isIP } from 'node:net';
import type { FieldErrors } from './errors';
import { DATE_TIME_FORMAT_MESSAGE, parseDateTime } from './datetime';
import { MESSAGES, SLUG, isEmail, parseBoolean, pythonStr, type BodyKind, type Mode } from './fields';

export const DATA_TYPES = [
  'varchar',
  'text',
  'integer',
  'decimal',
  'list',
  'boolean',
  'date',
  'time',
  'datetime',
  'email',
  'url',
  'ipaddress',
  'slug',
] as const;
export type DataType = (typeof DATA_TYPES)[number];

export interface CustomFieldDefinition {
  name: string;
  /**
   * Internal, never shown: the key of this field's values in a ticket's stored values. A new key
   * per definition means a field deleted and created again under the same name starts empty.
   */
  key: string;
  label: string;
  help_text: string;
  data_type: DataType;
  /** varchar and text: characters; decimal: total digits. */
  max_length: number | null;
  decimal_places: number | null;
  empty_selection_list: boolean;
  list_values: string[];
  required: boolean;
  staff_only: boolean;
  ordering: number | null;
}

export const CUSTOM_PREFIX = 'custom_';

/**
 * The longest value of any text-like custom field (and the largest `max_length` a definition may
 * set): a ticket carries every custom value in its one record (see ticket.ts, MAX_TICKET_TEXT_BYTES).
 */
export const MAX_CUSTOM_VALUE_LENGTH = 10_000;
/** A list field's choices: how many, and how long each. */
export const MAX_LIST_VALUES = 500;
export const MAX_LIST_VALUE_LENGTH = 100;

const TEXT_TYPES = new Set<DataType>(['varchar', 'text', 'email', 'url', 'ipaddress', 'slug']);
/** A URL's optional `user[:password]@`. */
const URL_USER_INFO = /(?:[^\s:@/]+(?::[^\s@/]*)?@)?/;
/** One label of a host name: up to 63 letters, digits (any non-ASCII counts as a letter) or inner hyphens. */
const URL_HOST_LABEL = /[a-z0-9\u00a1-\uffff](?:[a-z0-9\u00a1-\uffff-]{0,61}[a-z0-9\u00a1-\uffff])?/;
/** A bracketed IPv6 address, or dotted labels with an optional final dot. */
const URL_HOST = String.raw`(?:\[[0-9a-f:.]+\]|${URL_HOST_LABEL.source}(?:\.${URL_HOST_LABEL.source})*\.?)`;
/** Scheme, user info, host, optional port, then anything without white space. */
export const URL_PATTERN = new RegExp(
  String.raw`^(?:https?|ftps?):\/\/${URL_USER_INFO.source}${URL_HOST}(?::\d{1,5})?(?:[/?#][^\s]*)?$`,
  'i',
);

export const CUSTOM_MESSAGES = {
  integer: 'A valid integer is required.',
  integerTooLarge: 'String value too large.',
  // DRF's min_value and max_value messages, at the bounds a JSON number holds exactly (JavaScript's safe integers):
  // a client cannot read a larger one back as sent, and the change feed's events carry it as a number.
  integerMax: `Ensure this value is less than or equal to ${Number.MAX_SAFE_INTEGER}.`,
  integerMin: `Ensure this value is greater than or equal to ${Number.MIN_SAFE_INTEGER}.`,
  number: 'A valid number is required.',
  maxDigits: (n: number) => `Ensure that there are no more than ${n} digits in total.`,
  maxDecimals: (n: number) => `Ensure that there are no more than ${n} decimal places.`,
  maxWhole: (n: number) => `Ensure that there are no more than ${n} digits before the decimal point.`,
  date: 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.',
  time: 'Time has wrong format. Use one of these formats instead: hh:mm[:ss[.uuuuuu]].',
  url: 'Enter a valid URL.',
  ip: 'Enter a valid IPv4 or IPv6 address.',
  slug: 'Enter a valid "slug" consisting of letters, numbers, underscores or hyphens.',
  unknown: 'No custom field of this name is defined.',
};

/** Orders definitions as upstream shows them: by `ordering`, then name. */
export function sortDefinitions(defs: CustomFieldDefinition[]): CustomFieldDefinition[] {
  return [...defs].sort(
    (a, b) => (a.ordering ?? Infinity) - (b.ordering ?? Infinity) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
}

type Parsed = { value: string } | { error: string };

function parseDecimal(def: CustomFieldDefinition, raw: unknown): Parsed {
  const text =
    typeof raw === 'number' && Number.isFinite(raw) ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text);
  if (!m || (m[2] === '' && !m[3])) return { error: CUSTOM_MESSAGES.number };
  const [, sign, intPart = '', fracPart = ''] = m;
  // DRF counts digits as Python's Decimal does: leading zeros of the integer part do not count,
  // trailing zeros of the fraction do.
  const digits = (intPart + fracPart).replace(/^0+/, '');
  const decimals = fracPart.length;
  const total = Math.max(digits.length, decimals);
  const whole = total - decimals;
  const places = def.decimal_places ?? 0;
  const maxDigits = def.max_length;
  if (maxDigits != null && total > maxDigits) return { error: CUSTOM_MESSAGES.maxDigits(maxDigits) };
  if (decimals > places) return { error: CUSTOM_MESSAGES.maxDecimals(places) };
  if (maxDigits != null && whole > maxDigits - places) return { error: CUSTOM_MESSAGES.maxWhole(maxDigits - places) };
  const integer = intPart.replace(/^0+(?=\d)/, '') || '0';
  const fraction = fracPart.padEnd(places, '0');
  const negative = sign === '-' && /[1-9]/.test(integer + fraction);
  return { value: `${negative ? '-' : ''}${integer}${places ? `.${fraction}` : ''}` };
}

function parseTime(raw: string): string | undefined {
  const m = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?$/.exec(raw.trim());
  if (!m || Number(m[1]) > 23 || Number(m[2]) > 59 || Number(m[3] ?? 0) > 59) return undefined;
  return `${m[1]!.padStart(2, '0')}:${m[2]}:${m[3] ?? '00'}`;
}

function parseDate(raw: string): string | undefined {
  const text = raw.trim();
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return undefined;
  return parseDateTime(text) ? text : undefined;
}

/** Validates one sent value (the key was present) and returns its stored string form. */
export function parseCustomValue(def: CustomFieldDefinition, raw: unknown): Parsed {
  if (raw === null) return { error: MESSAGES.null };
  const type = def.data_type;
  if (TEXT_TYPES.has(type)) {
    if (typeof raw === 'number' && Number.isFinite(raw)) raw = String(raw);
    if (typeof raw !== 'string') return { error: MESSAGES.notString };
    if (raw.includes('\0')) return { error: MESSAGES.nul };
    const value = raw.trim();
    if (value === '') return { error: MESSAGES.blank };
    const max = Math.min(
      (type === 'varchar' || type === 'text') && def.max_length != null ? def.max_length : Infinity,
      MAX_CUSTOM_VALUE_LENGTH,
    );
    if ([...value].length > max) return { error: MESSAGES.maxLength(max) };
    if (type === 'email' && !isEmail(value)) return { error: MESSAGES.email };
    if (type === 'url' && !URL_PATTERN.test(value)) return { error: CUSTOM_MESSAGES.url };
    if (type === 'ipaddress' && !isIP(value)) return { error: CUSTOM_MESSAGES.ip };
    if (type === 'slug' && !SLUG.pattern.test(value)) return { error: CUSTOM_MESSAGES.slug };
    return { value };
  }
  switch (type) {
    case 'integer': {
      if (typeof raw === 'string' && raw.length > 1000) return { error: CUSTOM_MESSAGES.integerTooLarge };
      const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
      const m = /^([+-]?\d+)(?:\.0*)?$/.exec(text);
      if (typeof raw === 'boolean' || !m) return { error: CUSTOM_MESSAGES.integer };
      const value = BigInt(m[1]!);
      // A JSON number past them arrives rounded already (9007199254740993 parses as ...992): refused, not changed.
      if (value > BigInt(Number.MAX_SAFE_INTEGER)) return { error: CUSTOM_MESSAGES.integerMax };
      if (value < BigInt(Number.MIN_SAFE_INTEGER)) return { error: CUSTOM_MESSAGES.integerMin };
      return { value: String(value) };
    }
    case 'decimal':
      return typeof raw === 'boolean' ? { error: CUSTOM_MESSAGES.number } : parseDecimal(def, raw);
    case 'list': {
      const text = pythonStr(raw);
      if (typeof raw !== 'object' && (def.list_values.includes(text) || (text === '' && def.empty_selection_list)))
        return { value: text };
      return { error: MESSAGES.choice(text) };
    }
    case 'boolean': {
      const value = parseBoolean(raw);
      return value === undefined ? { error: MESSAGES.boolean } : { value: value ? 'True' : 'False' };
    }
    case 'date': {
      const value = typeof raw === 'string' ? parseDate(raw) : undefined;
      return value ? { value } : { error: CUSTOM_MESSAGES.date };
    }
    case 'time': {
      const value = typeof raw === 'string' ? parseTime(raw) : undefined;
      return value ? { value } : { error: CUSTOM_MESSAGES.time };
    }
    case 'datetime': {
      const value = typeof raw === 'string' ? parseDateTime(raw) : null;
      return value ? { value } : { error: DATE_TIME_FORMAT_MESSAGE };
    }
  }
  return { error: MESSAGES.notString };
}

/** What creation stores for a field that was not sent. */
export function defaultCustomValue(def: CustomFieldDefinition): string | null {
  if (def.data_type === 'boolean') return 'False';
  if (TEXT_TYPES.has(def.data_type) || def.data_type === 'list') return '';
  return null;
}

/** The JSON value of a stored string, per type (null when none is stored). */
export function renderCustomValue(def: CustomFieldDefinition, stored: string | null | undefined): unknown {
  if (stored == null) return null;
  switch (def.data_type) {
    case 'integer': {
      if (stored === '') return null;
      // The API keeps to safe integers; a larger one (imported from upstream, whose integers have no bound) is
      // given as its digits, exactly, rather than as a number no client reads back as stored.
      const number = Number(stored);
      return Number.isSafeInteger(number) ? number : stored;
    }
    case 'boolean':
      return stored === 'True';
    case 'datetime':
      return stored.slice(0, 16);
    default:
      return stored;
  }
}

export interface CustomValues {
  /** Stored strings of the fields sent (and, on create, defaults of the others), by definition key. */
  values: Record<string, string | null>;
  errors: FieldErrors;
}

/**
 * Validates the `custom_*` keys of a ticket body. Required fields are enforced on create and
 * replace; creation stores a value for every field; an unknown `custom_` key is an error.
 */
export function parseCustomValues(
  defs: CustomFieldDefinition[],
  data: Record<string, unknown>,
  mode: Mode,
  bodyKind: BodyKind,
): CustomValues {
  const values: Record<string, string | null> = {};
  const errors: FieldErrors = {};
  for (const def of sortDefinitions(defs)) {
    const key = `${CUSTOM_PREFIX}${def.name}`;
    let raw = data[key];
    if (bodyKind === 'form' && Array.isArray(raw)) raw = raw.at(-1);
    let present = Object.hasOwn(data, key) && !(bodyKind === 'form' && raw === '' && !def.required);
    if (!present && bodyKind === 'form' && def.data_type === 'boolean' && mode !== 'partial') {
      // As for the ticket's own booleans: a form without the field sent `false` (an unticked box).
      present = true;
      raw = false;
    }
    if (!present) {
      if (def.required && mode !== 'partial') errors[key] = [MESSAGES.required];
      else if (mode === 'create') values[def.key] = defaultCustomValue(def);
      continue;
    }
    const parsed = parseCustomValue(def, raw);
    if ('error' in parsed) errors[key] = [parsed.error];
    else if (mode === 'create' && def.required && def.data_type === 'boolean' && parsed.value === 'False')
      errors[key] = [MESSAGES.required];
    else values[def.key] = parsed.value;
  }
  const known = new Set(defs.map((d) => `${CUSTOM_PREFIX}${d.name}`));
  for (const key of Object.keys(data)) {
    if (key.startsWith(CUSTOM_PREFIX) && !known.has(key)) errors[key] = [CUSTOM_MESSAGES.unknown];
  }
  return { values, errors };
}

/** `custom_<name>` keys of a ticket representation, in the definitions' order. */
export function customView(
  defs: CustomFieldDefinition[],
  stored: Record<string, string | null> | undefined,
): Record<string, unknown> {
  const view: Record<string, unknown> = {};
  for (const def of sortDefinitions(defs))
    view[`${CUSTOM_PREFIX}${def.name}`] = renderCustomValue(def, stored?.[def.key]);
  return view;
}

/** The definitions a user may see: staff-only fields are shown to staff only, on every route and in every document. */
export function visibleTo(user: { is_staff: boolean }, defs: CustomFieldDefinition[]): CustomFieldDefinition[] {
  return user.is_staff ? defs : defs.filter((def) => !def.staff_only);
}
