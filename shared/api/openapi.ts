/**
 * The OpenAPI 3.1 document of the API, generated from what the code itself runs on:
 * - paths and methods from the route table (shared/api/routes.ts), each with its permission;
 * - request bodies from the DRF-style field definitions that validate them (fields.ts and the
 *   per-resource field sets), in their JSON, form and multipart variants;
 * - summaries, tags and the rest from each route's `doc`;
 * - response bodies from the zod shapes (shapes.ts) through `z.toJSONSchema`;
 * - custom fields as `custom_<name>` keys: one property per field defined when the document is
 *   served (openapi-document.ts), and in response shapes a `propertyNames` rule that lets validators
 *   accept any `custom_` key while generated types stay closed (no index signature: a misspelled
 *   field does not compile; docs/api.md);
 * - errors as named responses (`components.responses`), one per status, and the webhook payloads as
 *   the document's `webhooks`, so that generated clients and receivers are typed.
 *
 * The fields' zod schemas are parsers (unknown in, a transform out), which JSON Schema cannot
 * express (`z.toJSONSchema` refuses transforms): their declared type, choices, bounds and
 * requiredness (the same data OPTIONS reports) give the request schemas instead.
 *
 * A route without a `doc` makes `buildOpenApi` throw (and a unit test fail).
 */
import * as z from 'zod/mini';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../domain/pagination';
import { MAX_TEXT_PARAM, SLUG, type Field } from '../domain/fields';
import { MAX_FIELD_NAME_LENGTH } from '../domain/admin';
import { MAIL_KINDS } from '../domain/mail-settings';
import { LAMBDA_RESPONSE_LIMIT_BYTES } from './function-limits';
import { EVENT_TYPES } from '../domain/events';
import { QUEUE_DELETE_REFUSALS } from '../domain/queue-delete';
import { CUSTOM_KEY_PATTERN, FIELD_ERRORS_EXCLUDE, shapes, withCustomFields, type ShapeId } from '../domain/shapes';
import {
  CHANGE_EVENT_EXAMPLE,
  answersCanBeLarge,
  routes,
  TAGS,
  TICKET_ETAG,
  type BodyDoc,
  type Examples,
  type JsonSchema,
  type OperationDoc,
  type Permission,
  type Route,
  type Tag,
} from './routes';

import { finishOpenApi, type OpenApiDocument, type OpenApiOptions, type OpenApiTemplate } from './openapi-document';

export type { JsonSchema, OpenApiDocument, OpenApiOptions };

const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes the POST safe to retry: the same key with the same request within 24 hours answers the first response ' +
    'again (header `Idempotent-Replayed: true`) without doing it twice.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request: field errors, or a body that could not be parsed.',
  401: 'No or invalid credentials.',
  403:
    'The user may not do this, or a browser sent this write from another site (Sec-Fetch-Site, Origin), or ' +
    '(behind the optional edge) the request did not come through it.',
  404: 'Not found (or the API is switched off).',
  406: 'The `Accept` header allows no JSON.',
  409:
    'The resource is in use; or a request with the same Idempotency-Key is still running, or succeeded with an ' +
    'answer holding a secret shown only once.',
  422: 'The Idempotency-Key was used before with a different request.',
  412: 'The `If-Match` ETag is not the current version of the ticket: read it again.',
  413: 'The body is too large (4 MiB at most).',
  415: 'The body is of an unsupported media type.',
  429: 'Too many failed logins for this username: wait `Retry-After` seconds.',
  500: 'An unexpected server error (logged; the body shows no internals).',
  503: 'A storage service is briefly unavailable: retry.',
};

const ref = (id: ShapeId) => ({ $ref: `#/components/schemas/${id}` });
const idOf = (shape: z.core.$ZodType): ShapeId => {
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
      schema = { enum: choices.map((c) => c.value) };
      // Choices without labels of their own ("1: 1, 2: 2") say nothing more than the enum.
      const labelled = choices.filter((c) => c.display_name !== String(c.value));
      if (labelled.length) schema.description = labelled.map((c) => `${String(c.value)}: ${c.display_name}`).join(', ');
      break;
    }
    case 'field':
      schema = { type: 'integer', description: 'The id of the record.' };
      break;
    case 'datetime':
      schema = { type: 'string', format: 'date-time' };
      break;
    case 'duration':
      schema = {
        type: ['string', 'number'],
        description: 'A duration: `"[D ]HH:MM:SS[.ffffff]"`, ISO 8601 (`P1DT2H`), or seconds.',
      };
      break;
    case 'integer':
      schema = { type: 'integer', ...bounds };
      break;
    case 'list':
      schema = {
        type: 'array',
        items: meta.choices ? { enum: meta.choices.map((c) => c.value) } : { type: meta.child?.type ?? 'string' },
      };
      break;
    case 'url':
      schema = { type: 'string', format: 'uri' };
      break;
    default:
      throw new Error(`No JSON Schema for field type ${meta.type}`);
  }
  if (meta.max_length !== undefined) schema.maxLength = meta.max_length;
  return withNull(schema, field.nullable);
}

/**
 * A file part of a multipart body: `contentMediaType` without `type`, which openapi-typescript types
 * as `unknown` (so a `File` or `Blob` type-checks) and @hey-api/openapi-ts as `Blob | File`;
 * `type: string` (with `format: binary` or not) would make both of them `string`.
 */
const FILE_PART: JsonSchema = { contentMediaType: 'application/octet-stream' };

function bodySchema(body: BodyDoc, withFiles: boolean): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, field] of Object.entries(body.fields)) {
    properties[name] = fieldJsonSchema(field);
    const note = body.fieldNotes?.[name];
    if (note) properties[name] = { ...properties[name], description: note };
    if (field.required && body.mode !== 'partial') required.push(name);
  }
  if (withFiles) {
    for (const file of body.files ?? []) {
      properties[file.name] = {
        ...(file.repeated ? { type: 'array', items: FILE_PART } : FILE_PART),
        description: file.description,
      };
      if (file.required) required.push(file.name);
    }
  }
  // No patternProperties for `custom_<name>`: generators would give the body an index signature, and
  // a misspelled field would compile. The custom fields defined now are added as properties after
  // these (openapi-document.ts); the body's description says how the others are sent.
  const schema: JsonSchema = { type: 'object', properties };
  if (required.length) schema.required = required;
  return schema;
}

const CUSTOM_BODY_NOTE =
  ' Custom fields as `custom_<name>` keys: the document served lists each field defined when it was served ' +
  '(regenerate a client after defining one); a name not defined is a 400.';

function requestBody(body: BodyDoc): JsonSchema {
  const content: Record<string, JsonSchema> = {};
  const files = body.files ?? [];
  if (!body.multipartOnly) {
    content['application/json'] = { schema: bodySchema(body, false), ...examplesOf(body.examples?.json) };
    content['application/x-www-form-urlencoded'] = { schema: bodySchema(body, false) };
  }
  content['multipart/form-data'] = {
    schema: bodySchema(body, true),
    // Each file part is sent as the file's own type (the part's Content-Type is what is stored).
    ...(files.length
      ? { encoding: Object.fromEntries(files.map((f) => [f.name, { contentType: 'application/octet-stream, */*' }])) }
      : {}),
    ...examplesOf(body.examples?.multipart),
  };
  const notes = files.length
    ? ` Files only in multipart/form-data: ${files.map((f) => `\`${f.name}\``).join(', ')}.`
    : '';
  return {
    required: true,
    description:
      `Fields as JSON, a form, or multipart form data (form values are text: \`"3"\`, ` +
      `\`"true"\`).${notes}${body.custom ? CUSTOM_BODY_NOTE : ''}${body.note ? ` ${body.note}` : ''}`,
    content,
  };
}

/** A media type's named `examples`, as the docs page offers them. */
const examplesOf = (examples: Examples | undefined): JsonSchema => (examples ? { examples } : {});

/**
 * Path parameters are record ids (integers) but for these: names and file names, mail kinds, addresses, the mail
 * problems' ids, and the string ids of webhook subscriptions (`sub_…`, `env_…`) and deliveries (`msg_…`), by the path
 * they are in.
 */
const STRING_PATH_PARAMETERS: Record<string, JsonSchema> = {
  '/api/custom-fields/{name}': { type: 'string', maxLength: MAX_FIELD_NAME_LENGTH, pattern: SLUG.pattern.source },
  '/api/docs/{asset}': { type: 'string' },
  '/api/mail/templates/{kind}': { type: 'string', enum: [...MAIL_KINDS] },
  '/api/mail/suppressions/{address}': { type: 'string', maxLength: MAX_TEXT_PARAM },
  '/api/mail/problems/{id}': { type: 'string', maxLength: MAX_TEXT_PARAM },
  '/api/webhooks/{id}': { type: 'string', pattern: '^(sub|env)_' },
  '/api/webhook-deliveries/{id}': { type: 'string', pattern: '^msg_' },
};

function pathParameters(path: string): JsonSchema[] {
  const stringId = Object.entries(STRING_PATH_PARAMETERS).find(([prefix]) => path.startsWith(prefix))?.[1];
  return [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: stringId ?? { type: 'integer', minimum: 1 },
  }));
}

const PAGE_PARAMETERS: JsonSchema[] = [
  {
    name: 'page',
    in: 'query',
    required: false,
    description: 'Page number (from 1), or `last`. Past the last page: 404 `{"detail": "Invalid page."}`.',
    schema: {
      anyOf: [
        { type: 'integer', minimum: 1 },
        { type: 'string', enum: ['last'] },
      ],
    },
  },
  {
    name: 'page_size',
    in: 'query',
    required: false,
    // Upstream's (DRF's) rule: an invalid size is ignored, not refused; so no minimum or maximum here.
    description:
      `Items per page: default ${DEFAULT_PAGE_SIZE}; more than ${MAX_PAGE_SIZE} counts as ${MAX_PAGE_SIZE}; ` +
      `0, a negative number or a non-number is ignored ` +
      `(the default applies), ` +
      `as upstream.`,
    schema: { type: 'integer' },
  },
];

/** Conditional request headers (tickets): what their ETag answers are for. */
const etagHeader = (name: string, outcome: string) => ({
  name,
  in: 'header',
  required: false,
  description: `The ticket's ETag from an earlier answer: ${outcome}.`,
  schema: { type: 'string' },
});
const IF_MATCH = etagHeader('If-Match', 'the change is made only if the ticket is still that version, else 412');
const IF_NONE_MATCH = etagHeader('If-None-Match', '304 without a body if it is still current');

/**
 * The error answers, one named response per status (`components.responses`): generated clients get
 * one type per status (hey-api's `<Operation>Errors[404]`, openapi-typescript's
 * `components["responses"]["NotFound"]`), and the docs page shows an example of each.
 */
const ERROR_RESPONSES: Record<number, { name: string; examples: Examples }> = {
  400: {
    name: 'BadRequest',
    examples: {
      fields: {
        summary: 'Field errors',
        value: { title: ['This field is required.'], priority: ['"9" is not a valid choice.'] },
      },
      description: {
        summary: 'An empty `description`: reported under `body`, as upstream',
        value: { body: ['This field is required.'] },
      },
      files: {
        summary: 'A repeated file field: messages by file index',
        value: { attachments: { '1': ['The submitted file is empty.'] } },
      },
      unparsed: {
        summary: 'A body that could not be parsed',
        value: { detail: 'JSON parse error - Unexpected end of JSON input' },
      },
    },
  },
  401: {
    name: 'Unauthorized',
    examples: {
      missing: { summary: 'No credentials', value: { detail: 'Authentication credentials were not provided.' } },
    },
  },
  403: {
    name: 'Forbidden',
    examples: {
      permission: { summary: 'Not allowed', value: { detail: 'You do not have permission to perform this action.' } },
    },
  },
  404: {
    name: 'NotFound',
    examples: {
      missing: { summary: 'No such record', value: { detail: 'Not found.' } },
      page: { summary: 'Past the last page', value: { detail: 'Invalid page.' } },
    },
  },
  406: {
    name: 'NotAcceptable',
    examples: {
      accept: { summary: 'No JSON accepted', value: { detail: 'Could not satisfy the request Accept header.' } },
    },
  },
  409: {
    name: 'Conflict',
    examples: {
      inUse: { summary: 'A queue in use', value: { detail: QUEUE_DELETE_REFUSALS.inUse } },
      filling: { summary: 'Tickets on their way into a queue', value: { detail: QUEUE_DELETE_REFUSALS.filling } },
      beingDeleted: {
        summary: 'A queue another request is deleting',
        value: { detail: QUEUE_DELETE_REFUSALS.beingDeleted },
      },
    },
  },
  412: {
    name: 'PreconditionFailed',
    examples: {
      changed: {
        summary: 'Changed since',
        value: { detail: 'Precondition failed: the ticket has changed since the given ETag.' },
      },
    },
  },
  413: {
    name: 'ContentTooLarge',
    examples: { large: { summary: 'Too large', value: { detail: 'Request body too large.' } } },
  },
  415: {
    name: 'UnsupportedMediaType',
    examples: {
      type: {
        summary: 'Not JSON, a form or multipart',
        value: { detail: 'Unsupported media type "text/plain" in request.' },
      },
    },
  },
  422: {
    name: 'UnprocessableContent',
    examples: {
      reused: {
        summary: 'Key reused',
        value: { detail: 'This Idempotency-Key was already used with a different request.' },
      },
    },
  },
  429: {
    name: 'TooManyRequests',
    examples: {
      locked: {
        summary: 'Locked after failed logins',
        value: { detail: 'Too many failed login attempts. Try again later.' },
      },
    },
  },
  500: {
    name: 'InternalServerError',
    examples: { fault: { summary: 'A fault of ours', value: { detail: 'A server error occurred.' } } },
  },
  503: {
    name: 'ServiceUnavailable',
    examples: {
      busy: { summary: 'Storage busy', value: { detail: 'Service temporarily unavailable, try again later.' } },
    },
  },
};

function errorResponse(status: number): JsonSchema {
  // FieldErrors cannot have a `detail` key (shapes.ts), so `"detail" in error` tells the two apart.
  const schema = status === 400 ? { anyOf: [ref('FieldErrors'), ref('ErrorDetail')] } : ref('ErrorDetail');
  const headers =
    status === 401
      ? {
          'WWW-Authenticate': {
            description: 'The challenge of the first configured scheme: `Basic realm="api"` or `Token`.',
            schema: { type: 'string' },
          },
        }
      : status === 503 || status === 429
        ? { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'string' } } }
        : undefined;
  return {
    description: ERROR_DESCRIPTIONS[status],
    ...(headers ? { headers } : {}),
    content: { 'application/json': { schema, examples: ERROR_RESPONSES[status]!.examples } },
  };
}

const errorRef = (status: number) => ({ $ref: `#/components/responses/${ERROR_RESPONSES[status]!.name}` });

/**
 * The 303 of an answer too large for a function to return (shared/middleware/large-answers.ts), on every operation
 * whose answer can be (routes.ts answersCanBeLarge).
 */
const LARGE_ANSWER = {
  description:
    'The answer is larger than an AWS Lambda function may return ' +
    `(${LAMBDA_RESPONSE_LIMIT_BYTES.toLocaleString('en')} bytes: a ticket with long followups, or a page of them): ` +
    '`Location` is a short-lived link to the very answer, parked in private storage, which needs no credentials. ' +
    'HTTP clients follow it with a GET by default (fetch and requests do not send `Authorization` on to another ' +
    'host); the body says why.',
  headers: { Location: { schema: { type: 'string', format: 'uri' } } },
  content: {
    'application/json': {
      schema: ref('ErrorDetail'),
      example: {
        detail:
          'The answer is 6512400 bytes, more than a function may return ' +
          `(${LAMBDA_RESPONSE_LIMIT_BYTES}): it is at the Location, a link valid for 300 seconds.`,
      },
    },
  },
};

/** `components.responses`: each error status's answer, and the 303 of a large answer. */
export function errorResponses(): Record<string, JsonSchema> {
  return {
    ...Object.fromEntries(
      Object.entries(ERROR_RESPONSES).map(([status, { name }]) => [name, errorResponse(Number(status))]),
    ),
    LargeAnswer: LARGE_ANSWER,
  };
}

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

function operation(route: Route): JsonSchema {
  const doc = route.doc;
  if (!doc)
    throw new Error(
      `No OpenAPI description for ${route.method} ${route.path} (${route.handler}): give its route a doc`,
    );
  const { success } = doc;
  const responses: Record<string, JsonSchema> = {};
  const content = success.shape
    ? { 'application/json': { schema: ref(success.shape), ...(success.example ? { example: success.example } : {}) } }
    : success.media
      ? Object.fromEntries(Object.entries(success.media).map(([type, schema]) => [type, { schema }]))
      : undefined;
  const headers = success.headers
    ? Object.fromEntries(Object.entries(success.headers).map(([name, schema]) => [name, { schema }]))
    : undefined;
  responses[String(success.status)] = {
    description: success.description,
    ...(headers ? { headers } : {}),
    ...(content ? { content } : {}),
  };
  if (doc.notModified)
    responses['304'] = {
      description: 'Not modified: the `If-None-Match` ETag is current.',
      headers: { ETag: { schema: TICKET_ETAG.ETag } },
    };
  if (answersCanBeLarge(route)) responses['303'] = { $ref: '#/components/responses/LargeAnswer' };
  for (const status of errorStatuses(route, doc)) responses[String(status)] = errorRef(status);
  const parameters = [
    ...pathParameters(route.path),
    ...(doc.paginated ? PAGE_PARAMETERS : []),
    ...(doc.query ?? []).map((q) => ({
      name: q.name,
      in: 'query',
      required: false,
      description: q.description,
      schema: q.schema ?? { type: 'string' },
      ...(q.example !== undefined ? { example: q.example } : {}),
    })),
    ...(route.method === 'POST' ? [IDEMPOTENCY_KEY] : []),
    // The ticket's conditional requests: a write that can answer 412 takes If-Match; a read that can answer 304,
    // If-None-Match.
    ...(doc.errors?.includes(412) ? [IF_MATCH] : []),
    ...(doc.notModified ? [IF_NONE_MATCH] : []),
  ];
  return {
    operationId: route.handler.replace(/[/-](\w)/g, (_, c: string) => c.toUpperCase()),
    tags: [doc.tag],
    summary: doc.summary,
    description: [doc.description, PERMISSION_NOTE[route.permission]].filter(Boolean).join('\n\n'),
    ...(parameters.length ? { parameters } : {}),
    ...(doc.body ? { requestBody: requestBody(doc.body) } : {}),
    responses,
  };
}

/**
 * OPTIONS (answered by the fallback function on every path): DRF's description of the route. The
 * document shows it once, on /api/, rather than on each of the ~40 paths, where every generated SDK
 * would get a function for it; the description says it is the same everywhere.
 */
const OPTIONS_ERRORS = [401, 403, 404, 406, 503];
/** The path that shows OPTIONS. */
export const OPTIONS_PATH = '/api';

function optionsOperation(): JsonSchema {
  const responses: Record<string, JsonSchema> = {
    '200': {
      description: 'What the route renders and parses, and its writable fields.',
      content: { 'application/json': { schema: ref('RouteDescription') } },
    },
    '204': {
      description:
        'A CORS preflight (`Origin` and `Access-Control-Request-Method` sent), when CORS is on: answered before ' +
        'authentication, no body.',
      headers: Object.fromEntries(
        [
          'Access-Control-Allow-Origin',
          'Access-Control-Allow-Methods',
          'Access-Control-Allow-Headers',
          'Access-Control-Max-Age',
        ].map((h) => [h, { schema: { type: 'string' } }]),
      ),
    },
  };
  for (const status of OPTIONS_ERRORS) responses[String(status)] = errorRef(status);
  return {
    operationId: 'describeRoute',
    tags: ['API' satisfies Tag],
    summary: 'Describe a route (OPTIONS on any path)',
    description:
      'Every path answers OPTIONS with its description: the name, media types and (for POST and PUT) the ' +
      'writable fields, as Django REST framework does. Shown here once for /api/; send OPTIONS to any path of ' +
      'this document the same way.',
    responses,
  };
}

/** The component schemas: the zod shapes, with the custom field keys allowed where tickets carry them. */
function componentSchemas(): Record<string, JsonSchema> {
  const generated = z.toJSONSchema(shapes, { target: 'draft-2020-12', uri: (id) => `#/components/schemas/${id}` })
    .schemas as Record<string, JsonSchema>;
  const schemas: Record<string, JsonSchema> = {};
  for (const [id, { $schema: _schema, $id: _id, ...schema }] of Object.entries(generated)) schemas[id] = schema;
  for (const shape of withCustomFields) {
    // Closed for generators, open to `custom_<name>` keys for validators: `propertyNames` (which
    // generators ignore) instead of `additionalProperties: false` plus `patternProperties` (which
    // they turn into an index signature that lets any misspelled key compile). The fields defined
    // when the document is served are its properties (openapi-document.ts).
    const schema = schemas[idOf(shape)]!;
    delete schema.additionalProperties;
    schema.propertyNames = {
      anyOf: [{ enum: Object.keys(schema.properties as object) }, { pattern: CUSTOM_KEY_PATTERN }],
    };
    schema.description = [schema.description, CUSTOM_SHAPE_NOTE].filter((part) => typeof part === 'string').join(' ');
  }
  // `false`: openapi-typescript types it `detail?: never`, so a `detail` check tells FieldErrors from ErrorDetail.
  schemas.FieldErrors!.properties = { [FIELD_ERRORS_EXCLUDE]: false };
  return schemas;
}

const CUSTOM_SHAPE_NOTE =
  'Custom fields are `custom_<name>` keys: the document served lists each field defined when it was served as a ' +
  'property (regenerate a client after defining one); any `custom_` key is valid.';

/**
 * The document's `webhooks`: what a receiver is posted, one entry per event type (subscriptions), the
 * ping, and upstream's two payloads (the environment's receivers). Generators type them as they
 * type operations (openapi-typescript's `webhooks` interface), so receivers can be typed too.
 */
function webhookOperations(): Record<string, JsonSchema> {
  const signed =
    'Signed as Standard Webhooks say: headers `webhook-id`, `webhook-timestamp` (seconds) and ' +
    '`webhook-signature` (`v1,<base64 HMAC-SHA256>`); verify before trusting the body.';
  const post = (
    summary: string,
    description: string,
    shape: ShapeId,
    operationId: string,
    example?: unknown,
  ): JsonSchema => ({
    post: {
      operationId,
      summary,
      description: `${description} ${signed}`,
      tags: ['Webhooks' satisfies Tag],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: ref(shape), ...(example ? { example } : {}) } },
      },
      responses: {
        '2XX': {
          description:
            'Received: any 2xx counts as delivered (deduplicate by `webhook-id`: delivery is at least once).',
        },
        default: { description: 'Anything else is retried on the schedule (not for a ping).' },
      },
      security: [],
    },
  });
  const camel = (type: string) => type.replace(/[._](\w)/g, (_, c: string) => c.toUpperCase());
  return {
    ...Object.fromEntries(
      EVENT_TYPES.map((type) => {
        const example =
          type === CHANGE_EVENT_EXAMPLE.event
            ? { type, timestamp: CHANGE_EVENT_EXAMPLE.created, data: CHANGE_EVENT_EXAMPLE }
            : undefined;
        return [
          type,
          post(
            `A \`${type}\` event`,
            `Posted to each subscription to \`${type}\`, with \`"type": "${type}"\`.`,
            'WebhookEventPayload',
            camel(type),
            example,
          ),
        ];
      }),
    ),
    'webhook.ping': post(
      'A test event',
      'Posted by `POST /api/webhooks/{id}/ping`; not retried and not in the delivery log.',
      'WebhookPingPayload',
      'webhookPing',
      {
        type: 'webhook.ping',
        timestamp: '2026-11-25T12:00:00.250000Z',
        data: { subscription: 'sub_mi2vsq0w3a9f1c6e7b2d405812' },
      },
    ),
    'new-ticket': post(
      "Upstream's new-ticket webhook",
      'Posted to each URL of `HELPDESK_NEW_TICKET_WEBHOOK_URLS` when a ticket is created.',
      'NewTicketWebhookPayload',
      'newTicket',
    ),
    'new-followup': post(
      "Upstream's new-followup webhook",
      'Posted to each URL of `HELPDESK_FOLLOWUP_WEBHOOK_URLS` when a followup is created.',
      'NewFollowupWebhookPayload',
      'newFollowup',
    ),
  };
}

/**
 * The path of a route in the document: resources as upstream writes them, with the trailing slash
 * (both forms work); the document and its page without, as files.
 */
export function documentPath(routePath: string): string {
  return routePath === '/api/openapi.json' || routePath.startsWith('/api/docs') ? routePath : `${routePath}/`;
}

/**
 * The document's parts that no deployment changes (finishOpenApi adds the custom fields and the
 * authentication schemes). Throws for a route without a `doc` or with a shape shapes.ts lacks.
 */
export function openApiTemplate(): OpenApiTemplate {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const customBodies: OpenApiTemplate['customBodies'] = [];
  for (const route of routes) {
    if (route.method === 'ANY') continue;
    const key = documentPath(route.path);
    const method = route.method.toLowerCase();
    (paths[key] ??= {})[method] = operation(route);
    const body = route.doc?.body;
    if (body?.custom) customBodies.push({ path: key, method, partial: body.mode === 'partial' });
  }
  paths[documentPath(OPTIONS_PATH)]!.options = optionsOperation();
  const schemas = componentSchemas();
  for (const route of routes) {
    const shape = route.doc?.success.shape;
    if (shape && !schemas[shape])
      throw new Error(`${route.handler} answers the shape ${shape}, which shapes.ts does not register`);
  }
  return {
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    webhooks: webhookOperations(),
    responses: errorResponses(),
    schemas,
    customBodies,
    customShapes: [...withCustomFields].map(idOf),
  };
}

/** The whole document. Pure: the same inputs give the same document. */
export function buildOpenApi(options: OpenApiOptions = {}): OpenApiDocument {
  return finishOpenApi(openApiTemplate(), options);
}
