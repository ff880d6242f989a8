/**
 * The Tracer (and the X-Ray SDK) is in the bundles of TRACED_HANDLERS only, and such a bundle loads:
 * bundled as the stack bundles (infra/bundling.ts), then imported by a fresh Node process.
 */
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLE_ALIASES, BUNDLE_SETTINGS, TRACED_HANDLERS, bundleDefines } from '../../infra/bundling';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'helpdesk-bundling-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function bundle(handler: string): Promise<string> {
  const outfile = join(dir, `${handler.replace('/', '-')}.mjs`);
  await build({
    entryPoints: [join(ROOT, 'functions', `${handler}.ts`)],
    outfile,
    bundle: true,
    logLevel: 'error',
    alias: BUNDLE_ALIASES,
    define: bundleDefines(handler),
    ...BUNDLE_SETTINGS,
    mainFields: [...BUNDLE_SETTINGS.mainFields],
    banner: { js: BUNDLE_SETTINGS.banner },
  });
  return outfile;
}

describe('tracer in the bundles', () => {
  it('is in a traced function, which still loads, and not in the others', async () => {
    expect(TRACED_HANDLERS.has('tickets/create')).toBe(true);
    expect(TRACED_HANDLERS.has('tickets/get')).toBe(false);
    const traced = await bundle('tickets/create');
    const plain = await bundle('tickets/get');
    // A string of the X-Ray SDK's context handling.
    expect(readFileSync(traced, 'utf8')).toContain('AWS_XRAY_CONTEXT_MISSING');
    expect(readFileSync(plain, 'utf8')).not.toContain('AWS_XRAY_CONTEXT_MISSING');

    const probe = join(dir, 'probe.mjs');
    writeFileSync(probe, `const m = await import(${JSON.stringify(traced)}); if (typeof m.handler !== 'function') process.exit(3);`);
    const run = spawnSync(process.execPath, [probe], {
      env: { PATH: process.env.PATH, AWS_REGION: 'us-east-1', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  }, 120_000);
});
