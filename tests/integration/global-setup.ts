import type { TestProject } from 'vitest/node';
import { startEngines, type Engines } from '../../infra/local/engines';
import { TEST_ADMIN, spawnApiRuntime, type SpawnedRuntime } from './spawn-runtime';

export const ADMIN = TEST_ADMIN;

/**
 * The JVM options of every DynamoDB Local the run starts (this one, and those that the CLI and the
 * webhook restart tests start on data directories, which inherit the variable): the client
 * compiler only. The server compiler's work does not pay back within a test run: measured here,
 * 6,000 transactions and 6,000 queries cost DynamoDB Local 28-30 s of CPU with it, 19-23 s without,
 * at about the same speed once warm, and a start 1 s of CPU less. And the serial collector rather
 * than G1 (the JVM's choice on two cores), whose concurrent threads and barriers a small heap does
 * not need: 4,500 transactions and 4,500 queries, three runs each at load 16-25, cost 14.1-19.1 s
 * (16.3 on average) with it and 16.8-20.9 s (18.4) with G1, a start 0.2 s more. startEngines adds
 * its own options.
 */
const JVM_OPTIONS = '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC';

interface Shared {
  engines: Engines;
  runtime: SpawnedRuntime;
}

async function start(): Promise<Shared> {
  process.env.JAVA_TOOL_OPTIONS = [process.env.JAVA_TOOL_OPTIONS, JVM_OPTIONS].filter(Boolean).join(' ');
  // One DynamoDB Local (and one s3rver) for the whole run: the shared runtime's table is on it, and
  // every runtime a file starts for itself gets a table and bucket of its own there, in a database
  // of its own (shared-engines.ts).
  const engines = await startEngines('memory', { databasePerRegion: true });
  // Every file's requests come from 127.0.0.1, and many test wrong passwords on purpose: the limit
  // per source across usernames (50 by default) would soon refuse the whole suite. It is tested on
  // runtimes of their own (login-sources.test.ts).
  const runtime = await spawnApiRuntime({
    HELPDESK_LOGIN_FAILURES_PER_SOURCE: '1000000',
    // As the files' own runtimes (vitest.config.ts): new password hashes at scrypt's test cost.
    HELPDESK_PASSWORD_MIN_COST: '1',
    HELPDESK_ENGINES: 'external',
    AWS_ENDPOINT_URL_DYNAMODB: engines.dynamoEndpoint,
    AWS_ENDPOINT_URL_S3: engines.s3Endpoint,
  }).catch(async (error: Error) => {
    await engines.stop();
    throw error;
  });
  return { engines, runtime };
}

/**
 * Both integration projects (vitest.config.ts) name this setup, and vitest runs it once for each,
 * in one process: the first starts the engines and the runtime, the last to tear down stops them.
 */
const RUN = Symbol.for('helpdesk.tests.sharedRuntime');
const slot = globalThis as typeof globalThis & { [RUN]?: { shared: Promise<Shared>; users: number } };

export async function setup(project: TestProject) {
  const run = (slot[RUN] ??= { shared: start(), users: 0 });
  run.users++;
  const { engines, runtime } = await run.shared;
  project.provide('apiUrl', runtime.url);
  project.provide('admin', ADMIN);
  project.provide('engines', { dynamoEndpoint: engines.dynamoEndpoint, s3Endpoint: engines.s3Endpoint });
  project.provide('ownProcess', project.config.isolate !== false);
}

export async function teardown() {
  const run = slot[RUN];
  if (!run || --run.users > 0) return;
  slot[RUN] = undefined;
  const { engines, runtime } = await run.shared;
  await runtime.stop();
  await engines.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    apiUrl: string;
    admin: { username: string; password: string };
    /** The shared engines (shared-engines.ts). */
    engines: { dynamoEndpoint: string; s3Endpoint: string };
    /** Whether each test file of the project runs in a process of its own (`isolate`). */
    ownProcess: boolean;
  }
}
