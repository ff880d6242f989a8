import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { routes } from '../../shared/api/routes';
import type { CustomFieldDefinition } from '../../shared/domain/custom-fields';
import { idField, integerField, choiceField, textField } from '../../shared/domain/fields';
import { buildOpenApi, documentPath, fieldJsonSchema } from '../../shared/api/openapi';
import { customFieldView, queueView } from '../../shared/domain/admin';
import { QUEUE_MAIL_DEFAULTS } from '../../shared/domain/mail-settings';
import { describeRoute } from '../../shared/domain/describe';
import { ticketView } from '../../shared/domain/views';
import { checkResponse } from '../openapi-check';
import type { Json } from '../json';
import { ticketRecord } from './fixtures';
import { EVENT_TYPES } from '../../shared/domain/events';

const DEF: CustomFieldDefinition = {
  name: 'colour',
  key: 'k1',
  label: 'Colour',
  help_text: 'Pick one',
  data_type: 'list',
  max_length: null,
  decimal_places: null,
  empty_selection_list: false,
  list_values: ['red', 'blue'],
  required: true,
  staff_only: false,
  ordering: 1,
};

const doc = buildOpenApi();
const withDef = buildOpenApi({ customFields: [DEF] });
const ajv = new Ajv2020({ strict: false, validateFormats: false });
ajv.addSchema(doc, 'openapi.json', undefined, false);
const component = (id: string) => ajv.compile({ $ref: `openapi.json#/components/schemas/${id}` });

describe('the route table and the document', () => {
  it('every route has a description (a new route without one fails here, as buildOpenApi does)', () => {
    for (const route of routes) expect(route.doc, `${route.method} ${route.path}: give it a doc`).toBeDefined();
    expect(() => buildOpenApi()).not.toThrow();
  });

  it(
    'has one operation per route, and OPTIONS once (on /api/, not on every path, which would clutter generated ' +
      'SDKs)',
    () => {
      const operations = Object.values(doc.paths).flatMap((item) =>
        Object.keys(item as object).filter((m) => m !== 'options'),
      );
      expect(operations).toHaveLength(routes.length);
      for (const route of routes) {
        const item = doc.paths[documentPath(route.path)];
        expect(item[route.method.toLowerCase()], `${route.method} ${route.path}`).toBeDefined();
      }
      const withOptions = Object.entries(doc.paths)
        .filter(([, item]) => 'options' in (item as object))
        .map(([path]) => path);
      expect(withOptions).toEqual(['/api/']);
      expect(doc.paths['/api/'].options.responses['200'].content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/RouteDescription',
      });
    },
  );

  it('is a valid OpenAPI 3.1 document, with and without custom fields', async () => {
    for (const d of [doc, withDef]) {
      const validator = new Validator();
      const result = await validator.validate(d);
      expect(result.errors ?? []).toEqual([]);
      expect(validator.version).toBe('3.1');
    }
  });

  it('every schema in it compiles as JSON Schema 2020-12', () => {
    // Formats are annotations in 2020-12; without ajv-formats Ajv would warn about each one.
    const strict = new Ajv2020({ strict: false, validateFormats: false });
    strict.addSchema(withDef, 'doc.json', undefined, false);
    for (const id of Object.keys(withDef.components.schemas))
      expect(() => strict.compile({ $ref: `doc.json#/components/schemas/${id}` }), id).not.toThrow();
    for (const [path, item] of Object.entries(withDef.paths)) {
      for (const [method, op] of Object.entries(
        item as Record<string, { requestBody?: { content: Record<string, unknown> } }>,
      )) {
        for (const type of Object.keys(op.requestBody?.content ?? {})) {
          const pointer = ['paths', path, method, 'requestBody', 'content', type, 'schema']
            .map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1'))
            .join('/');
          expect(() => strict.compile({ $ref: `doc.json#/${pointer}` }), `${method} ${path} ${type}`).not.toThrow();
        }
      }
    }
  });

  it('with token authentication on, offers both schemes in the configured order', () => {
    const both = buildOpenApi({ authenticationClasses: ['token', 'basic'] }) as Json;
    expect(both.security).toEqual([{ tokenAuth: [] }, { basicAuth: [] }]);
    expect(both.components.securitySchemes.tokenAuth).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
    });
    expect(both.info.description).toContain('`Authorization: Token <key>`');
  });

  it('has one server, relative: the host that serves the document (local runtime and deployments alike)', () => {
    expect(doc.servers).toEqual([{ url: '/', description: expect.any(String) }]);
  });

  it('lists the tags the operations use, each with a description', () => {
    const used = new Set(
      Object.values(doc.paths).flatMap((item: Json) => Object.values(item).flatMap((op: Json) => op.tags)),
    );
    expect(new Set(doc.tags.map((t: { name: string }) => t.name))).toEqual(used);
    for (const tag of doc.tags) expect(tag.description, tag.name).toMatch(/^\S.*\.$/);
  });

  it('asks for HTTP Basic on every operation and documents each error the chain can answer', () => {
    expect(doc.security).toEqual([{ basicAuth: [] }]);
    expect(Object.keys(doc.components.securitySchemes)).toEqual(['basicAuth']);
    expect(doc.components.securitySchemes.basicAuth).toEqual({ type: 'http', scheme: 'basic' });
    // Errors are named responses, one per status.
    const resolve = (response: Json) =>
      response.$ref ? doc.components.responses[response.$ref.split('/').pop()] : response;
    for (const route of routes) {
      const responses = Object.fromEntries(
        Object.entries(doc.paths[documentPath(route.path)][route.method.toLowerCase()].responses).map(([status, r]) => [
          status,
          resolve(r as Json),
        ]),
      );
      const what = `${route.method} ${route.path}`;
      expect(Object.keys(responses), what).toEqual(expect.arrayContaining(['401', '404', '503']));
      expect(responses['401'].headers['WWW-Authenticate'], what).toBeDefined();
      // Every operation: a permission, a cross-site write, or (behind the edge) a request around it.
      expect('403' in responses, what).toBe(true);
      expect('406' in responses, what).toBe(route.negotiatesJson !== false);
      // Every write takes a body, but the bodiless actions (redeliver, ping, release).
      const takesBody = ['POST', 'PUT', 'PATCH'].includes(route.method) && route.doc!.body !== undefined;
      const bodiless = ['webhook-deliveries/redeliver', 'webhook-subscriptions/ping', 'mail-problems/release'];
      expect(takesBody, what).toBe(
        ['POST', 'PUT', 'PATCH'].includes(route.method) && !bodiless.includes(route.handler),
      );
      for (const status of ['413', '415']) expect(status in responses, `${what} ${status}`).toBe(takesBody);
      // The ticket list's status filter is validated too, and so are the change feed's cursor and limit,
      // a mail template's `?queue=`, the users list's filters and the time spent report's `by` and days. A POST
      // also answers 400 for a malformed Idempotency-Key.
      expect('400' in responses, what).toBe(
        takesBody ||
          route.method === 'POST' ||
          [
            'tickets/list',
            'events/list',
            'mail-templates/get',
            'mail-templates/delete',
            'users/list',
            'reports/time-spent',
          ].includes(route.handler),
      );
      if (takesBody)
        expect(responses['400'].content['application/json'].schema).toEqual({
          anyOf: [{ $ref: '#/components/schemas/FieldErrors' }, { $ref: '#/components/schemas/ErrorDetail' }],
        });
    }
  });
});

describe('for generated clients', () => {
  it(
    "describes what receivers are posted: every event type, the ping, and upstream's two payloads, each " +
      'checkable against its schema',
    () => {
      expect(Object.keys(doc.webhooks)).toEqual([...EVENT_TYPES, 'webhook.ping', 'new-ticket', 'new-followup']);
      const payload = component('WebhookEventPayload');
      const event = {
        id: 'evt_1',
        event: 'ticket.created',
        created: '2026-11-25T12:00:00.250311Z',
        ticket: 1,
        followup: null,
        attachment: null,
        actor: { id: 1, username: 'admin' },
        source: 'api',
        changes: null,
        data: {},
      };
      expect(payload({ type: 'ticket.created', timestamp: event.created, data: event })).toBe(true);
      // One date-time form: milliseconds (JavaScript's toISOString) are not it.
      expect(payload({ type: 'ticket.created', timestamp: '2026-11-25T12:00:00.250Z', data: event })).toBe(false);
      expect(
        component('WebhookPingPayload')({
          type: 'webhook.ping',
          timestamp: '2026-11-25T12:00:00Z',
          data: { subscription: 'sub_1' },
        }),
      ).toBe(true);
    },
  );

  it('errors are named responses, one per status; FieldErrors can never hold `detail`', () => {
    expect(doc.paths['/api/tickets/{id}/'].get.responses['404']).toEqual({ $ref: '#/components/responses/NotFound' });
    expect(doc.components.responses.NotFound.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ErrorDetail',
    });
    expect(component('FieldErrors')({ detail: ['x'] })).toBe(false);
  });

  it('a Ticket has no catch-all for custom fields, and still validates with any custom_ key', () => {
    const ticket = doc.components.schemas.Ticket;
    expect(ticket.patternProperties).toBeUndefined();
    expect(ticket.additionalProperties).toBeUndefined();
    const view = ticketView(
      'https://api.example',
      { ticket: ticketRecord({ custom: { k1: 'red' } }), followups: [], attachments: [], mergedFrom: [] },
      [DEF],
    );
    expect(component('Ticket')(view)).toBe(true);
    expect(component('Ticket')({ ...view, submiter_email: 'x' })).toBe(false);
  });
});

describe('request bodies, from the field definitions', () => {
  const body = (path: string, method: string, type = 'application/json') =>
    doc.paths[path][method].requestBody.content[type].schema;

  it('ticket creation: JSON, form and multipart, the required fields, one attachment file in multipart only', () => {
    const content = doc.paths['/api/tickets/'].post.requestBody.content;
    expect(Object.keys(content)).toEqual([
      'application/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data',
    ]);
    const json = content['application/json'].schema;
    expect(json.required).toEqual(['queue', 'title', 'description', 'submitter_email']);
    expect(Object.keys(json.properties)).toEqual([
      'queue',
      'title',
      'description',
      'resolution',
      'submitter_email',
      'assigned_to',
      'status',
      'on_hold',
      'priority',
      'due_date',
      'merged_to',
    ]);
    expect(json.properties.title).toEqual({ type: 'string', maxLength: 200 });
    expect(json.properties.status.enum).toEqual([1, 2, 3, 4, 5]);
    expect(json.properties.priority.description).toContain('1: 1. Critical');
    expect(json.properties.due_date).toEqual({ type: ['string', 'null'], format: 'date-time' });
    // No catch-all for custom fields: generators would make it an index signature (docs/api.md).
    expect(json.patternProperties).toBeUndefined();
    expect(json.additionalProperties).toBeUndefined();
    const multipart = content['multipart/form-data'].schema;
    // contentMediaType without `type`: a File or Blob type-checks in generated clients.
    expect(multipart.properties.attachment).toEqual({
      contentMediaType: 'application/octet-stream',
      description: expect.any(String),
    });
    expect(content['multipart/form-data'].encoding.attachment.contentType).toContain('application/octet-stream');
    expect(json.properties.attachment).toBeUndefined();
  });

  it('PUT requires what creation requires, PATCH nothing', () => {
    expect(body('/api/tickets/{id}/', 'put').required).toEqual(['queue', 'title', 'description', 'submitter_email']);
    expect(body('/api/tickets/{id}/', 'patch').required).toBeUndefined();
    expect(body('/api/followups/{id}/', 'put').required).toEqual(['ticket']);
  });

  it('followups take repeated attachments; attachment records a required file in multipart only', () => {
    expect(body('/api/followups/', 'post', 'multipart/form-data').properties.attachments).toMatchObject({
      type: 'array',
      items: { contentMediaType: 'application/octet-stream' },
    });
    const content = doc.paths['/api/followups-attachments/'].post.requestBody.content;
    expect(Object.keys(content)).toEqual(['multipart/form-data']);
    expect(content['multipart/form-data'].schema.required).toEqual(['followup', 'file']);
  });

  it('users: the five fields, all required', () => {
    const users = body('/api/users/', 'post');
    expect(users.required).toEqual(['first_name', 'last_name', 'username', 'email', 'password']);
    expect(users.properties.email).toEqual({ type: 'string', format: 'email', maxLength: 254 });
  });

  it('maps each kind of field with its bounds, pattern and null', () => {
    expect(fieldJsonSchema(idField({ nullable: true }))).toMatchObject({ type: ['integer', 'null'] });
    expect(fieldJsonSchema(integerField({ min: 1 }))).toEqual({ type: 'integer', minimum: 1 });
    expect(fieldJsonSchema(choiceField([1, 2], { nullable: true }))).toMatchObject({ enum: [1, 2, null] });
    expect(fieldJsonSchema(textField({ maxLength: 5, match: { pattern: /^[a-z]+$/, message: 'letters' } }))).toEqual({
      type: 'string',
      pattern: '^[a-z]+$',
      maxLength: 5,
    });
    expect(body('/api/queues/', 'post').properties.slug).toEqual({
      type: 'string',
      pattern: '^[-a-zA-Z0-9_]+$',
      maxLength: 50,
    });
    // Every rule a text field enforces that JSON Schema can state is in the document: the same options make both.
    expect(body('/api/users/', 'post').properties.username).toMatchObject({
      pattern: '^[\\p{L}\\p{M}\\p{N}_.@+-]+$',
      maxLength: 150,
    });
    expect(body('/api/users/', 'post').properties.password).toMatchObject({ minLength: 8, maxLength: 4096 });
  });

  it('lists the custom fields defined, required ones required, as properties of tickets and ticket bodies', () => {
    const create = withDef.paths['/api/tickets/'].post.requestBody.content['application/json'].schema;
    expect(create.properties.custom_colour).toEqual({ enum: ['red', 'blue'], description: 'Colour: Pick one' });
    expect(create.required).toContain('custom_colour');
    expect(withDef.components.schemas.Ticket.properties.custom_colour).toEqual({
      type: ['string', 'null'],
      description: 'Colour',
    });
    expect(doc.components.schemas.Ticket.properties.custom_colour).toBeUndefined();
    expect(
      withDef.paths['/api/tickets/{id}/'].patch.requestBody.content['application/json'].schema.required,
    ).toBeUndefined();
  });
});

describe('response shapes, from zod', () => {
  it('a serialised ticket (with a custom field) matches Ticket; an extra or missing key does not', () => {
    const validate = component('Ticket');
    const view = ticketView(
      'https://api.example',
      { ticket: ticketRecord({ custom: { k1: 'red' } }), followups: [], attachments: [], mergedFrom: [] },
      [DEF],
    );
    expect(validate(view), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...view, secret_key: 'k' })).toBe(false);
    const { title: _title, ...untitled } = view;
    expect(validate(untitled)).toBe(false);
    expect(validate({ ...view, status: 9 })).toBe(false);
    expect(validate({ ...view, due_date: '2030-01-01 00:00' })).toBe(false);
  });

  it('queues, custom fields and route descriptions match their shapes', () => {
    expect(
      component('Queue')(
        queueView({
          id: 1,
          title: 'T',
          slug: 's',
          ...QUEUE_MAIL_DEFAULTS,
          escalate_days: 3,
          allow_public_submission: true,
          locale: 'pt-br',
        }),
      ),
    ).toBe(true);
    expect(component('CustomField')(customFieldView(DEF))).toBe(true);
    expect(component('RouteDescription')(describeRoute('/api/tickets', [DEF]))).toBe(true);
  });

  it('errors: {"detail": string} and {"<field>": [string]} (or messages by file index)', () => {
    expect(component('ErrorDetail')({ detail: 'Not found.' })).toBe(true);
    expect(component('ErrorDetail')({ detail: ['x'] })).toBe(false);
    expect(
      component('FieldErrors')({
        title: ['This field is required.'],
        attachments: { '0': ['The submitted file is empty.'] },
      }),
    ).toBe(true);
    expect(component('FieldErrors')({ title: 'This field is required.' })).toBe(false);
  });
});

describe('checkResponse (what the integration client runs on every reply)', () => {
  const base = { contentType: 'application/json', text: '{}' };
  it('accepts a documented status and body', () => {
    expect(
      checkResponse({
        ...base,
        method: 'GET',
        url: 'http://h/api/queues/1',
        status: 200,
        body: {
          id: 1,
          title: 'T',
          slug: 's',
          ...QUEUE_MAIL_DEFAULTS,
          escalate_days: null,
          allow_public_submission: false,
          locale: null,
        },
      }),
    ).toEqual([]);
    expect(
      checkResponse({
        ...base,
        method: 'DELETE',
        url: 'http://h/api/queues/1/',
        status: 204,
        contentType: null,
        text: '',
        body: undefined,
      }),
    ).toEqual([]);
  });
  it('flags an undocumented status, a wrong body, an undocumented media type', () => {
    expect(
      checkResponse({ ...base, method: 'GET', url: 'http://h/api/queues/1', status: 418, body: { detail: 'x' } })[0],
    ).toMatch(/status not documented/);
    expect(
      checkResponse({ ...base, method: 'GET', url: 'http://h/api/queues/1', status: 200, body: { id: 1 } })[0],
    ).toMatch(/does not match/);
    expect(
      checkResponse({
        ...base,
        method: 'GET',
        url: 'http://h/api/queues/1',
        status: 200,
        contentType: 'text/html',
        body: undefined,
      })[0],
    ).toMatch(/Content-Type text\/html/);
  });
  it('expects 405 (or an auth error) for a method a path does not have, 404 for an unknown path', () => {
    expect(
      checkResponse({
        ...base,
        method: 'PUT',
        url: 'http://h/api/users/',
        status: 405,
        body: { detail: 'Method "PUT" not allowed.' },
      }),
    ).toEqual([]);
    expect(checkResponse({ ...base, method: 'PUT', url: 'http://h/api/users/', status: 200, body: {} })).toHaveLength(
      1,
    );
    expect(
      checkResponse({
        ...base,
        method: 'GET',
        url: 'http://h/api/nothing/',
        status: 404,
        body: { detail: 'Not found.' },
      }),
    ).toEqual([]);
  });
});
