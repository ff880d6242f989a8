/**
 * The CLI against a deployed table: the store signs its own calls, with the region and credentials
 * the AWS SDK's default chain resolves, here a named profile of the shared config files.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'helpdesk-cli-profile-'));
writeFileSync(
  join(dir, 'credentials'),
  '[support]\naws_access_key_id = AKIDPROFILE\naws_secret_access_key = profile-secret\n',
);
writeFileSync(join(dir, 'config'), '[profile support]\nregion = ap-southeast-2\n');
for (const name of [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
  'TABLE_NAME',
])
  delete process.env[name];
Object.assign(process.env, {
  AWS_SHARED_CREDENTIALS_FILE: join(dir, 'credentials'),
  AWS_CONFIG_FILE: join(dir, 'config'),
  AWS_PROFILE: 'support',
});

it("signs the store's calls with the profile's credentials, in the profile's region", async () => {
  const { connect } = await import('../../cli/target');
  await connect({ kind: 'aws', table: 'helpdesk-prod' });
  expect(process.env.AWS_REGION).toBe('ap-southeast-2');
  expect(process.env.TABLE_NAME).toBe('helpdesk-prod');

  const { awsSigner } = await import('../../shared/aws/sigv4');
  const signed = await awsSigner('dynamodb', process.env.AWS_REGION!).sign({
    method: 'POST',
    protocol: 'https:',
    hostname: 'dynamodb.ap-southeast-2.amazonaws.com',
    path: '/',
    headers: { host: 'dynamodb.ap-southeast-2.amazonaws.com' },
    body: '{}',
  });
  expect(signed.headers.authorization).toMatch(
    /^AWS4-HMAC-SHA256 Credential=AKIDPROFILE\/\d{8}\/ap-southeast-2\/dynamodb\/aws4_request, /,
  );
});
