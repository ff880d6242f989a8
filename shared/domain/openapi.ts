/**
 * The OpenAPI 3.1 document of the API, generated from what the code itself runs on:
 * - paths and methods from the route table (shared/api/routes.ts), each with its permission;
 * - request bodies from the DRF-style field definitions that validate them (fields.ts and the
 *   per-resource field sets), in their JSON, form and multipart variants;
 * - response bodies from the zod shapes (shapes.ts) through `z.toJSONSchema`;
 * - custom fields as `custom_<name>` keys (patternProperties), plus, when the caller passes the
 *   definitions of the deployment, one property per field currently defined.
 *
 * The fields' zod schemas are parsers (unknown in, a transform out), which JSON Schema cannot
 * express (`z.toJSONSchema` refuses transforms): their declared type, choices, bounds and
 * requiredness (the same data OPTIONS reports) give the request schemas instead.
 *
 * A route without an entry in OPERATIONS makes `buildOpenApi` throw (and a unit test fail).
 */
import * as z from 'zod/mini';
import { routes, type Permission, type Route } from '../api/routes';
import { customFieldFields, queueFields } from './admin';
import { attachmentFields } from './attachment';
import { CUSTOM_PREFIX, sortDefinitions, type CustomFieldDefinition, type DataType } from './custom-fields';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_DEPTH, MAX_PAGE_SIZE } from './pagination';
import { SLUG, type Field, type Fields, type Mode } from './fields';
import { followupEditFields, followupFields } from './followup';
import {
  CUSTOM_KEY_PATTERN,
  apiRootShape,
  attachmentPage,
  attachmentShape,
  customFieldPage,
  customFieldShape,
  createdTokenShape,
  deliveryPage,
  deliveryShape,
  tokenPage,
  followupPage,
  followupShape,
  queuePage,
  queueShape,
  shapes,
  ticketPage,
  ticketShape,
  userShape,
  userTicketPage,
  userTicketShape,
  withCustomFields,
} from './shapes';
import { ticketFields } from './ticket';
import { tokenFields, type AuthenticationClass } from './tokens';
import { userFields } from './user';

export type JsonSchema = Record<string, unknown>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type OpenApiDocument = Record<string, any>;

/** A file part of a multipart body. */
interface FilePart {
  name: string;
  required: boolean;
  /** The field name is repeated once per file. */
  repeated?: boolean;
  description: string;
}

interface BodyDoc {
  fields: Fields;
  mode: Mode;
  files?: FilePart[];
  /** The body also takes `custom_<name>` keys (tickets). */
  custom?: boolean;
  /** Only multipart (a required file). */
  multipartOnly?: boolean;
}

interface SuccessDoc {
  status: number;
  description: string;
  /** A zod shape (JSON), or a media type with a plain schema, or nothing (204, 302). */
  shape?: z.core.$ZodType;
  media?: Record<string, JsonSchema>;
  headers?: Record<string, JsonSchema>;
}

export interface OperationDoc {
  summary: string;
  description?: string;
  tag: string;
  success: SuccessDoc;
  body?: BodyDoc;
  /** Takes `page` and `page_size`. */
  paginated?: boolean;
  query?: { name: string; description: string }[];
  /** Error statuses beyond the ones every operation can answer. */
  errors?: number[];
  /** Answers 304 to a matching `If-None-Match`. */
  notModified?: true;
}

const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: 'Makes the POST safe to retry: the same key with the same request within 24 hours answers the first response again (header `Idempotent-Replayed: true`) without doing it twice.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

const TICKET_ETAG: Record<string, JsonSchema> = { ETag: { type: 'string', description: 'Strong ETag of the ticket; send it in If-Match to change only this version.' } };

const json = (shape: z.core.$ZodType, status: number, description: string): SuccessDoc => ({ status, description, shape });
const noContent: SuccessDoc = { status: 204, description: 'Deleted.' };

const TICKET_FILE: FilePart = {
  name: 'attachment',
  required: false,
  description: 'One file, attached to the opening followup. More files go to followups.',
};
const FOLLOWUP_FILES: FilePart = {
  name: 'attachments',
  required: false,
  repeated: true,
  description: 'Any number of files: repeat the field once per file.',
};

/** Everything about an operation that the route table and the shapes do not say, by handler. */
export const OPERATIONS: Record<string, OperationDoc> = {
  'api/root': { tag: 'API', summary: 'Links to the resources', success: json(apiRootShape, 200, 'The resource URLs.') },
  'api/openapi': {
    tag: 'API',
    summary: 'This OpenAPI document',
    description: 'Generated from the route table and the schemas that validate requests and shape responses; includes the custom fields defined now.',
    success: { status: 200, description: 'The OpenAPI 3.1 document.', media: { 'application/json': { type: 'object' } } },
  },
  'api/docs': {
    tag: 'API',
    summary: 'API reference page',
    description: 'An HTML page (Swagger UI, served by this API) that renders /api/openapi.json.',
    success: { status: 200, description: 'The page.', media: { 'text/html': { type: 'string' } } },
  },
  'api/docs-assets': {
    tag: 'API',
    summary: "The reference page's scripts and style sheet",
    success: {
      status: 200,
      description: 'The file (gzip-encoded when the client accepts it).',
      media: { 'text/javascript': { type: 'string' }, 'text/css': { type: 'string' } },
    },
  },
  'tickets/list': {
    tag: 'Tickets',
    summary: 'List tickets with their followups and attachments',
    success: json(ticketPage, 200, 'A page of tickets, oldest first.'),
    paginated: true,
    query: [
      { name: 'status', description: 'Only these states: comma-separated ids or names (`1,2` or `open,reopened`).' },
      {
        name: 'cursor',
        description: `A position in the list, as the \`next\` and \`previous\` links carry it (opaque). Page numbers reach pages that start within ${MAX_PAGE_DEPTH.toLocaleString('en')} tickets of either end of the list (a deeper \`page\` answers 400); past that depth the links carry a cursor instead of a page number. An unknown cursor answers 404.`,
      },
    ],
    errors: [400],
  },
  'tickets/create': {
    tag: 'Tickets',
    summary: 'Create a ticket',
    description:
      'The ticket is always created OPEN (status 1) whatever is sent; resolution, on_hold and merged_to are validated and ignored; priority defaults to 3. An opening followup is created with it. One file may be attached with a multipart body.',
    success: json(ticketShape, 201, 'The created ticket.'),
    body: { fields: ticketFields, mode: 'create', files: [TICKET_FILE], custom: true },
  },
  'tickets/get': {
    tag: 'Tickets',
    summary: 'Get a ticket',
    description: 'With `If-None-Match` naming the current ETag, answers 304 without a body.',
    success: { ...json(ticketShape, 200, 'The ticket.'), headers: TICKET_ETAG },
    notModified: true,
  },
  'tickets/replace': {
    tag: 'Tickets',
    summary: 'Replace a ticket (every required field)',
    success: { ...json(ticketShape, 200, 'The updated ticket.'), headers: TICKET_ETAG },
    body: { fields: ticketFields, mode: 'replace', custom: true },
    errors: [412],
  },
  'tickets/update': {
    tag: 'Tickets',
    summary: 'Update some fields of a ticket',
    success: { ...json(ticketShape, 200, 'The updated ticket.'), headers: TICKET_ETAG },
    body: { fields: ticketFields, mode: 'partial', custom: true },
    errors: [412],
  },
  'tickets/delete': {
    tag: 'Tickets',
    summary: 'Delete a ticket',
    description: 'Also deletes its followups, attachments and files, and the tickets merged into it.',
    success: noContent,
    errors: [412],
  },
  'attachments/download': {
    tag: 'Attachments',
    summary: "Download an attachment's file",
    success: {
      status: 302,
      description: 'A redirect to a short-lived download link.',
      headers: { Location: { type: 'string', format: 'uri' } },
    },
  },
  'followups/list': {
    tag: 'Followups',
    summary: 'List followups',
    success: json(followupPage, 200, 'A page of followups, by date.'),
    paginated: true,
  },
  'followups/create': {
    tag: 'Followups',
    summary: 'Create a followup on a ticket',
    description: 'A `new_status` other than the ticket\'s changes the ticket\'s status (and resolution when resolved or closed).',
    success: json(followupShape, 201, 'The created followup.'),
    body: { fields: followupFields, mode: 'create', files: [FOLLOWUP_FILES] },
  },
  'followups/get': { tag: 'Followups', summary: 'Get a followup', success: json(followupShape, 200, 'The followup.') },
  'followups/replace': {
    tag: 'Followups',
    summary: 'Replace a followup',
    success: json(followupShape, 200, 'The updated followup.'),
    body: { fields: followupEditFields, mode: 'replace' },
  },
  'followups/update': {
    tag: 'Followups',
    summary: 'Update some fields of a followup',
    success: json(followupShape, 200, 'The updated followup.'),
    body: { fields: followupEditFields, mode: 'partial' },
  },
  'followups/delete': { tag: 'Followups', summary: 'Delete a followup and its attachments', success: noContent },
  'attachments/list': {
    tag: 'Attachments',
    summary: 'List followup attachments',
    success: json(attachmentPage, 200, 'A page of attachments, by file name.'),
    paginated: true,
  },
  'attachments/create': {
    tag: 'Attachments',
    summary: 'Attach a file to a followup',
    description: '`filename`, `mime_type` and `size` default to the upload\'s name, the type guessed from it and its byte count.',
    success: json(attachmentShape, 201, 'The attachment record.'),
    body: {
      fields: attachmentFields,
      mode: 'create',
      files: [{ name: 'file', required: true, description: 'The file.' }],
      multipartOnly: true,
    },
  },
  'attachments/get': { tag: 'Attachments', summary: 'Get an attachment record', success: json(attachmentShape, 200, 'The attachment record.') },
  'attachments/delete': { tag: 'Attachments', summary: 'Delete an attachment and its file', success: noContent },
  'users/create': {
    tag: 'Users',
    summary: 'Create a user',
    description: 'An active user without staff rights.',
    success: json(userShape, 201, 'The created user, without the password.'),
    body: { fields: userFields, mode: 'create' },
  },
  'user-tickets/list': {
    tag: 'User tickets',
    summary: "The caller's own tickets",
    description: 'Tickets whose submitter e-mail is the caller\'s, newest first.',
    success: json(userTicketPage, 200, 'A page of tickets.'),
    paginated: true,
  },
  'user-tickets/get': { tag: 'User tickets', summary: "One of the caller's own tickets", success: json(userTicketShape, 200, 'The ticket.') },
  'queues/list': { tag: 'Queues', summary: 'List queues', success: json(queuePage, 200, 'A page of queues.'), paginated: true },
  'queues/create': {
    tag: 'Queues',
    summary: 'Create a queue',
    success: json(queueShape, 201, 'The created queue.'),
    body: { fields: queueFields, mode: 'create' },
  },
  'queues/get': { tag: 'Queues', summary: 'Get a queue', success: json(queueShape, 200, 'The queue.') },
  'queues/update': {
    tag: 'Queues',
    summary: 'Update a queue',
    success: json(queueShape, 200, 'The updated queue.'),
    body: { fields: queueFields, mode: 'partial' },
  },
  'queues/delete': { tag: 'Queues', summary: 'Delete an unused queue', success: noContent, errors: [409] },
  'custom-fields/list': {
    tag: 'Custom fields',
    summary: 'List custom field definitions',
    success: json(customFieldPage, 200, 'A page of definitions, in display order.'),
    paginated: true,
  },
  'custom-fields/create': {
    tag: 'Custom fields',
    summary: 'Define a custom field',
    success: json(customFieldShape, 201, 'The definition.'),
    body: { fields: customFieldFields, mode: 'create' },
  },
  'custom-fields/get': { tag: 'Custom fields', summary: 'Get a custom field definition', success: json(customFieldShape, 200, 'The definition.') },
  'custom-fields/update': {
    tag: 'Custom fields',
    summary: 'Change a custom field definition (not its name)',
    success: json(customFieldShape, 200, 'The definition.'),
    body: { fields: customFieldFields, mode: 'partial' },
  },
  'custom-fields/delete': { tag: 'Custom fields', summary: 'Delete a custom field definition', success: noContent },
  'tokens/list': {
    tag: 'API tokens',
    summary: 'List API tokens',
    description: "Staff see their own tokens, superusers everyone's. Keys are never shown again.",
    success: json(tokenPage, 200, 'A page of tokens.'),
    paginated: true,
  },
  'tokens/create': {
    tag: 'API tokens',
    summary: 'Create an API token',
    description: 'For the caller, or (superusers) for the user named in `user`. Use it as `Authorization: Token <key>` where token authentication is enabled.',
    success: json(createdTokenShape, 201, 'The token, with its key (shown only now).'),
    body: { fields: tokenFields, mode: 'create' },
  },
  'tokens/revoke': { tag: 'API tokens', summary: 'Revoke an API token', success: { status: 204, description: 'Revoked.' } },
  'webhook-deliveries/list': {
    tag: 'Webhooks',
    summary: 'The webhook delivery log, newest first',
    description: 'Cursor pagination: follow `next`. Records expire 30 days after their event.',
    success: json(deliveryPage, 200, 'A page of deliveries.'),
    query: [
      { name: 'cursor', description: 'Where the page starts (from a `next` link).' },
      { name: 'page_size', description: `Deliveries per page (default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE}).` },
    ],
  },
  'webhook-deliveries/get': { tag: 'Webhooks', summary: 'One webhook delivery', success: json(deliveryShape, 200, 'The delivery.') },
  'webhook-deliveries/redeliver': {
    tag: 'Webhooks',
    summary: 'Send a delivery again',
    description: 'A new round of attempts with the same `webhook-id` and body.',
    success: json(deliveryShape, 202, 'The delivery, queued.'),
  },
};

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request: field errors, or a body that could not be parsed.',
  401: 'No or invalid credentials.',
  403: 'The user may not do this, or a browser sent this write from another site (Sec-Fetch-Site, Origin), or (behind the optional edge) the request did not come through it.',
  404: 'Not found (or the API is switched off).',
  406: 'The `Accept` header allows no JSON.',
  409: 'The resource is in use; or a request with the same Idempotency-Key is still running, or succeeded with an answer holding a secret shown only once.',
  422: 'The Idempotency-Key was used before with a different request.',
  412: 'The `If-Match` ETag is not the current version of the ticket: read it again.',
  413: 'The body is too large (4 MiB at most).',
  415: 'The body is of an unsupported media type.',
  429: 'Too many failed logins for this username: wait `Retry-After` seconds.',
  500: 'An unexpected server error (logged; the body shows no internals).',
  503: 'A storage service is briefly unavailable: retry.',
};

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
const idOf = (shape: z.core.$ZodType): string => {
  const meta = shapes.get(shape);
  if (!meta) throw new Error('A response shape is not registered in shapes.ts');
  return meta.id;
};

function withNull(schema: JsonSchema, nullable: boolean): JsonSchema {
  if (!nullable) return schema;
  if (Array.isArray(schema.enum)) return { ...schema, enum: [...(schema.enum as unknown[]), null] };
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

/** The JSON Schema of one DRF-style field, from what it declares (type, choices, bounds). */
export function fieldJsonSchema(field: Field): JsonSchema {
  const { meta, constraints = {} } = field;
  const bounds = Object.fromEntries(Object.entries(constraints).filter(([, v]) => v !== undefined));
  let schema: JsonSchema;
  switch (meta.type) {
    case 'string':
      schema = { type: 'string', ...bounds };
      break;
    case 'email':
      schema = { type: 'string', format: 'email' };
      break;
    case 'boolean':
      schema = { type: 'boolean' };
      break;
    case 'choice': {
      const choices = meta.choices ?? [];
      schema = {
        enum: choices.map((c) => c.value),
        description: choices.map((c) => `${String(c.value)}: ${c.display_name}`).join(', '),
      };
      break;
    }
    case 'field':
      schema = { type: 'integer', description: 'The id of the record.' };
      break;
    case 'datetime':
      schema = { type: 'string', format: 'date-time' };
      break;
    case 'duration':
      schema = { type: ['string', 'number'], description: 'A duration: `"[D ]HH:MM:SS[.ffffff]"`, ISO 8601 (`P1DT2H`), or seconds.' };
      break;
    case 'integer':
      schema = { type: 'integer', ...bounds };
      break;
    case 'list':
      schema = { type: 'array', items: { type: 'string' } };
      break;
    default:
      throw new Error(`No JSON Schema for field type ${meta.type}`);
  }
  if (meta.max_length !== undefined) schema.maxLength = meta.max_length;
  return withNull(schema, field.nullable);
}

/** The JSON Schema of a custom field's value in a request, per its data type. */
function customValueSchema(def: CustomFieldDefinition): JsonSchema {
  const byType: Record<DataType, JsonSchema> = {
    varchar: { type: 'string', ...(def.max_length != null ? { maxLength: def.max_length } : {}) },
    text: { type: 'string', ...(def.max_length != null ? { maxLength: def.max_length } : {}) },
    integer: { type: 'integer' },
    decimal: { type: ['string', 'number'], description: `At most ${def.max_length ?? '?'} digits, ${def.decimal_places ?? 0} after the point.` },
    list: { enum: [...def.list_values, ...(def.empty_selection_list ? [''] : [])] },
    boolean: { type: 'boolean' },
    date: { type: 'string', format: 'date' },
    time: { type: 'string', format: 'time' },
    datetime: { type: 'string', format: 'date-time' },
    email: { type: 'string', format: 'email' },
    url: { type: 'string', format: 'uri' },
    ipaddress: { type: 'string', description: 'An IPv4 or IPv6 address.' },
    slug: { type: 'string', pattern: SLUG.pattern.source },
  };
  const description = [def.label, def.help_text].filter(Boolean).join(': ');
  const schema = byType[def.data_type];
  return { ...schema, description: [description, schema.description].filter(Boolean).join(' ') };
}

/** How a ticket shows a custom field's value: numbers and booleans as such, the rest as text. */
function customViewSchema(def: CustomFieldDefinition): JsonSchema {
  const type = def.data_type === 'integer' ? 'integer' : def.data_type === 'boolean' ? 'boolean' : 'string';
  return { type: [type, 'null'], description: def.label };
}

const ANY_CUSTOM_VALUE: JsonSchema = {
  type: ['string', 'number', 'boolean', 'null'],
  description: 'The value of a custom field (`custom_<name>`): its type is the field\'s (see /api/custom-fields).',
};

function bodySchema(body: BodyDoc, defs: CustomFieldDefinition[], withFiles: boolean): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, field] of Object.entries(body.fields)) {
    properties[name] = fieldJsonSchema(field);
    if (field.required && body.mode !== 'partial') required.push(name);
  }
  if (withFiles) {
    for (const file of body.files ?? []) {
      const binary = { type: 'string', contentMediaType: 'application/octet-stream' };
      properties[file.name] = { ...(file.repeated ? { type: 'array', items: binary } : binary), description: file.description };
      if (file.required) required.push(file.name);
    }
  }
  const schema: JsonSchema = { type: 'object', properties };
  if (body.custom) {
    for (const def of sortDefinitions(defs)) {
      properties[`${CUSTOM_PREFIX}${def.name}`] = customValueSchema(def);
      if (def.required && body.mode !== 'partial') required.push(`${CUSTOM_PREFIX}${def.name}`);
    }
    schema.patternProperties = { [CUSTOM_KEY_PATTERN]: { ...ANY_CUSTOM_VALUE, description: 'A custom field; a name that is not defined is an error.' } };
  }
  if (required.length) schema.required = required;
  return schema;
}

function requestBody(body: BodyDoc, defs: CustomFieldDefinition[]): JsonSchema {
  const content: Record<string, JsonSchema> = {};
  if (!body.multipartOnly) {
    content['application/json'] = { schema: bodySchema(body, defs, false) };
    content['application/x-www-form-urlencoded'] = { schema: bodySchema(body, defs, false) };
  }
  content['multipart/form-data'] = { schema: bodySchema(body, defs, true) };
  const notes = body.files?.length
    ? ` Files only in multipart/form-data: ${body.files.map((f) => `\`${f.name}\``).join(', ')}.`
    : '';
  return {
    required: true,
    description: `Fields as JSON, a form, or multipart form data (form values are text: \`"3"\`, \`"true"\`).${notes}`,
    content,
  };
}

function pathParameters(path: string): JsonSchema[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: name === 'name' ? { type: 'string' } : name === 'asset' ? { type: 'string' } : { type: 'integer', minimum: 1 },
  }));
}

const PAGE_PARAMETERS: JsonSchema[] = [
  { name: 'page', in: 'query', required: false, description: 'Page number (from 1), or `last`.', schema: { type: 'string' } },
  {
    name: 'page_size',
    in: 'query',
    required: false,
    description: `Items per page (default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE}).`,
    schema: { type: 'integer', minimum: 1 },
  },
];

const errorResponse = (status: number): JsonSchema => {
  const schema = status === 400 ? { anyOf: [ref('FieldErrors'), ref('ErrorDetail')] } : ref('ErrorDetail');
  const headers =
    status === 401
      ? { 'WWW-Authenticate': { description: 'The challenge of the first configured scheme: `Basic realm="api"` or `Token`.', schema: { type: 'string' } } }
      : status === 503 || status === 429
        ? { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'string' } } }
        : undefined;
  return { description: ERROR_DESCRIPTIONS[status], ...(headers ? { headers } : {}), content: { 'application/json': { schema } } };
};

/** The error statuses an operation can answer: the chain's (auth, permission, ...) and its own. */
export function errorStatuses(route: Route, doc: OperationDoc): number[] {
  // 429: a username locked after failed logins; 500: a fault of ours (logged, no internals shown).
  const statuses = new Set<number>([401, 404, 429, 500, 503, ...(doc.errors ?? [])]);
  // 403: a permission, a write a browser sent from another site (shared/domain/cross-origin.ts), and
  // behind the edge any request that went around it (shared/middleware/origin.ts).
  statuses.add(403);
  if (route.negotiatesJson !== false) statuses.add(406);
  if (doc.paginated) statuses.add(404);
  if (doc.body) [400, 413, 415].forEach((s) => statuses.add(s));
  // Idempotency-Key (shared/middleware/idempotency.ts): malformed, in use, reused differently.
  if (route.method === 'POST') [400, 409, 422].forEach((s) => statuses.add(s));
  return [...statuses].sort((a, b) => a - b);
}

const PERMISSION_NOTE: Record<Permission, string> = {
  authenticated: 'Any active user.',
  staff: 'Staff users only.',
  superuser: 'Superusers only.',
};

function operation(route: Route, defs: CustomFieldDefinition[]): JsonSchema {
  const doc = OPERATIONS[route.handler];
  if (!doc) throw new Error(`No OpenAPI description for ${route.method} ${route.path} (${route.handler}): add it to OPERATIONS`);
  const { success } = doc;
  const responses: Record<string, JsonSchema> = {};
  const content = success.shape
    ? { 'application/json': { schema: ref(idOf(success.shape)) } }
    : success.media
      ? Object.fromEntries(Object.entries(success.media).map(([type, schema]) => [type, { schema }]))
      : undefined;
  const headers = success.headers
    ? Object.fromEntries(Object.entries(success.headers).map(([name, schema]) => [name, { schema }]))
    : undefined;
  responses[String(success.status)] = { description: success.description, ...(headers ? { headers } : {}), ...(content ? { content } : {}) };
  if (doc.notModified) responses['304'] = { description: 'Not modified: the `If-None-Match` ETag is current.', headers: { ETag: { schema: TICKET_ETAG.ETag } } };
  for (const status of errorStatuses(route, doc)) responses[String(status)] = errorResponse(status);
  const parameters = [
    ...pathParameters(route.path),
    ...(doc.paginated ? PAGE_PARAMETERS : []),
    ...(doc.query ?? []).map((q) => ({ name: q.name, in: 'query', required: false, description: q.description, schema: { type: 'string' } })),
    ...(route.method === 'POST' ? [IDEMPOTENCY_KEY] : []),
  ];
  return {
    operationId: route.handler.replace(/[/-](\w)/g, (_, c: string) => c.toUpperCase()),
    tags: [doc.tag],
    summary: doc.summary,
    description: [doc.description, PERMISSION_NOTE[route.permission]].filter(Boolean).join('\n\n'),
    ...(parameters.length ? { parameters } : {}),
    ...(doc.body ? { requestBody: requestBody(doc.body, defs) } : {}),
    responses,
  };
}

/** OPTIONS on every path (answered by the fallback function): DRF's description of the route. */
function optionsOperation(path: string): JsonSchema {
  const responses: Record<string, JsonSchema> = {
    '200': { description: 'What the route renders and parses, and its writable fields.', content: { 'application/json': { schema: ref('RouteDescription') } } },
    '204': {
      description: 'A CORS preflight (`Origin` and `Access-Control-Request-Method` sent), when CORS is on: answered before authentication, no body.',
      headers: Object.fromEntries(['Access-Control-Allow-Origin', 'Access-Control-Allow-Methods', 'Access-Control-Allow-Headers', 'Access-Control-Max-Age'].map((h) => [h, { schema: { type: 'string' } }])),
    },
  };
  for (const status of [401, 403, 404, 406, 503]) responses[String(status)] = errorResponse(status);
  return {
    operationId: `describe${path.replace(/[^A-Za-z0-9]+(\w)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
    tags: ['API'],
    summary: 'Describe this route',
    ...(pathParameters(path).length ? { parameters: pathParameters(path) } : {}),
    responses,
  };
}

/** The component schemas: the zod shapes, with the custom field keys added where tickets carry them. */
function componentSchemas(defs: CustomFieldDefinition[]): Record<string, JsonSchema> {
  const generated = z.toJSONSchema(shapes, { target: 'draft-2020-12', uri: (id) => `#/components/schemas/${id}` }).schemas as Record<string, JsonSchema>;
  const schemas: Record<string, JsonSchema> = {};
  for (const [id, { $schema: _schema, $id: _id, ...schema }] of Object.entries(generated)) schemas[id] = schema;
  for (const shape of withCustomFields) {
    const schema = schemas[idOf(shape)]!;
    const properties = schema.properties as Record<string, JsonSchema>;
    for (const def of sortDefinitions(defs)) properties[`${CUSTOM_PREFIX}${def.name}`] = customViewSchema(def);
    schema.patternProperties = { [CUSTOM_KEY_PATTERN]: ANY_CUSTOM_VALUE };
  }
  return schemas;
}

/**
 * The path of a route in the document: resources as upstream writes them, with the trailing slash
 * (both forms work); the document and its page without, as files.
 */
export function documentPath(routePath: string): string {
  return routePath === '/api/openapi.json' || routePath.startsWith('/api/docs') ? routePath : `${routePath}/`;
}

export interface OpenApiOptions {
  /** The custom fields defined now: each becomes a property of tickets and ticket bodies. */
  customFields?: CustomFieldDefinition[];
  /** HELPDESK_AUTHENTICATION_CLASSES, in the order they are tried (default: Basic only). */
  authenticationClasses?: readonly AuthenticationClass[];
}

const SECURITY_SCHEMES: Record<AuthenticationClass, { name: string; scheme: JsonSchema; says: string }> = {
  basic: { name: 'basicAuth', scheme: { type: 'http', scheme: 'basic' }, says: 'HTTP Basic (`Authorization: Basic <base64 of username:password>`)' },
  token: {
    name: 'tokenAuth',
    scheme: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'An API token (POST /api/tokens/), sent as `Token <key>`.' },
    says: 'an API token (`Authorization: Token <key>`)',
  },
};

/** The whole document. Pure: the same inputs give the same document. */
export function buildOpenApi(options: OpenApiOptions = {}): OpenApiDocument {
  const defs = options.customFields ?? [];
  const schemes = (options.authenticationClasses ?? ['basic']).map((name) => SECURITY_SCHEMES[name]);
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    if (route.method === 'ANY') continue;
    const key = documentPath(route.path);
    (paths[key] ??= {})[route.method.toLowerCase()] = operation(route, defs);
  }
  for (const route of routes) {
    const item = paths[documentPath(route.path)]!;
    item.options ??= optionsOperation(route.path);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Helpdesk API',
      version: '1',
      description: [
        'A REST API for support tickets, compatible on the wire with django-helpdesk\'s API.',
        `Every request needs ${schemes.map((s) => s.says).join(', or ')}. Paths answer with and without the trailing slash; every GET also answers HEAD.`,
        'Errors: `{"detail": "message"}`, or for validation (400) `{"<field>": ["message", ...]}`. Before any operation, the HTTP server itself may answer 400 (a request it cannot parse, such as an unknown method) or 431 (headers too large), with a `{"detail"}` body.',
        'Tickets carry one `custom_<name>` key per custom field defined by the operator (/api/custom-fields/); this document lists the ones defined when it was served.',
      ].join('\n\n'),
    },
    security: schemes.map((s) => ({ [s.name]: [] })),
    tags: [...new Set(Object.values(OPERATIONS).map((doc) => doc.tag))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: Object.fromEntries(schemes.map((s) => [s.name, s.scheme])),
      schemas: componentSchemas(defs),
    },
  };
}
