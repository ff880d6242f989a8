/** @smithy/service-error-classification in Lambda bundles, from its defining file (why: smithy-retry.js). */
export {
  isServerError,
  isThrottlingError,
  isTransientError,
} from '../../node_modules/@smithy/core/dist-es/submodules/retry/service-error-classification/service-error-classification.js';
