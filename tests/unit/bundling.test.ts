/**
 * The Tracer (and the X-Ray SDK) is in the bundles of traced functions only, busboy only in those of
 * routes that take a body, and such a bundle loads: bundled as the stack bundles (infra/bundling.ts),
 * then imported by a fresh Node process.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLE_SETTINGS, bundleDefines, bundleFunction } from '../../infra/bundling';
import { buildOpenApi } from '../../shared/api/openapi';

const dir = mkdtempSync(join(tmpdir(), 'helpdesk-bundling-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function bundle(handler: string, traced = false): Promise<string> {
  const outfile = join(dir, `${handler.replace('/', '-')}${traced ? '-traced' : ''}.mjs`);
  await bundleFunction(handler, outfile, traced);
  return outfile;
}

describe('tracer in the bundles', () => {
  it('is in a traced function, which still loads, and not in the others', async () => {
    const traced = await bundle('tickets/create', true);
    const plain = await bundle('tickets/get');
    // A string of the X-Ray SDK's context handling.
    expect(readFileSync(traced, 'utf8')).toContain('AWS_XRAY_CONTEXT_MISSING');
    expect(readFileSync(plain, 'utf8')).not.toContain('AWS_XRAY_CONTEXT_MISSING');
    // busboy's multipart parser, only where a route takes a body.
    expect(readFileSync(traced, 'utf8')).toContain('Unexpected end of form');
    expect(readFileSync(plain, 'utf8')).not.toContain('Unexpected end of form');

    expect(runBundle(traced, 'console.log(typeof m.handler)')).toBe('function');
  }, 120_000);
});

describe('OpenID Connect in the bundles', () => {
  it("is only where the environment's classes name oidc, and such a bundle still loads", async () => {
    const plain = await bundleFunction('tickets/get', join(dir, 'oidc-off.mjs'));
    const withOidc = join(dir, 'oidc-on.mjs');
    const on = await bundleFunction('tickets/get', withOidc, false, true);
    const jose = (meta: typeof on) => Object.keys(meta.inputs).filter((i) => i.includes('node_modules/jose/'));
    expect(jose(plain)).toEqual([]);
    expect(jose(on).length).toBeGreaterThan(0);
    expect(runBundle(withOidc, 'console.log(typeof m.handler)')).toBe('function');
  }, 120_000);
});

describe('route facts in the bundles', () => {
  it('a bundle answers from its own route compiled in, without the route table', async () => {
    const get = await bundle('tickets/get');
    const docs = await bundle('api/docs');
    // A summary from the table's docs: in no function's bundle but the fallback's and the document's.
    expect(readFileSync(get, 'utf8')).not.toContain('List tickets with their followups');
    // Before any storage call: a JSON route refuses an HTML-only Accept (406), a page route does not
    // (it goes on to authentication: 401), and a GET's 405-style Allow is the path's.
    const answer = (file: string, path: string, accept: string) =>
      JSON.parse(
        runBundle(
          file,
          `const r = await m.handler(${eventSource(path, accept)}, { awsRequestId: 'r' }); ` +
            'console.log(JSON.stringify(r.statusCode))',
        ),
      );
    expect(answer(get, '/api/tickets/1', 'text/html')).toBe(406);
    expect(answer(docs, '/api/docs', 'text/html')).toBe(401);
  }, 120_000);

  it('a bundle calls DynamoDB without the SDK parts it leaves out (the event-stream codec)', async () => {
    const get = await bundle('tickets/get');
    // A stand-in DynamoDB that knows no user: Basic credentials are looked up (GetItem), the failure
    // counted (UpdateItem), and the answer is 401: a whole SDK round trip, in and out.
    const code =
      "\n      const { createServer } = await import('node:http');\n      const targets = [];\n      const " +
      "server = createServer((req, res) => {\n        req.resume();\n        req.on('end', () => { " +
      "targets.push(req.headers['x-amz-target']); res.setHeader('content-type', 'application/x-amz-json-1.0'); " +
      `res.end('{}'); });
      });
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
      process.env.AWS_ENDPOINT_URL_DYNAMODB = 'http://127.0.0.1:' + server.address().port;
      const m = await import(${JSON.stringify(get)});
      const event = ${eventSource('/api/tickets/1', 'application/json')};
      event.headers.authorization = 'Basic ' + Buffer.from('nobody:wrong').toString('base64');
      const r = await m.handler(event, { awsRequestId: 'r' });
      server.close();
      console.log(JSON.stringify({ status: r.statusCode, targets }));`;
    const { status, targets } = JSON.parse(runScript(code)) as { status: number; targets: string[] };
    expect(status).toBe(401);
    expect(targets).toContain('DynamoDB_20120810.GetItem');
    // node:http comes from process.getBuiltinModule, not an ESM import (whose facade would load undici).
    expect(readFileSync(get, 'utf8')).not.toMatch(/from\s*"node:https?"/);
  }, 120_000);
});

describe('the OpenAPI template in its bundle', () => {
  it(
    'the openapi function carries the template compressed, not the route table, ' + 'and it gives the same document',
    async () => {
      const openapi = await bundle('api/openapi');
      expect(readFileSync(openapi, 'utf8')).not.toContain('List tickets with their followups');
      // The template module and the document's last step, bundled with the openapi function's constants.
      const { build } = await import('esbuild');
      const outfile = join(dir, 'openapi-document.mjs');
      await build({
        stdin: {
          contents:
            "import { openApiTemplate } from './shared/api/openapi-template'; import { finishOpenApi } from " +
            "'./shared/api/openapi-document';\n          " +
            'console.log(JSON.stringify(finishOpenApi(openApiTemplate, { customFields: ' +
            "JSON.parse(process.argv[2]), authenticationClasses: ['token', 'basic'] })));",
          resolveDir: join(import.meta.dirname, '../..'),
          loader: 'ts',
        },
        outfile,
        bundle: true,
        logLevel: 'error',
        define: bundleDefines('api/openapi'),
        ...BUNDLE_SETTINGS,
        mainFields: [...BUNDLE_SETTINGS.mainFields],
        external: [...BUNDLE_SETTINGS.external],
        banner: { js: BUNDLE_SETTINGS.banner },
      });
      expect(readFileSync(outfile, 'utf8')).not.toContain('List tickets with their followups');
      const defs = [
        { name: 'region', label: 'Region', data_type: 'list', list_values: ['EU', 'US'], required: true, ordering: 2 },
        { name: 'seats', label: 'Seats', data_type: 'integer', list_values: [], required: false, ordering: 1 },
      ];
      const run = spawnSync(process.execPath, [outfile, JSON.stringify(defs)], { encoding: 'utf8', timeout: 60_000 });
      expect(run.stderr).toBe('');
      expect(JSON.parse(run.stdout)).toEqual(
        buildOpenApi({ customFields: defs as never, authenticationClasses: ['token', 'basic'] }),
      );
    },
    120_000,
  );
});

/** Source of an API Gateway (HTTP API) event for `GET path` without credentials. */
function eventSource(path: string, accept: string): string {
  return JSON.stringify({
    version: '2.0',
    routeKey: `GET ${path}`,
    rawPath: path,
    rawQueryString: '',
    headers: { accept, host: 'example.com' },
    requestContext: {
      http: { method: 'GET', path, protocol: 'HTTP/1.1', sourceIp: '10.0.0.1', userAgent: 'test' },
      requestId: 'r',
      routeKey: `GET ${path}`,
      stage: '$default',
      timeEpoch: 0,
    },
    isBase64Encoded: false,
  });
}

/** Runs `code` (with the bundle imported as `m`) in a fresh Node process; its standard output. */
function runBundle(file: string, code: string): string {
  return runScript(`const m = await import(${JSON.stringify(file)}); ${code}`);
}

/** Runs a module's source in a fresh Node process, with a function's environment; its standard output. */
function runScript(source: string): string {
  const probe = join(dir, `probe-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(probe, source);
  const run = spawnSync(process.execPath, [probe], {
    env: {
      PATH: process.env.PATH,
      AWS_REGION: 'us-east-1',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      HELPDESK_ACTIVATE_API_ENDPOINT: 'True',
      TABLE_NAME: 'helpdesk',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'true',
    },
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return run.stdout.trim();
}

describe('every deployed function is measured', () => {
  it(
    'the benchmark bundles every function the stacks make, workers too, and ' + 'mail/send holds no SMTP client',
    async () => {
      const { deployedHandlers } = await import('../../bench/bundles');
      const measured = new Set(deployedHandlers().map((h) => h.handler));
      // Every `handler: '...'` the infra passes to helpdeskFunction (a route's comes from the route table).
      const infraFolder = new URL('../../infra/', import.meta.url);
      const infra = readdirSync(infraFolder)
        .filter((file) => file.endsWith('.ts'))
        .flatMap((file) =>
          [...readFileSync(new URL(file, infraFolder), 'utf8').matchAll(/handler: '([\w-]+\/[\w/-]+)'/g)].map(
            (m) => m[1]!,
          ),
        );
      expect(infra.length).toBeGreaterThan(6);
      for (const handler of infra) expect(measured, handler).toContain(handler);

      const send = await bundle('mail/send');
      // nodemailer's SMTP client (a string of its connection code): only the local runtime sends by SMTP.
      expect(readFileSync(send, 'utf8')).not.toContain('Greeting never received');
      const { bundleBudget } = await import('../../bench/report');
      expect(statSync(send).size).toBeLessThanOrEqual(bundleBudget({ route: false, handler: 'mail/send' }));
    },
    120_000,
  );
});
