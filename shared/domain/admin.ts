/**
 * Operator resources: queues and custom field definitions (superusers only). Validation with the
 * same DRF-style fields as tickets, plus the cross-field rules a definition needs to work.
 */
import type { ParsedBody } from './body';
import { ValidationError, type FieldErrors } from './errors';
import {
  DATA_TYPES,
  MAX_CUSTOM_VALUE_LENGTH,
  MAX_LIST_VALUES,
  MAX_LIST_VALUE_LENGTH,
  type CustomFieldDefinition,
} from './custom-fields';
import {
  SLUG,
  booleanField,
  fieldSchema,
  pythonType,
  integerField,
  stringChoiceField,
  textField,
  validateFields,
  type Field,
  type Mode,
} from './fields';
import type { Queue } from './records';
import { queueMailFields, titleProblem } from './mail-settings';
import { escalateDaysField } from './escalation';
import { localeField } from './search-language';

export const DUPLICATE_SLUG = 'queue with this slug already exists.';
export const DUPLICATE_FIELD_NAME = 'custom field with this name already exists.';

/** A queue's fields: upstream's title and slug, its mail settings (mail-settings.ts) and `escalate_days`. */
export const queueFields = {
  // The title is the display name of the queue's From: header: no line breaks.
  title: textField({ required: true, maxLength: 100, check: titleProblem }),
  slug: textField({ required: true, maxLength: 50, match: SLUG }),
  ...queueMailFields,
  escalate_days: escalateDaysField(),
  // Upstream's: with per-queue permissions, every staff member sees such a queue (domain/queue-access.ts).
  allow_public_submission: booleanField(),
  // Upstream's: the queue's language; here it picks the stemming its tickets are searched with.
  locale: localeField(),
};

export function parseQueueBody(body: ParsedBody, mode: Mode): Partial<Omit<Queue, 'id'>> {
  const { values, errors } = validateFields(queueFields, body.data, mode, body.kind);
  if (Object.keys(errors).length) throw new ValidationError(errors);
  return values as Partial<Omit<Queue, 'id'>>;
}

export const queueView = (q: Queue) => ({
  id: q.id,
  title: q.title,
  slug: q.slug,
  email_address: q.email_address,
  new_ticket_cc: q.new_ticket_cc,
  updated_ticket_cc: q.updated_ticket_cc,
  disabled_mail: q.disabled_mail,
  escalate_days: q.escalate_days,
  allow_public_submission: q.allow_public_submission,
  locale: q.locale,
});

const listOfStrings: Field<string[]> = {
  schema: fieldSchema((raw, ctx): string[] => {
    const problem = !Array.isArray(raw)
      ? `Expected a list of items but got type "${pythonType(raw)}".`
      : !raw.every((v) => typeof v === 'string' && v.trim() !== '')
        ? 'Each value must be a non-blank string.'
        : raw.length > MAX_LIST_VALUES
          ? `Ensure this field has no more than ${MAX_LIST_VALUES} elements.`
          : raw.some((v: string) => [...v.trim()].length > MAX_LIST_VALUE_LENGTH)
            ? `Ensure each value has no more than ${MAX_LIST_VALUE_LENGTH} characters.`
            : undefined;
    if (problem) {
      ctx.issues.push({ code: 'custom', message: problem, input: raw });
      return [];
    }
    return [...new Set((raw as string[]).map((v) => v.trim()))];
  }),
  meta: { type: 'list' },
  kind: 'other',
  nullable: false,
  required: false,
};

/** A custom field's name: a slug of at most this many characters (upstream's SlugField). */
export const MAX_FIELD_NAME_LENGTH = 50;
/** Whether `text` could name a custom field: the create's rule for a name. */
export const isCustomFieldName = (text: string) => text.length <= MAX_FIELD_NAME_LENGTH && SLUG.pattern.test(text);

export const customFieldFields = {
  name: textField({ required: true, maxLength: MAX_FIELD_NAME_LENGTH, match: SLUG }),
  label: textField({ required: true, maxLength: 30 }),
  help_text: textField({ allowBlank: true, maxLength: MAX_CUSTOM_VALUE_LENGTH }),
  data_type: stringChoiceField(DATA_TYPES, { required: true }),
  max_length: integerField({ nullable: true, min: 1, max: MAX_CUSTOM_VALUE_LENGTH }),
  decimal_places: integerField({ nullable: true, min: 0 }),
  empty_selection_list: booleanField(),
  list_values: listOfStrings,
  required: booleanField(),
  staff_only: booleanField(),
  ordering: integerField({ nullable: true }),
};

export const CUSTOM_FIELD_DEFAULTS: Omit<CustomFieldDefinition, 'name' | 'label' | 'data_type' | 'key'> = {
  help_text: '',
  max_length: null,
  decimal_places: null,
  empty_selection_list: false,
  list_values: [],
  required: false,
  staff_only: false,
  ordering: null,
};

/** What makes a definition unusable, whatever the request that produced it. */
function definitionErrors(def: Omit<CustomFieldDefinition, 'key'>): FieldErrors {
  const errors: FieldErrors = {};
  if (def.data_type === 'list' && def.list_values.length === 0)
    errors.list_values = ['A list field needs at least one value.'];
  if (def.data_type === 'decimal') {
    if (def.decimal_places == null) errors.decimal_places = ['A decimal field needs decimal_places.'];
    else if (def.max_length != null && def.max_length < def.decimal_places)
      errors.max_length = ['A decimal field needs max_length (total digits) of at least decimal_places.'];
  }
  return errors;
}

/**
 * A new definition (POST) or the changed one (PATCH, `current` given). The name cannot change: it
 * is the field's identity in URLs and in `custom_<name>` keys.
 */
export function parseCustomFieldBody(
  body: ParsedBody,
  current?: CustomFieldDefinition,
): Omit<CustomFieldDefinition, 'key'> {
  const { values, errors } = validateFields(customFieldFields, body.data, current ? 'partial' : 'create', body.kind);
  if (current && values.name !== undefined && values.name !== current.name)
    errors.name = ['The name of a custom field cannot change.'];
  if (Object.keys(errors).length) throw new ValidationError(errors);
  const { key: _key, ...base } = current ?? { ...CUSTOM_FIELD_DEFAULTS, key: '' };
  const next = { ...base, ...values } as Omit<CustomFieldDefinition, 'key'>;
  const problems = definitionErrors(next);
  if (Object.keys(problems).length) throw new ValidationError(problems);
  return next;
}

export function customFieldView(def: CustomFieldDefinition) {
  const { key: _key, ...rest } = def;
  return {
    name: rest.name,
    label: rest.label,
    help_text: rest.help_text,
    data_type: rest.data_type,
    max_length: rest.max_length,
    decimal_places: rest.decimal_places,
    empty_selection_list: rest.empty_selection_list,
    list_values: rest.list_values,
    required: rest.required,
    staff_only: rest.staff_only,
    ordering: rest.ordering,
  };
}
