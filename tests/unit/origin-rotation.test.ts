/**
 * The edge's origin secret as the functions read it from Secrets Manager (shared/middleware/origin.ts),
 * through a rotation (docs/operations.md): read again every few minutes, the previous value accepted
 * for a grace period after a new one became current (or until its label is removed), and a failed
 * read after a good one not turned into refusals. Secrets Manager is stood in for by a loopback
 * server (./aws-stand-in) that answers GetSecretValue from a table of versions, as the service does
 * (no local engine exists). Only Date is faked: the sockets are real.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startAwsStandIn, type Reply } from './aws-stand-in';

process.env.AWS_REGION = 'eu-west-1';
process.env.AWS_ACCESS_KEY_ID = 'AKIDEXAMPLE';
process.env.AWS_SECRET_ACCESS_KEY = 'secret';
process.env.HELPDESK_ORIGIN_SECRET_NAME = 'helpdesk-test-origin-verify';
const secretsManager = await startAwsStandIn();
process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = secretsManager.endpoint;
const { checkOrigin, ROTATION_GRACE_MS, SECRET_CACHE_MS } = await import('../../shared/middleware/origin');

const START = Date.parse('2026-11-27T10:00:00Z');
/** The secret's versions by stage label, as Secrets Manager holds them; undefined: Secrets Manager is failing. */
let versions: Partial<Record<'AWSCURRENT' | 'AWSPREVIOUS', { SecretString: string; CreatedDate: number }>> | undefined;
const reads: string[] = [];

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(START);
  secretsManager.answer = answer;
});

/**
 * GetSecretValue, as Secrets Manager answers it for `versions` (a read: one call; the origin check makes one attempt).
 */
function answer(body: Record<string, unknown>): Reply {
  const { SecretId, VersionStage } = body as { SecretId: string; VersionStage: 'AWSCURRENT' | 'AWSPREVIOUS' };
  reads.push(VersionStage);
  if (!versions) return { status: 500, body: { __type: 'InternalServiceError', message: 'down' } };
  const version = versions[VersionStage];
  if (SecretId !== process.env.HELPDESK_ORIGIN_SECRET_NAME || !version) {
    return {
      status: 400,
      body: {
        __type: 'ResourceNotFoundException',
        message: `Secrets Manager can't find the specified secret value for staging label: ${VersionStage}`,
      },
    };
  }
  return {
    status: 200,
    body: { Name: SecretId, VersionId: `v-${version.SecretString}`, VersionStages: [VersionStage], ...version },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

afterAll(() => secretsManager.close());

const at = (ms: number) => vi.setSystemTime(START + ms);
const accepts = (value: string | undefined) =>
  checkOrigin(value).then(
    () => true,
    (error: { status?: number }) => {
      if (error.status !== 403) throw error;
      return false;
    },
  );

describe('the origin secret through a rotation', () => {
  it(
    'accepts the current value, then both for the grace period once a new one ' + 'is current, then the new one only',
    async () => {
      const made = START / 1000 - 30 * 86400;
      versions = { AWSCURRENT: { SecretString: 'old-value', CreatedDate: made } };
      expect(await accepts('old-value')).toBe(true);
      expect(await accepts('new-value')).toBe(false);
      expect(await accepts(undefined)).toBe(false);
      // Long after the last rotation, the previous version is not even read.
      expect(reads).toEqual(['AWSCURRENT']);

      // put-secret-value: the new value is AWSCURRENT, the old one AWSPREVIOUS.
      at(60_000);
      versions = {
        AWSCURRENT: { SecretString: 'new-value', CreatedDate: (START + 60_000) / 1000 },
        AWSPREVIOUS: { SecretString: 'old-value', CreatedDate: made },
      };
      // Until the values read run out, a warm function goes on with them (no read per request).
      expect(await accepts('new-value')).toBe(false);
      expect(reads).toHaveLength(1);

      at(SECRET_CACHE_MS);
      expect(await accepts('old-value')).toBe(true); // CloudFront, until the edge is deployed
      expect(await accepts('new-value')).toBe(true); // CloudFront, after
      expect(await accepts('other')).toBe(false);

      at(60_000 + ROTATION_GRACE_MS + SECRET_CACHE_MS);
      expect(await accepts('old-value')).toBe(false);
      expect(await accepts('new-value')).toBe(true);
    },
  );

  it('ends the grace early when the operator removes the AWSPREVIOUS label', async () => {
    // (A fresh module per file; this one continues from the previous test's state, a day on.)
    at(2 * ROTATION_GRACE_MS);
    const rotated = (START + 2 * ROTATION_GRACE_MS) / 1000;
    versions = {
      AWSCURRENT: { SecretString: 'third-value', CreatedDate: rotated },
      AWSPREVIOUS: { SecretString: 'new-value', CreatedDate: 0 },
    };
    expect(await accepts('new-value')).toBe(true);
    expect(await accepts('third-value')).toBe(true);
    delete versions.AWSPREVIOUS;
    at(2 * ROTATION_GRACE_MS + SECRET_CACHE_MS);
    expect(await accepts('new-value')).toBe(false);
    expect(await accepts('third-value')).toBe(true);
  });

  it('keeps the last values read while Secrets Manager fails, and reads again soon', async () => {
    at(3 * ROTATION_GRACE_MS);
    versions = undefined;
    reads.length = 0;
    expect(await accepts('third-value')).toBe(true);
    expect(await accepts('other')).toBe(false);
    expect(reads).toEqual(['AWSCURRENT']);
    // Within seconds (not the whole cache period), the next request tries again.
    versions = { AWSCURRENT: { SecretString: 'fourth-value', CreatedDate: 0 } };
    at(3 * ROTATION_GRACE_MS + 15_000);
    expect(await accepts('fourth-value')).toBe(true);
    expect(await accepts('third-value')).toBe(false);
  });
});

describe('a function that has never read the secret', () => {
  it('answers 503 while Secrets Manager fails, and reads again at the next request', async () => {
    vi.resetModules();
    const fresh = await import('../../shared/middleware/origin');
    versions = undefined;
    await expect(fresh.checkOrigin('anything')).rejects.toMatchObject({ status: 503 });
    versions = { AWSCURRENT: { SecretString: 'value', CreatedDate: 0 } };
    await expect(fresh.checkOrigin('value')).resolves.toBe(true);
  });
});
