/**
 * Checks an API response against the OpenAPI document (shared/api/openapi.ts): its status must
 * be one the operation documents, and a JSON body must validate against that response's schema
 * (ajv, JSON Schema draft 2020-12, the dialect of OpenAPI 3.1). Used on every response of the
 * integration suite (tests/integration/openapi-setup.ts).
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { matchRoutes } from '../shared/api/routes';
import { buildOpenApi, documentPath, OPTIONS_PATH, type OpenApiDocument } from '../shared/api/openapi';

/** The generic document (no custom field defined): tickets' `custom_*` keys are patternProperties. */
export const OPENAPI: OpenApiDocument = buildOpenApi();

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema(OPENAPI, 'openapi.json', undefined, false);

const validators = new Map<string, ValidateFunction>();
const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

function validatorAt(ref: string): ValidateFunction {
  let validate = validators.get(ref);
  if (!validate) {
    validate = ajv.compile({ $ref: ref });
    validators.set(ref, validate);
  }
  return validate;
}

export interface CheckedResponse {
  method: string;
  url: string;
  status: number;
  contentType: string | null;
  text: string;
  body: unknown;
}

/** What no operation documents: a method the path does not have (405 after auth and permission). */
const UNDOCUMENTED_METHOD = new Set([401, 403, 404, 405, 406]);
/** Methods an OpenAPI path item can have; the HTTP server refuses others (400) before any route. */
const OPENAPI_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** Problems of one response, empty when it matches the document. */
export function checkResponse(r: CheckedResponse): string[] {
  const { pathname } = new URL(r.url);
  const method = r.method.toUpperCase() === 'HEAD' ? 'get' : r.method.toLowerCase();
  const what = `${r.method.toUpperCase()} ${pathname} -> ${r.status}`;
  const match = matchRoutes(pathname);
  const mediaType = (r.contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const detailOnly = (statuses: Set<number>): string[] => {
    if (!statuses.has(r.status)) return [`${what}: status not documented`];
    if (r.method.toUpperCase() === 'HEAD') return [];
    const validate = validatorAt('openapi.json#/components/schemas/ErrorDetail');
    return validate(r.body) ? [] : [`${what}: body is not {"detail": string}: ${r.text.slice(0, 200)}`];
  };
  // The server's own answers before any operation (the document's description states them): 431
  // for any request, 400 for a method it cannot parse (one no OpenAPI path item can have).
  if (r.status === 431) return detailOnly(new Set([431]));
  const parserMay = OPENAPI_METHODS.has(method) ? [] : [400];
  // A CORS preflight is answered for any path, as API Gateway does (documented on each OPTIONS).
  if (method === 'options' && r.status === 204) return r.text === '' ? [] : [`${what}: a preflight with a body`];
  // Unknown paths: 404 before authentication (any method).
  if (!match) return detailOnly(new Set([404, ...parserMay]));
  // OPTIONS is the same on every path: the document shows it once, on /api/.
  const docPath = documentPath(method === 'options' ? OPTIONS_PATH : match.path);
  const operation = OPENAPI_METHODS.has(method) ? OPENAPI.paths[docPath]?.[method] : undefined;
  if (!operation) return detailOnly(new Set([...UNDOCUMENTED_METHOD, ...parserMay]));
  const documented = operation.responses[String(r.status)];
  const listed = Object.keys(operation.responses).join(', ');
  if (!documented)
    return [`${what}: status not documented for ${method.toUpperCase()} ${docPath} (documented: ${listed})`];
  // Errors are named responses (components.responses), referred to by $ref.
  const named = typeof documented.$ref === 'string' ? (documented.$ref as string).split('/').pop()! : undefined;
  const response = named ? OPENAPI.components.responses[named] : documented;
  if (r.method.toUpperCase() === 'HEAD') return [];
  const content = response.content as Record<string, unknown> | undefined;
  if (!content) return r.text === '' ? [] : [`${what}: documented without a body, got ${r.text.slice(0, 100)}`];
  if (!content[mediaType])
    return [`${what}: Content-Type ${mediaType || '(none)'} not documented (${Object.keys(content).join(', ')})`];
  if (mediaType !== 'application/json') return [];
  const at = named
    ? pointer('', 'components', 'responses', named)
    : pointer('', 'paths', docPath, method, 'responses', String(r.status));
  const validate = validatorAt(`openapi.json#${at}/content/application~1json/schema`);
  if (validate(r.body)) return [];
  const errors = (validate.errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
  return [`${what}: body does not match the document: ${errors.join('; ')}`];
}
