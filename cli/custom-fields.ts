/** The custom field commands: create-custom-field, list-custom-fields. */
import { randomUUID } from 'node:crypto';
import type { customFieldView } from '../shared/domain/admin';
import type { CustomFieldDefinition } from '../shared/domain/custom-fields';
import { command, unlessDuplicate } from './command';
import { domain, jsonBody, validated } from './rules';
import { show, showList, yesNo } from './terminal';

/** How the command line names each field in a refusal. */
const CUSTOM_FIELD_NAMES: Record<string, string> = {
  name: '--name',
  label: '--label',
  help_text: '--help-text',
  data_type: '--type',
  max_length: '--max-length',
  decimal_places: '--decimal-places',
  empty_selection_list: '--empty-selection-list',
  list_values: '--list-values',
  required: '--required',
  staff_only: '--staff-only',
  ordering: '--ordering',
};

export const createCustomField = command({
  name: 'create-custom-field',
  summary: 'create a custom ticket field',
  description:
    'Defines a custom field: tickets then carry it as custom_<name>. A list field needs --list-values; a decimal ' +
    'field needs --decimal-places (and --max-length, total digits, at least that).',
  options: {
    name: { type: 'string', value: 'NAME', help: 'letters, digits, _ and -, at most 50 characters, unique (required)' },
    label: { type: 'string', value: 'LABEL', help: 'label, at most 30 characters (required)' },
    // {DATA_TYPES}: filled in by the help (main.ts), which loads the list only when shown.
    type: { type: 'string', value: 'TYPE', help: 'data type (required): {DATA_TYPES}' },
    required: { type: 'boolean', help: 'tickets must give a value' },
    'max-length': { type: 'string', value: 'N', help: 'varchar/text: maximum characters; decimal: total digits' },
    'decimal-places': { type: 'string', value: 'N', help: 'decimal: digits after the point' },
    'list-values': { type: 'string', value: '"a,b,c"', help: 'list: the choices, comma-separated' },
    'empty-selection-list': { type: 'boolean', help: 'list: an empty value is allowed too' },
    'help-text': { type: 'string', value: 'TEXT', help: 'help text' },
    'staff-only': { type: 'boolean', help: 'shown to staff only' },
    ordering: { type: 'string', value: 'N', help: 'display order (lower first; negative as --ordering=-1)' },
  },
  required: ['name', 'label', 'type'],
  examples: [
    'npm run helpdesk -- create-custom-field --name os --label "Operating system" --type list --list-values ' +
      '"Linux,macOS,Windows"',
    'npm run helpdesk -- create-custom-field --name cost --label Cost --type decimal --max-length 8 --decimal-places 2',
  ],
  prepare(ctx) {
    const o = ctx.options;
    const data: Record<string, unknown> = { name: o.name, label: o.label, data_type: o.type };
    if (o['help-text'] !== undefined) data.help_text = o['help-text'];
    if (o['max-length'] !== undefined) data.max_length = o['max-length'];
    if (o['decimal-places'] !== undefined) data.decimal_places = o['decimal-places'];
    if (o.ordering !== undefined) data.ordering = o.ordering;
    if (o['list-values'] !== undefined) {
      data.list_values = (o['list-values'] as string)
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean);
    }
    for (const [option, field] of [
      ['required', 'required'],
      ['empty-selection-list', 'empty_selection_list'],
      ['staff-only', 'staff_only'],
    ] as const) {
      if (o[option]) data[field] = true;
    }
    const parsed = validated('Invalid custom field', CUSTOM_FIELD_NAMES, () =>
      domain.parseCustomFieldBody(jsonBody(data)),
    );
    const definition: CustomFieldDefinition = { ...parsed, key: randomUUID() };
    return async () => {
      const { saveCustomField, DuplicateFieldName } = await import('../shared/store/custom-fields');
      const duplicate = `Cannot create the custom field: one named "${definition.name}" already exists.`;
      await unlessDuplicate(DuplicateFieldName, duplicate, () => saveCustomField(definition, true));
      show(
        ctx,
        domain.customFieldView(definition),
        `Created custom field "${definition.name}" (${definition.data_type}); ` +
          `tickets carry it as custom_${definition.name}.`,
      );
    };
  },
});

/** The text table's last column: what only some types have. */
function fieldDetails(def: ReturnType<typeof customFieldView>): string {
  const details: string[] = [];
  if (def.max_length != null) details.push(`max_length=${def.max_length}`);
  if (def.decimal_places != null) details.push(`decimal_places=${def.decimal_places}`);
  if (def.list_values.length)
    details.push(`values: ${def.list_values.join(', ')}${def.empty_selection_list ? ' (or empty)' : ''}`);
  return details.join('; ');
}

export const listCustomFields = command({
  name: 'list-custom-fields',
  summary: 'list custom field definitions',
  description: 'Lists every custom field definition, in display order.',
  examples: ['npm run helpdesk -- list-custom-fields'],
  async run(ctx) {
    const { listCustomFields } = await import('../shared/store/custom-fields');
    const defs = domain.sortDefinitions(await listCustomFields({ fresh: true })).map(domain.customFieldView);
    showList(
      ctx,
      defs,
      'No custom fields.',
      ['NAME', 'LABEL', 'TYPE', 'REQUIRED', 'STAFF ONLY', 'ORDERING', 'DETAILS'],
      (d) => [d.name, d.label, d.data_type, yesNo(d.required), yesNo(d.staff_only), d.ordering, fieldDetails(d)],
    );
  },
});
