/**
 * How every function is bundled: the CDK stack passes these to NodejsFunction, and the benchmark
 * bundles with the same settings to measure sizes and cold imports.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { LogLevel, OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { fallbackRoute, routeFacts, routes } from '../shared/api/routes';

/** An ESM bundle needs `require` for the CommonJS parts of its dependencies (toolchain.md). */
export const ESM_REQUIRE_BANNER = "import{createRequire}from'module';const require=createRequire(import.meta.url);";

/**
 * Lambda always hands a function its role's credentials in environment variables, so the SDK's
 * default provider chain (SSO, INI files, STS web identity, instance metadata: ~90 KB minified)
 * is replaced in bundles by the environment provider alone. Local runs are not bundled and keep
 * the full chain.
 */
export const BUNDLE_ALIASES: Record<string, string> = {
  '@aws-sdk/credential-provider-node': fileURLToPath(new URL('./lambda-credentials.ts', import.meta.url)),
};

export const BUNDLE_SETTINGS = {
  format: 'esm',
  minify: true,
  target: 'node22',
  platform: 'node',
  mainFields: ['module', 'main'],
  banner: ESM_REQUIRE_BANNER,
  /**
   * Left out of every bundle (~15 KiB): the SDK imports its event-stream codec lazily, only for an
   * operation that streams events, and none of DynamoDB's or SQS's does (S3 and Secrets Manager are
   * called through aws4fetch).
   */
  external: ['@smithy/core/event-streams'],
} as const;

/** NodejsFunction's bundling options for every function of the stacks. */
export function lambdaBundling(handler: string, assets: readonly string[] = []): BundlingOptions {
  return {
    format: OutputFormat.ESM,
    minify: BUNDLE_SETTINGS.minify,
    target: BUNDLE_SETTINGS.target,
    sourceMap: false,
    mainFields: [...BUNDLE_SETTINGS.mainFields],
    banner: BUNDLE_SETTINGS.banner,
    define: bundleDefines(handler),
    esbuildArgs: Object.fromEntries(Object.entries(BUNDLE_ALIASES).map(([from, to]) => [`--alias:${from}`, to])),
    // Bundle everything, the AWS SDK v3 included (smaller cold start than the runtime's copy), but
    // what no function runs.
    externalModules: [...BUNDLE_SETTINGS.external],
    forceDockerBundling: false,
    logLevel: LogLevel.WARNING,
    // Files the function reads at run time (the API reference page's renderer) go beside the bundle.
    ...(assets.length
      ? {
          commandHooks: {
            beforeBundling: () => [],
            beforeInstall: () => [],
            afterBundling: (_inputDir: string, outputDir: string) => assetCommands(assets, outputDir),
          },
        }
      : {}),
  };
}

/**
 * Shell commands that copy a route's run-time files (`Route.assets`, from node_modules) into its
 * bundle's `assets/` folder, where the function reads them (shared/docs/page.ts). Run by
 * NodejsFunction after esbuild, on the machine that synthesises.
 */
export function assetCommands(assets: readonly string[], outputDir: string): string[] {
  if (assets.length === 0) return [];
  const require = createRequire(import.meta.url);
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  return [`mkdir -p ${quote(`${outputDir}/assets`)}`, ...assets.map((spec) => `cp ${quote(require.resolve(spec))} ${quote(`${outputDir}/assets/`)}`)];
}

/**
 * The functions bundled with the Powertools Tracer (X-Ray subsegments for each DynamoDB call and S3
 * request): the two creates that store files with their records, where the breakdown of a slow
 * request (scrypt, transaction, S3 PUTs) is worth the cost. The Tracer brings the X-Ray SDK:
 * measured here, +205 KiB (to ~490 KiB, over the 300 KB bundle target of bench/report.ts) and
 * +67 ms of cold import in a bare probe (+230 ms in tickets/create on a busy machine). Every
 * function, these included, has Lambda's active tracing (invocation, init and overhead in X-Ray),
 * which adds nothing to the bundle. Add a handler here to look inside it for a while.
 */
export const TRACED_HANDLERS: ReadonlySet<string> = new Set(['tickets/create', 'followups/create']);

/**
 * Compile-time constants of a function's bundle: its route's facts, so that the bundle leaves the
 * route table out (shared/middleware/index.ts); whether it has the Tracer (shared/middleware/observe.ts);
 * and whether it can parse multipart bodies (shared/middleware/body.ts): only the methods that carry
 * a body do (a POST without fields still fingerprints its body for an Idempotency-Key).
 */
export function bundleDefines(handler: string): Record<string, string> {
  // Functions without a route (stream consumers, queue workers, schedules) parse no request.
  const route = [...routes, fallbackRoute].find((r) => r.handler === handler);
  const takesBody = route?.method === 'POST' || route?.method === 'PUT' || route?.method === 'PATCH';
  return {
    ...(route ? { 'process.env.HELPDESK_ROUTE_FACTS': JSON.stringify(JSON.stringify(routeFacts(route))) } : {}),
    'process.env.HELPDESK_TRACER': JSON.stringify(String(TRACED_HANDLERS.has(handler))),
    'process.env.HELPDESK_MULTIPART': JSON.stringify(String(takesBody)),
  };
}

/** Bundles one function exactly as the stacks do, to `outfile` (the benchmark and a test measure it). */
export async function bundleFunction(handler: string, outfile: string): Promise<void> {
  const { build } = await import('esbuild');
  await build({
    entryPoints: [fileURLToPath(new URL(`../functions/${handler}.ts`, import.meta.url))],
    outfile,
    bundle: true,
    logLevel: 'error',
    alias: BUNDLE_ALIASES,
    define: bundleDefines(handler),
    ...BUNDLE_SETTINGS,
    mainFields: [...BUNDLE_SETTINGS.mainFields],
    external: [...BUNDLE_SETTINGS.external],
    banner: { js: BUNDLE_SETTINGS.banner },
  });
}
