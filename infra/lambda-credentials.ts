/**
 * Stand-in for @aws-sdk/credential-provider-node in Lambda bundles (see bundling.ts): the
 * function's credentials are always in its environment.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

export const defaultProvider = () => fromEnv();
export const credentialsTreatedAsExpired = () => false;
export const credentialsWillNeedRefresh = () => false;
