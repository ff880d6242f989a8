/**
 * GET /api/openapi.json and the reference page GET /api/docs (with its files). Every other test's
 * responses are checked against the same document through client.ts (openapi-setup.ts).
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { routes } from '../../shared/api/routes';
import { documentPath } from '../../shared/api/openapi';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../shared/domain/pagination';
import { MAX_FEED_PAGE } from '../../shared/domain/events';
import { API, call, clientFor, createTicket, form, unique, VALID_TICKET, type Json } from './client';
import { spawnApiRuntime, type SpawnedRuntime } from './spawn-runtime';
import { onSharedEngines } from './shared-engines';

describe('GET /api/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document with an operation for every route', async () => {
    const reply = await call('GET', '/api/openapi.json');
    expect(reply.status, reply.text).toBe(200);
    expect(reply.headers.get('content-type')).toBe('application/json');
    const validator = new Validator();
    const result = await validator.validate(reply.body);
    expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    for (const route of routes) {
      expect(
        reply.body.paths[documentPath(route.path)]?.[route.method.toLowerCase()],
        `${route.method} ${route.path}`,
      ).toBeDefined();
    }
  });

  it('needs credentials, and its 401 asks the browser for them (Basic)', async () => {
    const reply = await call('GET', '/api/openapi.json', { auth: null });
    expect(reply.status).toBe(401);
    expect(reply.headers.get('www-authenticate')).toBe('Basic realm="api"');
  });
});

/**
 * The custom fields in the document, on a runtime of its own: defining fields changes every ticket's
 * body and ETag, which test files running at the same time on the shared runtime compare.
 */
describe('GET /api/openapi.json with custom fields defined', () => {
  let runtime: SpawnedRuntime | undefined;
  let api: ReturnType<typeof clientFor>;

  beforeAll(async () => {
    runtime = await spawnApiRuntime(onSharedEngines());
    api = clientFor(runtime.url);
  }, 200_000);

  afterAll(async () => {
    await runtime?.stop();
  });

  it(
    'lists the custom fields defined now as ticket properties, and allows any other custom_ key by propertyNames ' +
      '(no index signature)',
    async () => {
      const name = unique('colour');
      // Not required (the unit tests of the generator cover required fields).
      const created = await api.call('POST', '/api/custom-fields/', {
        json: { name, label: 'Colour', data_type: 'list', list_values: ['red', 'blue'] },
      });
      expect(created.status, created.text).toBe(201);
      try {
        const doc = (await api.call('GET', '/api/openapi.json')).body;
        const ticket = doc.components.schemas.Ticket;
        expect(ticket.properties[`custom_${name}`]).toEqual({ type: ['string', 'null'], description: 'Colour' });
        expect(ticket.patternProperties).toBeUndefined();
        expect(ticket.propertyNames.anyOf).toContainEqual({ pattern: '^custom_[-a-zA-Z0-9_]+$' });
        const body = doc.paths['/api/tickets/'].post.requestBody.content['application/json'].schema;
        expect(body.properties[`custom_${name}`]).toMatchObject({ enum: ['red', 'blue'] });
        expect(body.required).not.toContain(`custom_${name}`);
        // Partial updates require nothing.
        expect(
          doc.paths['/api/tickets/{id}/'].patch.requestBody.content['application/json'].schema.required,
        ).toBeUndefined();
      } finally {
        expect((await api.call('DELETE', `/api/custom-fields/${name}/`)).status).toBe(204);
      }
    },
  );

  it('is open to any user, not only staff; staff-only custom fields are shown to staff only', async () => {
    const name = unique('internal');
    expect(
      (
        await api.call('POST', '/api/custom-fields/', {
          json: { name, label: 'Internal', data_type: 'varchar', max_length: 20, staff_only: true },
        })
      ).status,
    ).toBe(201);
    try {
      const user = await api.createUser();
      const forUser = await api.call('GET', '/api/openapi.json', { auth: user.auth });
      expect(forUser.status).toBe(200);
      expect(forUser.body.components.schemas.Ticket.properties).not.toHaveProperty(`custom_${name}`);
      expect((await api.call('GET', '/api/openapi.json')).body.components.schemas.Ticket.properties).toHaveProperty(
        `custom_${name}`,
      );
      expect((await api.call('GET', '/api/docs', { auth: user.auth })).status).toBe(200);
    } finally {
      expect((await api.call('DELETE', `/api/custom-fields/${name}/`)).status).toBe(204);
    }
  });
});

/**
 * Where the prose and the schemas of the document could drift from what the API answers (issue 26):
 * each point read from the served document and checked against an answer.
 */
describe('the document and the answers agree', () => {
  let doc: Json;
  const parameter = (path: string, method: string, name: string) =>
    doc.paths[path][method].parameters.find((p: Json) => p.name === name);
  const response = (path: string, method: string, status: number) => {
    const r = doc.paths[path][method].responses[String(status)];
    return r.$ref ? doc.components.responses[r.$ref.split('/').pop()] : r;
  };

  beforeAll(async () => {
    doc = (await call('GET', '/api/openapi.json')).body;
  });

  it(
    'page_size: no bound in the schema, since any value answers 200 (below 1 or not a number: the default; above ' +
      'the most: the most), as the description says',
    async () => {
      const pageSize = parameter('/api/tickets/', 'get', 'page_size');
      expect(pageSize.schema).toEqual({ type: 'integer' });
      expect(pageSize.description).toContain(`default ${DEFAULT_PAGE_SIZE}`);
      expect(pageSize.description).toContain(`more than ${MAX_PAGE_SIZE} counts as ${MAX_PAGE_SIZE}`);
      // `count` follows the table's stream and other files write tickets meanwhile: a page and its
      // count agree once the writes in flight are counted (a moment), which is what is waited for.
      const pageOf = async (pageSize: string, expected: number) => {
        const reply = await call('GET', `/api/tickets/?page_size=${pageSize}`);
        expect(reply.status, pageSize).toBe(200);
        return (
          reply.body.results.length === Math.min(reply.body.count, expected) ||
          `${reply.body.results.length} of ${reply.body.count}`
        );
      };
      for (const value of ['0', '-3', 'abc'])
        await expect.poll(() => pageOf(value, DEFAULT_PAGE_SIZE), { timeout: 30_000 }).toBe(true);
      await expect.poll(() => pageOf('100000', MAX_PAGE_SIZE), { timeout: 30_000 }).toBe(true);
    },
  );

  it(
    'page on filtered lists: status alone keeps page numbers; on a cursor-paged filter page 1 is the first page ' +
      'and another page answers 400',
    async () => {
      const description = doc.paths['/api/tickets/'].get.description;
      expect(description).toContain('`status` alone keeps page numbers');
      expect(description).toContain('any other page answers 400');
      expect((await call('GET', '/api/tickets/?status=3&page=1')).status).toBe(200);
      expect((await call('GET', '/api/tickets/?queue=1&page=1')).status).toBe(200);
      const refused = await call('GET', '/api/tickets/?queue=1&page=2');
      expect(refused.status).toBe(400);
      expect(refused.body.detail).toMatch(/paged by cursor/);
    },
  );

  it('the change feed: `limit` is an integer from 1, more than the most counts as the most', async () => {
    expect(parameter('/api/events/', 'get', 'limit').schema).toEqual({ type: 'integer', minimum: 1 });
    expect((await call('GET', '/api/events/?limit=0')).status).toBe(400);
    expect((await call('GET', `/api/events/?limit=${MAX_FEED_PAGE * 10}`)).status).toBe(200);
  });

  it(
    'error keys: an empty description under `body`, which the document names; FieldErrors and ErrorDetail told ' +
      'apart by `detail`',
    async () => {
      const badRequest = response('/api/tickets/', 'post', 400);
      expect(badRequest.content['application/json'].examples.description.value).toEqual({
        body: ['This field is required.'],
      });
      expect(doc.paths['/api/tickets/'].post.requestBody.description).toContain('under the key `body`');
      const empty = await call('POST', '/api/tickets/', { json: { ...VALID_TICKET, description: '' } });
      expect(empty.status).toBe(400);
      expect(empty.body).toEqual(badRequest.content['application/json'].examples.description.value);
      const unparsed = await call('POST', '/api/tickets/', { body: '{', contentType: 'application/json' });
      expect(unparsed.status).toBe(400);
      expect(Object.keys(unparsed.body)).toEqual(['detail']);
      // Answers validate against the 400's schema (openapi-setup.ts checks every one); here its two
      // branches are exclusive: a field-errors body never validates as a detail, nor the other way.
      const ajv = new Ajv2020({ strict: false, validateFormats: false });
      ajv.addSchema(doc, 'doc.json', undefined, false);
      const fieldErrors = ajv.compile({ $ref: 'doc.json#/components/schemas/FieldErrors' });
      const errorDetail = ajv.compile({ $ref: 'doc.json#/components/schemas/ErrorDetail' });
      expect([fieldErrors(empty.body), errorDetail(empty.body)]).toEqual([true, false]);
      expect([fieldErrors(unparsed.body), errorDetail(unparsed.body)]).toEqual([false, true]);
    },
  );

  it(
    'an attachment download is a 302 without a body whose Location is the file, as the document says (and how ' +
      'fetch clients read it)',
    async () => {
      const download = doc.paths['/api/tickets/{id}/attachments/{attachmentId}/'].get;
      expect(Object.keys(download.responses).filter((s) => s.startsWith('2') || s.startsWith('3'))).toEqual(['302']);
      expect(download.responses['302'].content).toBeUndefined();
      expect(download.responses['302'].headers.Location).toBeDefined();
      expect(download.description).toContain("redirect: 'manual'");
      const ticket = (await createTicket()).body;
      const followup = await call('POST', '/api/followups/', {
        form: form({ ticket: ticket.id, title: '', comment: 'file' }, [
          { field: 'attachments', name: 'a.txt', type: 'text/plain', content: 'file body' },
        ]),
      });
      expect(followup.status, followup.text).toBe(201);
      const path = `/api/tickets/${ticket.id}/attachments/${followup.body.followupattachment_set[0].id}/`;
      const redirect = await call('GET', path);
      expect(redirect.status).toBe(302);
      expect(redirect.text).toBe('');
      const followed = await fetch(redirect.headers.get('location')!);
      expect(followed.status).toBe(200);
      expect(await followed.text()).toBe('file body');
      expect((await call('DELETE', `/api/tickets/${ticket.id}/`)).status).toBe(204);
    },
  );

  it(
    'string ids in the paths of webhook subscriptions and deliveries; If-Match and If-None-Match as header ' +
      'parameters',
    async () => {
      expect(parameter('/api/webhooks/{id}/', 'get', 'id').schema).toEqual({ type: 'string', pattern: '^(sub|env)_' });
      expect(parameter('/api/webhook-deliveries/{id}/', 'get', 'id').schema).toEqual({
        type: 'string',
        pattern: '^msg_',
      });
      expect((await call('GET', '/api/webhook-deliveries/msg_none/')).status).toBe(404);
      expect(parameter('/api/tickets/{id}/', 'patch', 'If-Match')).toMatchObject({
        in: 'header',
        schema: { type: 'string' },
      });
      expect(parameter('/api/tickets/{id}/', 'get', 'If-None-Match')).toMatchObject({
        in: 'header',
        schema: { type: 'string' },
      });
    },
  );
});

describe('GET /api/docs', () => {
  it('answers an HTML page that loads only files of this origin, under a strict Content-Security-Policy', async () => {
    const reply = await call('GET', '/api/docs', { headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = reply.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
    expect(reply.headers.get('x-frame-options')).toBe('DENY');
    const sources = [...reply.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    // `data:,` as the icon: no request for /favicon.ico (which the API does not serve).
    expect(sources).toEqual([
      'data:,',
      '/api/docs/swagger-ui.css',
      '/api/docs/swagger-ui-bundle.js',
      '/api/docs/init.js',
    ]);
    expect(reply.text).not.toMatch(/<script>|<style>|https?:\/\//);
  });

  it("serves the renderer's files from the API, gzipped for clients that accept it", async () => {
    const types: Record<string, string> = {
      'swagger-ui.css': 'text/css; charset=utf-8',
      'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
      'init.js': 'text/javascript; charset=utf-8',
    };
    for (const [name, type] of Object.entries(types)) {
      const reply = await call('GET', `/api/docs/${name}`, { headers: { 'accept-encoding': 'identity' } });
      expect(reply.status, name).toBe(200);
      expect(reply.headers.get('content-type'), name).toBe(type);
      expect(reply.headers.get('content-encoding'), name).toBeNull();
      expect(reply.text.length, name).toBeGreaterThan(100);
    }
    expect((await call('GET', '/api/docs/init.js')).text).toContain("url: '/api/openapi.json'");
    const raw = await fetch(`${API}/api/docs/swagger-ui-bundle.js`, {
      headers: {
        authorization: `Basic ${Buffer.from('admin:admin-test-password').toString('base64')}`,
        'accept-encoding': 'gzip',
      },
    });
    expect(raw.status).toBe(200);
    expect(raw.headers.get('content-encoding')).toBe('gzip');
    expect(Number(raw.headers.get('content-length'))).toBeLessThan(800_000); // ~1.7 MB unpacked
    expect((await raw.text()).length).toBeGreaterThan(1_000_000);
  });

  it('answers 404 for any other file name', async () => {
    for (const name of ['index.html', 'swagger-ui.js.map', '..%2Fpackage.json', 'package.json']) {
      expect((await call('GET', `/api/docs/${name}`)).status, name).toBe(404);
    }
  });

  it('needs credentials like every route', async () => {
    for (const path of ['/api/docs', '/api/docs/init.js']) {
      const reply = await call('GET', path, { auth: null });
      expect(reply.status, path).toBe(401);
      expect(reply.headers.get('www-authenticate')).toBe('Basic realm="api"');
    }
  });
});
