/**
 * GET /api/openapi.json and the reference page GET /api/docs (with its files). Every other test's
 * responses are checked against the same document through client.ts (openapi-setup.ts).
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../shared/api/routes';
import { documentPath } from '../../shared/api/openapi';
import { API, call, clientFor, unique } from './client';
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
      expect(reply.body.paths[documentPath(route.path)]?.[route.method.toLowerCase()], `${route.method} ${route.path}`).toBeDefined();
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

  it('lists the custom fields defined now as ticket properties, and allows any other custom_ key by propertyNames (no index signature)', async () => {
    const name = unique('colour');
    // Not required (the unit tests of the generator cover required fields).
    const created = await api.call('POST', '/api/custom-fields/', { json: { name, label: 'Colour', data_type: 'list', list_values: ['red', 'blue'] } });
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
      expect(doc.paths['/api/tickets/{id}/'].patch.requestBody.content['application/json'].schema.required).toBeUndefined();
    } finally {
      expect((await api.call('DELETE', `/api/custom-fields/${name}/`)).status).toBe(204);
    }
  });

  it('is open to any user, not only staff; staff-only custom fields are shown to staff only', async () => {
    const name = unique('internal');
    expect((await api.call('POST', '/api/custom-fields/', { json: { name, label: 'Internal', data_type: 'varchar', max_length: 20, staff_only: true } })).status).toBe(201);
    try {
      const user = await api.createUser();
      const forUser = await api.call('GET', '/api/openapi.json', { auth: user.auth });
      expect(forUser.status).toBe(200);
      expect(forUser.body.components.schemas.Ticket.properties).not.toHaveProperty(`custom_${name}`);
      expect((await api.call('GET', '/api/openapi.json')).body.components.schemas.Ticket.properties).toHaveProperty(`custom_${name}`);
      expect((await api.call('GET', '/api/docs', { auth: user.auth })).status).toBe(200);
    } finally {
      expect((await api.call('DELETE', `/api/custom-fields/${name}/`)).status).toBe(204);
    }
  });
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
    expect(sources).toEqual(['data:,', '/api/docs/swagger-ui.css', '/api/docs/swagger-ui-bundle.js', '/api/docs/init.js']);
    expect(reply.text).not.toMatch(/<script>|<style>|https?:\/\//);
  });

  it('serves the renderer\'s files from the API, gzipped for clients that accept it', async () => {
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
    const raw = await fetch(`${API}/api/docs/swagger-ui-bundle.js`, { headers: { authorization: `Basic ${Buffer.from('admin:admin-test-password').toString('base64')}`, 'accept-encoding': 'gzip' } });
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
