/**
 * Bundle size and cold import time of every function the stacks deploy, bundled exactly as the CDK
 * stack bundles it (infra/bundling.ts): size of the minified ESM bundle, and the median time a fresh
 * Node process takes to import it (10 runs each).
 *
 * `npx tsx bench/bundles.ts --why <handler>` prints what one bundle holds, by package (esbuild's metafile).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleFunction } from '../infra/bundling';
import { fallbackRoute, routes } from '../shared/api/routes';

export interface BundleResult {
  handler: string;
  /** A route's function (API Gateway in front), or a worker: stream consumers, queue and event consumers, schedules. */
  route: boolean;
  bytes: number;
  importMs: number;
}

const FUNCTIONS_DIR = fileURLToPath(new URL('../functions/', import.meta.url));
const EXPORTS_HANDLER = /^export (?:async function|const) handler\b/m;

/**
 * Every function the stacks deploy: the routes' handlers, then every other file under functions/
 * that exports a `handler` (NodejsFunction's entry point, infra/lambda.ts), the workers: stream
 * consumers, the mail sender, the ingest, the event recorder, schedules. Helpers there export none.
 */
export function deployedHandlers(): { handler: string; route: boolean }[] {
  const routeHandlers = new Set([...routes, fallbackRoute].map((r) => r.handler));
  const files = readdirSync(FUNCTIONS_DIR, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => relative(FUNCTIONS_DIR, join(FUNCTIONS_DIR, f)).replace(/\\/g, '/').replace(/\.ts$/, ''))
    .sort();
  const workers = files.filter(
    (h) => !routeHandlers.has(h) && EXPORTS_HANDLER.test(readFileSync(join(FUNCTIONS_DIR, `${h}.ts`), 'utf8')),
  );
  return [
    ...[...routeHandlers].map((handler) => ({ handler, route: true })),
    ...workers.map((handler) => ({ handler, route: false })),
  ];
}

/**
 * What a worker reads from its environment at import, as the stacks set it (placeholders: nothing
 * is called at import); route functions need none of it.
 */
const WORKER_ENV: Record<string, string> = {
  HELPDESK_WEBHOOK_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/webhooks',
  HELPDESK_WEBHOOK_DEAD_LETTER_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/webhooks-dead-letter',
  HELPDESK_MAIL_TRANSPORT: 'ses',
  HELPDESK_MAIL_FROM: 'Helpdesk <helpdesk@example.com>',
  HELPDESK_MAIL_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/mail',
  HELPDESK_MAIL_DEAD_LETTER_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/mail-dead-letter',
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export async function measureBundles(runs = 10, handlers = deployedHandlers()): Promise<BundleResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'helpdesk-bundles-'));
  try {
    const results: BundleResult[] = [];
    for (const { handler, route } of handlers) {
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
          env: {
            PATH: process.env.PATH,
            AWS_REGION: 'us-east-1',
            AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
            ...(route ? {} : WORKER_ENV),
          },
          encoding: 'utf8',
        });
        if (out.status !== 0) throw new Error(`importing ${handler} failed: ${out.stderr}`);
        times.push(Number(out.stdout.trim()));
      }
      results.push({ handler, route, bytes: statSync(outfile).size, importMs: Math.round(median(times) * 10) / 10 });
    }
    return results;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What one bundle holds: its bytes by package (a file of the project by its folder), largest first. */
export async function bundleComposition(handler: string): Promise<{ total: number; parts: [string, number][] }> {
  const dir = mkdtempSync(join(tmpdir(), 'helpdesk-bundle-'));
  try {
    const meta = await bundleFunction(handler, join(dir, 'bundle.mjs'));
    const output = Object.values(meta.outputs)[0]!;
    const parts = new Map<string, number>();
    for (const [file, { bytesInOutput }] of Object.entries(output.inputs)) {
      // A package by its name (nodemailer by its module's folder: it is one package of many modules).
      const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)(?:\/dist\/esm\/([^/]+)\/)?/.exec(file);
      const part = pkg
        ? pkg[1] === 'nodemailer' && pkg[2]
          ? `nodemailer/${pkg[2]}`
          : pkg[1]!
        : file.split('/').slice(0, 2).join('/');
      parts.set(part, (parts.get(part) ?? 0) + bytesInOutput);
    }
    return { total: output.bytes, parts: [...parts].sort((a, b) => b[1] - a[1]) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv[2] === '--why') {
    const { total, parts } = await bundleComposition(process.argv[3]!);
    console.log(`${process.argv[3]}: ${(total / 1024).toFixed(0)} KiB`);
    for (const [part, bytes] of parts.filter(([, b]) => b >= 1024))
      console.log(`${(bytes / 1024).toFixed(1).padStart(7)} KiB ${part}`);
    process.exit(0);
  }
  for (const r of await measureBundles(Number(process.argv[2] ?? 10))) {
    console.log(
      `${r.handler.padEnd(22)} ${(r.bytes / 1024).toFixed(0).padStart(5)} KiB ${String(r.importMs).padStart(7)} ms`,
    );
  }
}
