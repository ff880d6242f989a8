/**
 * The OpenAPI document's last step, light enough for the function that serves it: a template (the
 * document without anything that depends on the deployment, built by openapi.ts from the route table
 * and the zod shapes) completed with the custom fields defined now and the authentication schemes
 * configured. The openapi function's bundle carries the template built at bundling time
 * (infra/bundling.ts), not the route table and the JSON Schema generator.
 */
import { CUSTOM_PREFIX, sortDefinitions, type CustomFieldDefinition, type DataType } from '../domain/custom-fields';
import { SLUG } from '../domain/fields';
import type { AuthenticationClass } from '../domain/tokens';
import type { JsonSchema } from './routes';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type OpenApiDocument = Record<string, any>;

/** What openapi.ts builds once: the document's parts that no deployment changes. */
export interface OpenApiTemplate {
  tags: JsonSchema[];
  paths: Record<string, Record<string, JsonSchema>>;
  /** What receivers are posted (the document's `webhooks`). */
  webhooks: Record<string, JsonSchema>;
  /** The error answers, by name (`components.responses`). */
  responses: Record<string, JsonSchema>;
  schemas: Record<string, JsonSchema>;
  /** The operations whose request bodies take custom fields, and whether a required one is required there. */
  customBodies: { path: string; method: string; partial: boolean }[];
  /** The component schemas that show custom fields. */
  customShapes: string[];
}

export interface OpenApiOptions {
  /** The custom fields defined now: each becomes a property of tickets and ticket bodies. */
  customFields?: CustomFieldDefinition[];
  /** HELPDESK_AUTHENTICATION_CLASSES, in the order they are tried (default: Basic only). */
  authenticationClasses?: readonly AuthenticationClass[];
}

/** The JSON Schema of a custom field's value in a request, per its data type. */
function customValueSchema(def: CustomFieldDefinition): JsonSchema {
  const byType: Record<DataType, JsonSchema> = {
    varchar: { type: 'string', ...(def.max_length != null ? { maxLength: def.max_length } : {}) },
    text: { type: 'string', ...(def.max_length != null ? { maxLength: def.max_length } : {}) },
    integer: { type: 'integer' },
    decimal: {
      type: ['string', 'number'],
      description: `At most ${def.max_length ?? '?'} digits, ${def.decimal_places ?? 0} after the point.`,
    },
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

/** A value of a custom field for the examples of bodies that require it. */
function customExampleValue(def: CustomFieldDefinition): unknown {
  const byType: Record<DataType, unknown> = {
    varchar: 'text',
    text: 'text',
    integer: 1,
    decimal: '1.5',
    list: def.list_values[0] ?? '',
    boolean: true,
    date: '2026-01-02',
    time: '12:00:00',
    datetime: '2026-01-02T12:00:00Z',
    email: 'someone@example.com',
    url: 'https://example.com/',
    ipaddress: '192.0.2.1',
    slug: 'a-slug',
  };
  return byType[def.data_type];
}

/** How a ticket shows a custom field's value: numbers and booleans as such, the rest as text. */
function customViewSchema(def: CustomFieldDefinition): JsonSchema {
  const type = def.data_type === 'integer' ? 'integer' : def.data_type === 'boolean' ? 'boolean' : 'string';
  return { type: [type, 'null'], description: def.label };
}

const SECURITY_SCHEMES: Record<AuthenticationClass, { name: string; scheme: JsonSchema; says: string }> = {
  basic: {
    name: 'basicAuth',
    scheme: { type: 'http', scheme: 'basic' },
    says: 'HTTP Basic (`Authorization: Basic <base64 of username:password>`)',
  },
  token: {
    name: 'tokenAuth',
    scheme: {
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
      description: 'An API token (POST /api/tokens/), sent as `Token <key>`.',
    },
    says: 'an API token (`Authorization: Token <key>`)',
  },
  oidc: {
    name: 'oidcBearer',
    scheme: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description:
        "An OpenID Connect token (JWT) from the deployment's issuer, for its audience, signed with an asymmetric " +
        'key. A refusal is 401 with `WWW-Authenticate: Bearer error="invalid_token", ' +
        'error_description="..."`.',
    },
    says: 'an OpenID Connect bearer token (`Authorization: Bearer <JWT>`)',
  },
};

/** The whole document from its template (which it leaves as it is). Pure: the same inputs give the same document. */
export function finishOpenApi(template: OpenApiTemplate, options: OpenApiOptions = {}): OpenApiDocument {
  const defs = sortDefinitions(options.customFields ?? []);
  const schemes = (options.authenticationClasses ?? ['basic']).map((name) => SECURITY_SCHEMES[name]);
  const { paths, schemas } = structuredClone({ paths: template.paths, schemas: template.schemas });
  if (defs.length) {
    // Request bodies: one property per field after the declared ones (and the files), required after theirs.
    for (const { path, method, partial } of template.customBodies) {
      const body = paths[path]![method]!.requestBody as { content: Record<string, { schema: JsonSchema }> };
      for (const media of Object.values(body.content) as {
        schema: JsonSchema;
        examples?: Record<string, { value: Record<string, unknown> }>;
      }[]) {
        const properties = media.schema.properties as Record<string, JsonSchema>;
        const required = (media.schema.required as string[] | undefined) ?? [];
        for (const def of defs) {
          properties[`${CUSTOM_PREFIX}${def.name}`] = customValueSchema(def);
          if (!def.required || partial) continue;
          required.push(`${CUSTOM_PREFIX}${def.name}`);
          // The examples stay valid bodies of this deployment.
          for (const example of Object.values(media.examples ?? {}))
            example.value[`${CUSTOM_PREFIX}${def.name}`] = customExampleValue(def);
        }
        if (required.length) media.schema.required = required;
      }
    }
    for (const id of template.customShapes) {
      const properties = schemas[id]!.properties as Record<string, JsonSchema>;
      for (const def of defs) properties[`${CUSTOM_PREFIX}${def.name}`] = customViewSchema(def);
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Helpdesk API',
      version: '1',
      license: { name: 'MIT', identifier: 'MIT' },
      description: [
        "A REST API for support tickets, compatible on the wire with django-helpdesk's API.",
        `Every request needs ${schemes.map((s) => s.says).join(', or ')}. Paths answer with and without the trailing ` +
          `slash; every GET also ` +
          `answers HEAD.`,
        'Errors: `{"detail": "message"}`, or for validation (400) `{"<field>": ["message", ...]}`. ' +
          'Before any operation, the HTTP server itself may answer 400 (a request it cannot parse, such as an ' +
          'unknown method) or 431 (headers too large), with a `{"detail"}` body.',
        'Tickets carry one `custom_<name>` key per custom field defined by the operator (/api/custom-fields/); ' +
          'this document lists the ones defined when it was served.',
      ].join('\n\n'),
    },
    // Relative: the host that serves this document (the spec resolves a relative server URL against
    // the document's own address). The local runtime and each deployment (its API Gateway address,
    // its domain, the edge's) answer at hosts of their own and the document is built without a
    // request, so this one URL is true wherever it is served; the paths carry the `/api` prefix.
    // A client generated from a saved copy needs its base URL given (some generators take `/` for
    // http://localhost).
    servers: [{ url: '/', description: 'The host that serves this document.' }],
    security: schemes.map((s) => ({ [s.name]: [] })),
    tags: structuredClone(template.tags),
    paths,
    webhooks: structuredClone(template.webhooks),
    components: {
      securitySchemes: Object.fromEntries(schemes.map((s) => [s.name, s.scheme])),
      responses: structuredClone(template.responses),
      schemas,
    },
  };
}
