/**
 * The embedded engines answer this machine only (infra/local/engines.ts). DynamoDB Local listens on
 * every interface and checks no credentials; under the loopback-only Java policy a connection from
 * another address is closed unanswered, while the runtime's own, on loopback, are served.
 *
 * The engines checked are the run's shared pair, which global-setup.ts starts with `startEngines`
 * as every runtime does (a second DynamoDB Local here would cost seconds and prove nothing more).
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { loopbackOnlyJavaOptions } from '../../infra/local/engines';

/** An address of this machine that is not loopback, if it has one. */
const outside = Object.values(networkInterfaces())
  .flat()
  .find((i) => i && !i.internal && i.family === 'IPv4')?.address;

const engines = inject('engines');

const port = (endpoint: string) => new URL(endpoint).port;

describe('DynamoDB Local', () => {
  it('answers on loopback', async () => {
    expect(await (await fetch(engines.dynamoEndpoint)).text()).toContain('com.amazonaws.dynamodb');
  });

  it.skipIf(!outside)("closes a connection from this machine's other address unanswered", async () => {
    await expect(
      fetch(`http://${outside}:${port(engines.dynamoEndpoint)}/`, { signal: AbortSignal.timeout(5000) }),
    ).rejects.toThrow();
  });
});

describe('s3rver', () => {
  it.skipIf(!outside)('listens on loopback only', async () => {
    await expect(
      fetch(`http://${outside}:${port(engines.s3Endpoint)}/`, { signal: AbortSignal.timeout(5000) }),
    ).rejects.toThrow();
  });
});

describe('the Java options', () => {
  it(
    'turn the policy on where Java has a security manager (17 to 23), and copy ' + 'a policy whose path has a space',
    () => {
      expect(loopbackOnlyJavaOptions(17)).toMatch(
        /^-Djava\.security\.manager -Djava\.security\.policy==\S+loopback-only\.policy$/,
      );
      expect(loopbackOnlyJavaOptions(23)).toBeDefined();
      expect(loopbackOnlyJavaOptions(24)).toBeUndefined();
      const policy = new URL('../../infra/local/loopback-only.policy', import.meta.url).pathname;
      const spacedDir = mkdtempSync(join(tmpdir(), 'with space '));
      const spaced = join(spacedDir, 'loopback-only.policy');
      copyFileSync(policy, spaced);
      const copied = /policy==(\S+)$/.exec(loopbackOnlyJavaOptions(17, spaced)!)![1]!;
      expect(copied).not.toBe(spaced);
      expect(readFileSync(copied, 'utf8')).toBe(readFileSync(policy, 'utf8'));
      rmSync(spacedDir, { recursive: true });
    },
  );
});
