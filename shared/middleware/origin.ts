/**
 * Behind the optional edge (infra/edge.ts: CloudFront with AWS WAF), the API's own endpoint must not
 * be a way around the firewall. HTTP APIs take no WAF and no resource policy, and CloudFront reaches
 * the API through its custom domain (the default execute-api endpoint is off), which anyone can
 * reach too; so CloudFront adds a header with a secret to every request it forwards, and every
 * function refuses a request without it (403) before anything else. The secret lives in Secrets
 * Manager in us-east-1, beside the distribution (HELPDESK_ORIGIN_SECRET_NAME); HELPDESK_ORIGIN_SECRET
 * gives the value itself (the local runtime has no edge, and the tests set it). Neither set: no check.
 *
 * Rotation (docs/operations.md): a function reads the secret again every SECRET_CACHE_MS, and for
 * ROTATION_GRACE_MS after a new value became current it also accepts the previous one (the version
 * labelled AWSPREVIOUS), the time to deploy the edge so that CloudFront sends the new value. Removing
 * that label ends the grace early. A failed read keeps the last values read (a Secrets Manager
 * outage does not refuse the edge's requests); with none read yet, the request gets 503.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { awsJsonCall } from '../aws/aws-json';
import { PermissionDenied, ServiceUnavailable } from '../domain/errors';
import { config } from '../config';
import { logger } from '../observability';

/** The header CloudFront adds to every request it forwards (infra/edge.ts). */
export const ORIGIN_HEADER = 'X-Origin-Verify';
/** Where the secret is kept: the region of every CLOUDFRONT-scope resource. */
const SECRET_REGION = 'us-east-1';

/** One read of the secret: a hung call answers 503 well before the function's timeout. */
const SECRET_READ_TIMEOUT_MS = 2000;
/**
 * How long the values read are used before they are read again: the time a rotation takes to reach every warm function.
 */
export const SECRET_CACHE_MS = 5 * 60_000;
/**
 * How long after a new value became current the previous one is still accepted: the time to deploy the edge with it.
 */
export const ROTATION_GRACE_MS = 24 * 3600_000;
/** After a failed read, how soon the next request tries again (meanwhile the last values read hold). */
const RETRY_AFTER_FAILURE_MS = 10_000;

interface SecretVersion {
  SecretString?: string;
  /** When this version was made (epoch seconds): for the current one, when the rotation happened. */
  CreatedDate?: number;
}

async function readVersion(name: string, stage: 'AWSCURRENT' | 'AWSPREVIOUS'): Promise<SecretVersion | undefined> {
  try {
    // Secrets Manager's JSON API, signed (aws/aws-json.ts): no SDK client in every bundle. One attempt.
    return await awsJsonCall<SecretVersion>(
      'secretsmanager',
      'GetSecretValue',
      { SecretId: name, VersionStage: stage },
      { region: SECRET_REGION, attempts: 1, timeoutMs: SECRET_READ_TIMEOUT_MS },
    );
  } catch (error) {
    // No version has the label: never rotated, or its grace ended early by hand.
    if (stage === 'AWSPREVIOUS' && (error as Error).name === 'ResourceNotFoundException') return undefined;
    throw error;
  }
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** The values a request may carry, as digests; undefined: no edge. */
async function readAccepted(nowMs: number): Promise<Buffer[] | undefined> {
  const name = config.originSecretName;
  if (!name) return config.originSecret === undefined ? undefined : [digest(config.originSecret)];
  const current = await readVersion(name, 'AWSCURRENT');
  if (current?.SecretString === undefined) throw new Error(`The origin secret ${name} has no current value`);
  const rotatedAt = (current.CreatedDate ?? 0) * 1000;
  const previous = nowMs - rotatedAt < ROTATION_GRACE_MS ? await readVersion(name, 'AWSPREVIOUS') : undefined;
  return [current.SecretString, previous?.SecretString]
    .filter((value): value is string => value !== undefined)
    .map(digest);
}

let reading: Promise<Buffer[] | undefined> | undefined;
let readAt = 0;
let lastRead: { digests: Buffer[] | undefined } | undefined;

function acceptedDigests(): Promise<Buffer[] | undefined> {
  const now = Date.now();
  if (reading && now - readAt < SECRET_CACHE_MS) return reading;
  readAt = now;
  reading = readAccepted(now).then(
    (digests) => {
      lastRead = { digests };
      return digests;
    },
    (error: unknown) => {
      if (!lastRead) {
        reading = undefined;
        throw error;
      }
      logger.warn('origin secret not read; the last values read still hold', {
        error: (error as Error).name,
        detail: (error as Error).message.slice(0, 200),
      });
      readAt = Date.now() - SECRET_CACHE_MS + RETRY_AFTER_FAILURE_MS;
      return lastRead.digests;
    },
  );
  return reading;
}

/**
 * Throws 403 unless the request carries the edge's secret (when there is an edge). True when it
 * proved it came through the edge, so that what CloudFront says of the viewer can be believed.
 */
export async function checkOrigin(sent: string | undefined): Promise<boolean> {
  let accepted: Buffer[] | undefined;
  try {
    accepted = await acceptedDigests();
  } catch {
    throw new ServiceUnavailable();
  }
  if (accepted === undefined) return false;
  // Compared as digests, in constant time whatever the lengths, against every accepted value.
  const sentDigest = digest(sent ?? '');
  const matches = accepted.map((wanted) => timingSafeEqual(sentDigest, wanted)).includes(true);
  if (sent === undefined || !matches) throw new PermissionDenied("Requests must come through the API's edge address.");
  return true;
}
