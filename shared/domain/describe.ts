/**
 * OPTIONS answers, as DRF's SimpleMetadata: the route's name, what it renders and parses, and for
 * POST/PUT each writable field's type, whether it is required, its label and choices. Custom
 * fields are included where tickets take them.
 */
import { sortDefinitions, CUSTOM_PREFIX, type CustomFieldDefinition, type DataType } from './custom-fields';
import type { Field, Fields } from './fields';
import { ticketFields } from './ticket';
import { followupEditFields, followupFields } from './followup';
import { userFields } from './user';
import { attachmentFields } from './attachment';
import { customFieldFields, queueFields } from './admin';
import { ticketCcFields } from './mail-settings';
import { tokenFields } from './tokens';
import { rotationFields, subscriptionFields } from './subscriptions';

type Description = Record<string, unknown>;

const label = (name: string) => (name[0]!.toUpperCase() + name.slice(1)).replace(/_/g, ' ');

function describeField(name: string, field: Field, required = field.required): Description {
  // DRF's key order: type, required, read_only, label, then the rest (max_length, choices).
  const { type, ...rest } = field.meta;
  return { type, required, read_only: false, label: label(name), ...rest };
}

function describeFields(fields: Fields, extra: Record<string, Description> = {}): Description {
  const out: Description = {};
  for (const [name, field] of Object.entries(fields)) out[name] = describeField(name, field);
  return { ...out, ...extra };
}

const CUSTOM_TYPES: Record<DataType, string> = {
  varchar: 'string',
  text: 'string',
  integer: 'integer',
  decimal: 'decimal',
  list: 'choice',
  boolean: 'boolean',
  date: 'date',
  time: 'time',
  datetime: 'datetime',
  email: 'email',
  url: 'url',
  ipaddress: 'string',
  slug: 'slug',
};

function describeCustom(defs: CustomFieldDefinition[]): Record<string, Description> {
  const out: Record<string, Description> = {};
  for (const def of sortDefinitions(defs)) {
    out[`${CUSTOM_PREFIX}${def.name}`] = {
      type: CUSTOM_TYPES[def.data_type],
      required: def.required,
      read_only: false,
      label: def.label,
      ...(def.help_text ? { help_text: def.help_text } : {}),
      ...(def.max_length != null && def.data_type !== 'decimal' ? { max_length: def.max_length } : {}),
      ...(def.data_type === 'list' ? { choices: def.list_values.map((v) => ({ value: v, display_name: v })) } : {}),
    };
  }
  return out;
}

const file = (name: string, required: boolean) => ({
  type: 'file upload',
  required,
  read_only: false,
  label: label(name),
});

/** Writable fields per route path and method, for the routes that take a body. */
function actionsFor(path: string, defs: CustomFieldDefinition[]): Description | undefined {
  const custom = describeCustom(defs);
  switch (path) {
    case '/api/tickets':
      return { POST: describeFields(ticketFields, { attachment: file('attachment', false), ...custom }) };
    case '/api/tickets/{id}':
      return { PUT: describeFields(ticketFields, custom) };
    case '/api/followups':
      return {
        POST: describeFields(followupFields, {
          attachments: { ...file('attachments', false), type: 'list', child: file('file', true) },
        }),
      };
    case '/api/followups/{id}':
      return { PUT: describeFields({ ...followupEditFields, ticket: followupEditFields.ticket }) };
    case '/api/followups-attachments':
      return {
        POST: {
          followup: describeField('followup', attachmentFields.followup),
          file: file('file', true),
          ...describeFields({
            filename: attachmentFields.filename,
            mime_type: attachmentFields.mime_type,
            size: attachmentFields.size,
          }),
        },
      };
    case '/api/users':
      return { POST: describeFields(userFields) };
    case '/api/queues':
      return { POST: describeFields(queueFields) };
    case '/api/tokens':
      return { POST: describeFields(tokenFields) };
    case '/api/tickets/{id}/cc':
      return { POST: describeFields(ticketCcFields) };
    case '/api/custom-fields':
      return { POST: describeFields(customFieldFields) };
    case '/api/webhooks':
      return { POST: describeFields(subscriptionFields) };
    case '/api/webhooks/{id}/rotate-secret':
      return { POST: describeFields(rotationFields) };
    default:
      return undefined;
  }
}

const NAMES: Record<string, string> = {
  '/api': 'Api Root',
  '/api/openapi.json': 'OpenAPI Document',
  '/api/docs': 'API Reference',
  '/api/docs/{asset}': 'API Reference File',
  '/api/tickets': 'Ticket List',
  '/api/tickets/{id}': 'Ticket Instance',
  '/api/tickets/{id}/attachments/{attachmentId}': 'Attachment Download',
  '/api/followups': 'Follow Up List',
  '/api/followups/{id}': 'Follow Up Instance',
  '/api/followups-attachments': 'Follow Up Attachment List',
  '/api/followups-attachments/{id}': 'Follow Up Attachment Instance',
  '/api/users': 'User List',
  '/api/user_tickets': 'User Ticket List',
  '/api/user_tickets/{id}': 'User Ticket Instance',
  '/api/tokens': 'Token List',
  '/api/tokens/{id}': 'Token Instance',
  '/api/tickets/{id}/cc': 'Ticket CC List',
  '/api/tickets/{id}/cc/{ccId}': 'Ticket CC Instance',
  '/api/mail/suppressions': 'Suppression List',
  '/api/mail/templates': 'Mail Template List',
  '/api/mail/templates/{kind}': 'Mail Template Instance',
  '/api/mail/suppressions/{address}': 'Suppression Instance',
  '/api/mail/problems': 'Mail Problem List',
  '/api/mail/problems/{id}/release': 'Mail Problem Release',
  '/api/queues': 'Queue List',
  '/api/queues/{id}': 'Queue Instance',
  '/api/custom-fields': 'Custom Field List',
  '/api/custom-fields/{name}': 'Custom Field Instance',
  '/api/webhooks': 'Webhook Subscription List',
  '/api/webhooks/{id}': 'Webhook Subscription Instance',
  '/api/webhooks/{id}/rotate-secret': 'Webhook Subscription Rotate Secret',
  '/api/webhooks/{id}/ping': 'Webhook Subscription Ping',
};

export function describeRoute(path: string, defs: CustomFieldDefinition[]): Description {
  const actions = actionsFor(path, defs);
  return {
    name: NAMES[path] ?? path,
    description: '',
    renders: ['application/json'],
    parses: ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'],
    ...(actions ? { actions } : {}),
  };
}
