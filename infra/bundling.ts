/**
 * How every function is bundled: the CDK stack passes these to NodejsFunction, and the benchmark
 * bundles with the same settings to measure sizes and cold imports.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { LogLevel, OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';

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
} as const;

/** NodejsFunction's bundling options for every function of the stacks. */
export function lambdaBundling(assets: readonly string[] = []): BundlingOptions {
  return {
    format: OutputFormat.ESM,
    minify: BUNDLE_SETTINGS.minify,
    target: BUNDLE_SETTINGS.target,
    sourceMap: false,
    mainFields: [...BUNDLE_SETTINGS.mainFields],
    banner: BUNDLE_SETTINGS.banner,
    esbuildArgs: Object.fromEntries(Object.entries(BUNDLE_ALIASES).map(([from, to]) => [`--alias:${from}`, to])),
    // Bundle everything, the AWS SDK v3 included: smaller cold start than the runtime's copy.
    externalModules: [],
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
