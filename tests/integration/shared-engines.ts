/**
 * The run's shared engines: one DynamoDB Local and one s3rver, started by global-setup.ts with the
 * project's own `startEngines`. A runtime that a test file starts for itself (other settings, state
 * compared exactly) uses them, on a table and a bucket of its own, rather than starting a JVM of its
 * own: DynamoDB Local takes seconds to start and to warm up, and ~260 MB, each time.
 *
 * Each such runtime also has an AWS region of its own, which gives it a database of its own in that
 * DynamoDB Local (started with `databasePerRegion`): DynamoDB Local takes the calls to one database
 * one at a time, and a file's burst of writes would otherwise hold up every other runtime's calls.
 * The shared runtime keeps the default region (us-east-1).
 */
import { randomBytes } from 'node:crypto';
import { basename } from 'node:path';
import { expect, inject } from 'vitest';

/**
 * The environment that puts a runtime on the shared engines, with a table and bucket named after the
 * test file (and a random suffix: a file may start several runtimes). `npm start` reads it as
 * HELPDESK_ENGINES=external (infra/local/main.ts).
 */
export function onSharedEngines(label?: string): Record<string, string> {
  const { dynamoEndpoint, s3Endpoint } = inject('engines');
  const file = label ?? basename(expect.getState().testPath ?? 'file', '.test.ts');
  // Valid as both: DynamoDB table names take 3-255 of [a-zA-Z0-9_.-], bucket names 3-63 of [a-z0-9-].
  const name = `${file
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 40)}-${randomBytes(4).toString('hex')}`;
  return {
    HELPDESK_ENGINES: 'external',
    AWS_ENDPOINT_URL_DYNAMODB: dynamoEndpoint,
    AWS_ENDPOINT_URL_S3: s3Endpoint,
    // A valid host label, as a region name must be (the SDK checks); DynamoDB Local takes any.
    AWS_REGION: name,
    TABLE_NAME: name,
    BUCKET_NAME: name,
  };
}
