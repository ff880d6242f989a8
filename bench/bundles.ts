/**
 * Bundle size and cold import time of every function, bundled exactly as the CDK stack bundles
 * it (infra/bundling.ts): size of the minified ESM bundle, and the median time a fresh Node
 * process takes to import it (10 runs each).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleFunction } from '../infra/bundling';
import { fallbackRoute, routes } from '../shared/api/routes';


export interface BundleResult {
  handler: string;
  bytes: number;
  importMs: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export async function measureBundles(runs = 10): Promise<BundleResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'helpdesk-bundles-'));
  const handlers = [...new Set([...routes, fallbackRoute].map((r) => r.handler))];
  try {
    const results: BundleResult[] = [];
    for (const handler of handlers) {
      const outfile = join(dir, `${handler.replace('/', '-')}.mjs`);
      await bundleFunction(handler, outfile);
      const probe = join(dir, `probe-${handler.replace('/', '-')}.mjs`);
      writeFileSync(
        probe,
        `const t = performance.now(); const m = await import(${JSON.stringify(outfile)}); ` +
          `if (typeof m.handler !== 'function') throw new Error('no handler'); console.log(performance.now() - t);`,
      );
      const times: number[] = [];
      for (let i = 0; i < runs; i++) {
        const out = spawnSync(process.execPath, [probe], {
          env: { PATH: process.env.PATH, AWS_REGION: 'us-east-1', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
          encoding: 'utf8',
        });
        if (out.status !== 0) throw new Error(`importing ${handler} failed: ${out.stderr}`);
        times.push(Number(out.stdout.trim()));
      }
      results.push({ handler, bytes: statSync(outfile).size, importMs: Math.round(median(times) * 10) / 10 });
    }
    return results;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await measureBundles(Number(process.argv[2] ?? 10))) {
    console.log(`${r.handler.padEnd(22)} ${(r.bytes / 1024).toFixed(0).padStart(5)} KiB ${String(r.importMs).padStart(7)} ms`);
  }
}
