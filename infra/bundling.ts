/**
 * How every function is bundled: the CDK stack passes these to NodejsFunction, and the benchmark
 * bundles with the same settings to measure sizes and cold imports.
 */
import { createRequire } from 'node:module';
import { brotliCompressSync, constants } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { LogLevel, OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { openApiTemplate } from '../shared/api/openapi';
import { answersCanBeLarge, fallbackRoute, routeFacts, routes } from '../shared/api/routes';
import { BUNDLED_WORKER } from '../shared/mail-in/bounded';

/**
 * An ESM bundle needs `require` for the CommonJS parts of its dependencies (esbuild's ESM output has no `require` of
 * its own).
 */
export const ESM_REQUIRE_BANNER = "import{createRequire}from'module';const require=createRequire(import.meta.url);";

/**
 * Module replacements in every bundle (the local runtime is not bundled and imports the real ones).
 */
export const BUNDLE_ALIASES: Record<string, string> = {
  /**
   * node:http and node:https taken with process.getBuiltinModule (infra/builtins/), not imported: an
   * ESM import of node:http builds the module's ESM facade, which reads every export, and reading its
   * lazy `WebSocket`, `MessageEvent` and `CloseEvent` loads all of undici (fetch's HTTP client) and
   * http2 and zlib with it. That was a fifth of a cold import (tickets/get: median 120 → 92 ms on a
   * loaded machine); fetch, where a function calls it, loads undici on first use instead.
   */
  ...Object.fromEntries(
    ['http', 'https'].flatMap((name) => {
      const shim = fileURLToPath(new URL(`./builtins/${name}.ts`, import.meta.url));
      return [
        [name, shim],
        [`node:${name}`, shim],
      ];
    }),
  ),
  /** The SDK's retry strategy and error classification without the retry middleware (infra/bundled/). */
  '@smithy/util-retry': fileURLToPath(new URL('./bundled/smithy-retry.js', import.meta.url)),
  '@smithy/service-error-classification': fileURLToPath(
    new URL('./bundled/smithy-error-classification.js', import.meta.url),
  ),
};

export const BUNDLE_SETTINGS = {
  format: 'esm',
  minify: true,
  target: 'node22',
  platform: 'node',
  mainFields: ['module', 'main'],
  banner: ESM_REQUIRE_BANNER,
  /** Nothing is left out: no function bundles an SDK client (shared/aws/dynamodb.ts, aws-json.ts). */
  external: [],
} as const;

/** NodejsFunction's bundling options for every function of the stacks. */
export function lambdaBundling(
  handler: string,
  assets: readonly string[] = [],
  traced = false,
  oidc = false,
): BundlingOptions {
  return {
    format: OutputFormat.ESM,
    minify: BUNDLE_SETTINGS.minify,
    target: BUNDLE_SETTINGS.target,
    sourceMap: false,
    mainFields: [...BUNDLE_SETTINGS.mainFields],
    banner: BUNDLE_SETTINGS.banner,
    define: bundleDefines(handler, traced, oidc),
    esbuildArgs: Object.fromEntries(Object.entries(BUNDLE_ALIASES).map(([from, to]) => [`--alias:${from}`, to])),
    // Bundle everything: nothing is taken from the runtime's copy of the AWS SDK.
    externalModules: [...BUNDLE_SETTINGS.external],
    forceDockerBundling: false,
    logLevel: LogLevel.WARNING,
    // Files the function reads at run time (the API reference page's renderer, the mail text worker) go beside the
    // bundle.
    ...(assets.length || MAIL_TEXT_WORKER_HANDLERS.includes(handler)
      ? {
          commandHooks: {
            beforeBundling: () => [],
            beforeInstall: () => [],
            afterBundling: (_inputDir: string, outputDir: string) => [
              ...assetCommands(assets, outputDir),
              ...workerCommands(handler, outputDir),
            ],
          },
        }
      : {}),
  };
}

/** The functions that parse received mail, in a worker thread (shared/mail-in/bounded.ts). */
export const MAIL_TEXT_WORKER_HANDLERS = ['mail-in/ingest', 'mail-in/poll', 'mail-in/release'];

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The shell command that bundles the mail text worker beside a mail-in function's bundle, as its own ESM file. */
export function workerCommands(handler: string, outputDir: string): string[] {
  if (!MAIL_TEXT_WORKER_HANDLERS.includes(handler)) return [];
  const esbuild = createRequire(import.meta.url).resolve('esbuild/bin/esbuild');
  const entry = fileURLToPath(new URL('../shared/mail-in/text-worker.ts', import.meta.url));
  const options = [
    '--bundle --format=esm --platform=node',
    `--target=${BUNDLE_SETTINGS.target}`,
    '--minify --log-level=warning',
    `--banner:js=${quote(ESM_REQUIRE_BANNER)}`,
    `--outfile=${quote(`${outputDir}/${BUNDLED_WORKER}`)}`,
  ].join(' ');
  return [`${quote(esbuild)} ${quote(entry)} ${options}`];
}

/**
 * Shell commands that copy a route's run-time files (`Route.assets`, from node_modules) into its
 * bundle's `assets/` folder, where the function reads them (shared/docs/page.ts). Run by
 * NodejsFunction after esbuild, on the machine that synthesises.
 */
export function assetCommands(assets: readonly string[], outputDir: string): string[] {
  if (assets.length === 0) return [];
  const require = createRequire(import.meta.url);
  return [
    `mkdir -p ${quote(`${outputDir}/assets`)}`,
    ...assets.map((spec) => `cp ${quote(require.resolve(spec))} ${quote(`${outputDir}/assets/`)}`),
  ];
}

/**
 * Compile-time constants of a function's bundle:
 * - its route's facts, so that the bundle leaves the route table out (shared/middleware/index.ts);
 * - whether it has the Tracer (shared/middleware/observe.ts; EnvironmentSettings.tracedHandlers);
 * - whether it can parse multipart bodies (shared/middleware/body.ts): only the methods that carry a
 *   body do (a POST without fields still fingerprints its body for an Idempotency-Key);
 * - whether it carries OpenID Connect's verification (jose: shared/middleware/auth.ts): only where the environment's
 *   authentication classes name `oidc`;
 * - whether it parks an answer too large to return (shared/middleware/large-answers.ts): only a route whose answer can
 *   be (answersCanBeLarge);
 * - for the openapi function, the document's template (shared/api/openapi-template.ts), as base64 of
 *   its JSON brotli-compressed (deterministic: the same routes give the same bundle).
 */
export function bundleDefines(handler: string, traced = false, oidc = false): Record<string, string> {
  // Functions without a route (stream consumers, queue workers, schedules) parse no request.
  const route = [...routes, fallbackRoute].find((r) => r.handler === handler);
  const takesBody = route?.method === 'POST' || route?.method === 'PUT' || route?.method === 'PATCH';
  return {
    ...(route ? { 'process.env.HELPDESK_ROUTE_FACTS': JSON.stringify(JSON.stringify(routeFacts(route))) } : {}),
    'process.env.HELPDESK_TRACER': JSON.stringify(String(traced)),
    'process.env.HELPDESK_MULTIPART': JSON.stringify(String(takesBody)),
    'process.env.HELPDESK_OIDC_BUNDLED': JSON.stringify(String(oidc)),
    'process.env.HELPDESK_PARKS_ANSWERS': JSON.stringify(String(route !== undefined && answersCanBeLarge(route))),
    ...(handler === 'api/openapi'
      ? { 'process.env.HELPDESK_OPENAPI_TEMPLATE': JSON.stringify(packedOpenApiTemplate()) }
      : {}),
  };
}

let packedTemplate: string | undefined;
function packedOpenApiTemplate(): string {
  packedTemplate ??= brotliCompressSync(JSON.stringify(openApiTemplate()), {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11 },
  }).toString('base64');
  return packedTemplate;
}

/**
 * Bundles one function exactly as the stacks do, to `outfile` (the benchmark and a test measure it); esbuild's metafile
 * of it.
 */
export async function bundleFunction(
  handler: string,
  outfile: string,
  traced = false,
  oidc = false,
): Promise<import('esbuild').Metafile> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [fileURLToPath(new URL(`../functions/${handler}.ts`, import.meta.url))],
    outfile,
    bundle: true,
    logLevel: 'error',
    alias: BUNDLE_ALIASES,
    define: bundleDefines(handler, traced, oidc),
    ...BUNDLE_SETTINGS,
    mainFields: [...BUNDLE_SETTINGS.mainFields],
    external: [...BUNDLE_SETTINGS.external],
    banner: { js: BUNDLE_SETTINGS.banner },
    metafile: true,
  });
  return result.metafile;
}
