import type { TestProject } from 'vitest/node';
import { startEngines, type Engines } from '../../infra/local/engines';
import { TEST_ADMIN, spawnApiRuntime, type SpawnedRuntime } from './spawn-runtime';

export const ADMIN = TEST_ADMIN;

let engines: Engines | undefined;
let runtime: SpawnedRuntime | undefined;

export async function setup(project: TestProject) {
  // One DynamoDB Local (and one s3rver) for the whole run: the shared runtime's table is on it, and
  // every runtime a file starts for itself gets a table and bucket of its own there, in a database
  // of its own (shared-engines.ts).
  engines = await startEngines('memory', { databasePerRegion: true });
  const { dynamoEndpoint, s3Endpoint } = engines;
  // Every file's requests come from 127.0.0.1, and many test wrong passwords on purpose: the limit
  // per source across usernames (50 by default) would soon refuse the whole suite. It is tested on
  // runtimes of their own (login-sources.test.ts).
  runtime = await spawnApiRuntime({
    HELPDESK_LOGIN_FAILURES_PER_SOURCE: '1000000',
    HELPDESK_ENGINES: 'external',
    AWS_ENDPOINT_URL_DYNAMODB: dynamoEndpoint,
    AWS_ENDPOINT_URL_S3: s3Endpoint,
  }).catch(async (error: Error) => {
    await engines?.stop();
    throw error;
  });
  project.provide('apiUrl', runtime.url);
  project.provide('admin', ADMIN);
  project.provide('engines', { dynamoEndpoint, s3Endpoint });
}

export async function teardown() {
  await runtime?.stop();
  await engines?.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    apiUrl: string;
    admin: { username: string; password: string };
    /** The shared engines (shared-engines.ts). */
    engines: { dynamoEndpoint: string; s3Endpoint: string };
  }
}
