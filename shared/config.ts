/**
 * Configuration from the environment. The CDK stack sets these per environment; the local runtime
 * sets them from its defaults. AWS endpoints come from the SDK's own AWS_ENDPOINT_URL_DYNAMODB and
 * AWS_ENDPOINT_URL_S3, so handler code is identical locally and on AWS.
 */
import { loginThrottleFrom } from './domain/login-throttle';
import { parseAuthenticationClasses } from './domain/tokens';
import { parseCorsOrigins } from './domain/cross-origin';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`Environment variable ${name} is not set`);
  return value;
}

export const config = {
  get tableName() {
    return required('TABLE_NAME');
  },
  get bucketName() {
    return required('BUCKET_NAME');
  },
  /** The API exists only when this is exactly `True` (spec; upstream v1.0.0). */
  get apiActive() {
    return process.env.HELPDESK_ACTIVATE_API_ENDPOINT === 'True';
  },
  /** Failed-login throttling (domain/login-throttle.ts): HELPDESK_LOGIN_* variables, else defaults. */
  get loginThrottle() {
    return loginThrottleFrom(process.env);
  },
  /** The authentication schemes tried in order (`basic`, `token`), as DRF's DEFAULT_AUTHENTICATION_CLASSES. */
  get authenticationClasses() {
    return parseAuthenticationClasses(process.env.HELPDESK_AUTHENTICATION_CLASSES);
  },
  /** Origins the CORS setting lists (HELPDESK_CORS_ORIGINS; the stack sets it from the environment's corsOrigins). */
  get corsOrigins() {
    return parseCorsOrigins(process.env.HELPDESK_CORS_ORIGINS);
  },
  /**
   * The API's public address behind the edge (infra/edge.ts sets it: `https://<edge domain>`), where
   * the host a function sees is CloudFront's origin; undefined without an edge.
   */
  get publicUrl() {
    return process.env.HELPDESK_PUBLIC_URL || undefined;
  },
  /** Path-style S3 addressing, needed by the local S3 engine (there is no standard variable for it). */
  get s3ForcePathStyle() {
    return process.env.HELPDESK_S3_FORCE_PATH_STYLE === 'true';
  },
};
