/**
 * A local runtime in the test's own process (a free port), for files that reach
 * the store's modules directly (fault injection, the stream consumer): requests still go over HTTP.
 * The file sweeper is off (its calls would interleave with what the file records), and only errors
 * are logged (a passing run prints nothing); `env` adds or overrides settings before the runtime
 * reads them. Its data is a table and a bucket of its own on the run's shared engines.
 */
import { inject } from 'vitest';
import { ADMIN } from './client';
import { onSharedEngines } from './shared-engines';
import { STREAM_POLL_MS } from './spawn-runtime';

export type InProcessRuntime = Awaited<ReturnType<typeof import('../../infra/local/runtime').startLocalRuntime>>;

export async function startInProcessRuntime(env: Record<string, string> = {}): Promise<InProcessRuntime> {
  if (!inject('ownProcess')) {
    throw new Error(
      'An in-process runtime changes its process for good: list this file in IN_PROCESS (vitest.config.ts).',
    );
  }
  Object.assign(process.env, {
    HELPDESK_ADMIN_USERNAME: ADMIN.username,
    HELPDESK_ADMIN_PASSWORD: ADMIN.password,
    HELPDESK_ACTIVATE_API_ENDPOINT: 'True',
    HELPDESK_FILE_SWEEP_SECONDS: '0',
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    HELPDESK_STREAM_POLL_MS: STREAM_POLL_MS,
    HELPDESK_SEARCH: 'off',
    ...onSharedEngines(),
    ...env,
  });
  const { startLocalRuntime } = await import('../../infra/local/runtime');
  const engines = {
    dynamoEndpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB!,
    s3Endpoint: process.env.AWS_ENDPOINT_URL_S3!,
  };
  return startLocalRuntime({ dataDir: 'memory', port: 0, engines });
}
