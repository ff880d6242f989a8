/**
 * Behind the optional edge (infra/edge.ts: CloudFront with AWS WAF), the API's own endpoint must not
 * be a way around the firewall. HTTP APIs take no WAF and no resource policy, and CloudFront reaches
 * the API through its custom domain (the default execute-api endpoint is off), which anyone can
 * reach too; so CloudFront adds a header with a secret to every request it forwards, and every
 * function refuses a request without it (403) before anything else. The secret lives in Secrets
 * Manager in us-east-1, beside the distribution (HELPDESK_ORIGIN_SECRET_NAME, read once per warm
 * function); HELPDESK_ORIGIN_SECRET gives the value itself (the local runtime has no edge, and the
 * tests set it). Neither set: no check.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { awsJsonCall } from '../store/aws-json';
import { PermissionDenied, ServiceUnavailable } from '../domain/errors';
import { config } from '../config';

/** The header CloudFront adds to every request it forwards (infra/edge.ts). */
export const ORIGIN_HEADER = 'X-Origin-Verify';
/** Where the secret is kept: the region of every CLOUDFRONT-scope resource. */
const SECRET_REGION = 'us-east-1';

/** One read of the secret: a hung call answers 503 well before the function's timeout. */
const SECRET_READ_TIMEOUT_MS = 2000;

async function readSecret(): Promise<string | undefined> {
  const name = config.originSecretName;
  if (!name) return config.originSecret;
  // Secrets Manager's JSON API, signed (store/aws-json.ts): no SDK client in every bundle. One attempt.
  const answer = await awsJsonCall<{ SecretString?: string }>('secretsmanager', 'GetSecretValue', { SecretId: name }, { region: SECRET_REGION, attempts: 1, timeoutMs: SECRET_READ_TIMEOUT_MS });
  return answer.SecretString;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** The secret's digest, read once per warm function (again after a failed read); undefined: no edge. */
let expected: Promise<Buffer | undefined> | undefined;
function expectedDigest(): Promise<Buffer | undefined> {
  expected ??= readSecret().then(
    (secret) => (secret === undefined ? undefined : digest(secret)),
    (error: unknown) => {
      expected = undefined;
      throw error;
    },
  );
  return expected;
}

/** Throws 403 unless the request carries the edge's secret (when there is an edge). */
export async function checkOrigin(sent: string | undefined): Promise<void> {
  let wanted: Buffer | undefined;
  try {
    wanted = await expectedDigest();
  } catch {
    throw new ServiceUnavailable();
  }
  if (wanted === undefined) return;
  // Compared as digests, in constant time whatever the lengths.
  if (sent === undefined || !timingSafeEqual(digest(sent), wanted)) {
    throw new PermissionDenied("Requests must come through the API's edge address.");
  }
}
