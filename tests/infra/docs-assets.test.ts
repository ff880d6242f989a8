/**
 * The reference page's renderer files reach the Lambda bundle: the commands the stack runs after
 * esbuild copy them beside the bundle, and the bundled code reads them from there (no node_modules
 * in a Lambda package).
 */
import { execSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLE_SETTINGS, assetCommands } from '../../infra/bundling';
import { routes } from '../../shared/api/routes';
import { DOCS_ASSETS } from '../../shared/docs/assets';

const out = mkdtempSync(join(tmpdir(), 'docs-bundle-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('docs assets in the bundle', () => {
  it("only the docs-assets route carries files, and they are the renderer's bundle and style sheet", () => {
    expect(routes.filter((r) => r.assets?.length).map((r) => [r.handler, r.assets])).toEqual([
      ['api/docs-assets', DOCS_ASSETS],
    ]);
    expect(assetCommands([], out)).toEqual([]);
  });

  it('are copied beside the bundle and read from there by the bundled code', async () => {
    for (const command of assetCommands(DOCS_ASSETS, out)) execSync(command, { stdio: 'pipe' });
    await build({
      entryPoints: [join(import.meta.dirname, '../../shared/docs/page.ts')],
      outfile: join(out, 'index.mjs'),
      bundle: true,
      logLevel: 'silent',
      ...BUNDLE_SETTINGS,
      mainFields: [...BUNDLE_SETTINGS.mainFields],
      external: [...BUNDLE_SETTINGS.external],
      banner: { js: BUNDLE_SETTINGS.banner },
    });
    // The temporary folder has no node_modules above it: the files can only come from assets/.
    const page = (await import(pathToFileURL(join(out, 'index.mjs')).href)) as typeof import('../../shared/docs/page');
    const require = createRequire(import.meta.url);
    for (const spec of DOCS_ASSETS) {
      const name = spec.split('/').pop()!;
      const asset = page.docsAsset(name)!;
      expect(asset.body.equals(readFileSync(require.resolve(spec))), name).toBe(true);
      expect(asset.gzipped.length).toBeLessThan(asset.body.length / 2);
    }
    // Swagger UI's bundle fits a Lambda response (6 MB) even uncompressed.
    expect(page.docsAsset('swagger-ui-bundle.js')!.body.length).toBeLessThan(4 * 1024 * 1024);
    expect(page.docsAsset('nope.js')).toBeUndefined();
  }, 60_000);
});
