/**
 * How every function is bundled: the CDK stack passes these to NodejsFunction, and the benchmark
 * bundles with the same settings to measure sizes and cold imports.
 */
import { fileURLToPath } from 'node:url';

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

/**
 * The functions bundled with the Powertools Tracer (X-Ray subsegments for each DynamoDB call and S3
 * request): the writes that touch the table and the bucket in one request, where the breakdown of
 * a slow call is worth the cost. The Tracer brings the X-Ray SDK: measured here, +125 KB to a
 * ~260 KB bundle and +60-75 ms of cold import. Every function, these included, also has Lambda's
 * active tracing (its invocation, init and overhead in X-Ray), which adds nothing to the bundle.
 */
export const TRACED_HANDLERS: ReadonlySet<string> = new Set(['tickets/create', 'followups/create', 'attachments/create', 'tickets/delete']);

/** Compile-time constants of a function's bundle (shared/middleware/observe.ts reads this one). */
export function bundleDefines(handler: string): Record<string, string> {
  return { 'process.env.HELPDESK_TRACER': JSON.stringify(String(TRACED_HANDLERS.has(handler))) };
}
