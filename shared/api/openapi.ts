/**
 * The OpenAPI 3.1 document of the API, generated from what the code itself runs on:
 * - paths and methods from the route table (shared/api/routes.ts), each with its permission;
 * - request bodies from the DRF-style field definitions that validate them (fields.ts and the
 *   per-resource field sets), in their JSON, form and multipart variants;
 * - summaries, tags and the rest from each route's `doc`;
 * - response bodies from the zod shapes (shapes.ts) through `z.toJSONSchema`;
 * - custom fields as `custom_<name>` keys (patternProperties), plus, when the caller passes the
 *   definitions of the deployment, one property per field currently defined.
 *
 * The fields' zod schemas are parsers (unknown in, a transform out), which JSON Schema cannot
 * express (`z.toJSONSchema` refuses transforms): their declared type, choices, bounds and
 * requiredness (the same data OPTIONS reports) give the request schemas instead.
 *
 * A route without a `doc` makes `buildOpenApi` throw (and a unit test fail).
 */
import * as z from 'zod/mini';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../domain/pagination';
import type { Field } from '../domain/fields';
import { CUSTOM_KEY_PATTERN, shapes, withCustomFields, type ShapeId } from '../domain/shapes';
import { routes, TAGS, TICKET_ETAG, type BodyDoc, type JsonSchema, type OperationDoc, type Permission, type Route, type Tag } from './routes';

import { finishOpenApi, type OpenApiDocument, type OpenApiOptions, type OpenApiTemplate } from './openapi-document';

export type { JsonSchema, OpenApiDocument, OpenApiOptions };

const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: 'Makes the POST safe to retry: the same key with the same request within 24 hours answers the first response again (header `Idempotent-Replayed: true`) without doing it twice.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
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
      schema = { type: 'array', items: meta.choices ? { enum: meta.choices.map((c) => c.value) } : { type: 'string' } };
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

const ANY_CUSTOM_VALUE: JsonSchema = {
  type: ['string', 'number', 'boolean', 'null'],
  description: 'The value of a custom field (`custom_<name>`): its type is the field\'s (see /api/custom-fields).',
};

function bodySchema(body: BodyDoc, withFiles: boolean): JsonSchema {
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
  // The custom fields defined now are added after these (openapi-document.ts).
  if (body.custom) {
    schema.patternProperties = { [CUSTOM_KEY_PATTERN]: { ...ANY_CUSTOM_VALUE, description: 'A custom field; a name that is not defined is an error.' } };
  }
  if (required.length) schema.required = required;
  return schema;
}

function requestBody(body: BodyDoc): JsonSchema {
  const content: Record<string, JsonSchema> = {};
  if (!body.multipartOnly) {
    content['application/json'] = { schema: bodySchema(body, false), ...(body.example ? { example: body.example } : {}) };
    content['application/x-www-form-urlencoded'] = { schema: bodySchema(body, false) };
  }
  content['multipart/form-data'] = { schema: bodySchema(body, true) };
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

function operation(route: Route): JsonSchema {
  const doc = route.doc;
  if (!doc) throw new Error(`No OpenAPI description for ${route.method} ${route.path} (${route.handler}): give its route a doc`);
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
  responses[String(success.status)] = { description: success.description, ...(headers ? { headers } : {}), ...(content ? { content } : {}) };
  if (doc.notModified) responses['304'] = { description: 'Not modified: the `If-None-Match` ETag is current.', headers: { ETag: { schema: TICKET_ETAG.ETag } } };
  for (const status of errorStatuses(route, doc)) responses[String(status)] = errorResponse(status);
  const parameters = [
    ...pathParameters(route.path),
    ...(doc.paginated ? PAGE_PARAMETERS : []),
    ...(doc.query ?? []).map((q) => ({ name: q.name, in: 'query', required: false, description: q.description, schema: { type: 'string' }, ...(q.example ? { example: q.example } : {}) })),
    ...(route.method === 'POST' ? [IDEMPOTENCY_KEY] : []),
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
    tags: ['API' satisfies Tag],
    summary: 'Describe this route',
    ...(pathParameters(path).length ? { parameters: pathParameters(path) } : {}),
    responses,
  };
}

/** The component schemas: the zod shapes, with the custom field keys allowed where tickets carry them. */
function componentSchemas(): Record<string, JsonSchema> {
  const generated = z.toJSONSchema(shapes, { target: 'draft-2020-12', uri: (id) => `#/components/schemas/${id}` }).schemas as Record<string, JsonSchema>;
  const schemas: Record<string, JsonSchema> = {};
  for (const [id, { $schema: _schema, $id: _id, ...schema }] of Object.entries(generated)) schemas[id] = schema;
  for (const shape of withCustomFields) {
    const schema = schemas[idOf(shape)]!;
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
  for (const route of routes) {
    const item = paths[documentPath(route.path)]!;
    item.options ??= optionsOperation(route.path);
  }
  const schemas = componentSchemas();
  for (const route of routes) {
    const shape = route.doc?.success.shape;
    if (shape && !schemas[shape]) throw new Error(`${route.handler} answers the shape ${shape}, which shapes.ts does not register`);
  }
  return {
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    schemas,
    customBodies,
    customShapes: [...withCustomFields].map(idOf),
  };
}

/** The whole document. Pure: the same inputs give the same document. */
export function buildOpenApi(options: OpenApiOptions = {}): OpenApiDocument {
  return finishOpenApi(openApiTemplate(), options);
}
