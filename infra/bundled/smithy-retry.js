/**
 * @smithy/util-retry in Lambda bundles (see BUNDLE_ALIASES in infra/bundling.ts): the same classes,
 * taken from the files that define them. The package's index (@smithy/core/retry) also builds the
 * SDK's retry middleware at module scope, a call esbuild cannot drop, which kept the middleware and
 * the date and UUID helpers it uses in every bundle (7 KiB) though nothing calls them.
 */
export { StandardRetryStrategy } from '../../node_modules/@smithy/core/dist-es/submodules/retry/util-retry/StandardRetryStrategy.js';
export { DEFAULT_MAX_ATTEMPTS } from '../../node_modules/@smithy/core/dist-es/submodules/retry/util-retry/config.js';
