/**
 * A local runtime in the test's own process (in-memory engines, a free port), for files that reach
 * the store's modules directly (fault injection, the stream consumer): requests still go over HTTP.
 * The file sweeper is off (its calls would interleave with what the file records), and only errors
 * are logged (a passing run prints nothing); `env` adds or overrides settings before the runtime
 * reads them.
 */
import { ADMIN } from './client';

export type InProcessRuntime = Awaited<ReturnType<typeof import('../../infra/local/runtime').startLocalRuntime>>;

export async function startInProcessRuntime(env: Record<string, string> = {}): Promise<InProcessRuntime> {
  Object.assign(process.env, {
    HELPDESK_ADMIN_USERNAME: ADMIN.username,
    HELPDESK_ADMIN_PASSWORD: ADMIN.password,
    HELPDESK_ACTIVATE_API_ENDPOINT: 'True',
    HELPDESK_FILE_SWEEP_SECONDS: '0',
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    ...env,
  });
  const { startLocalRuntime } = await import('../../infra/local/runtime');
  return startLocalRuntime({ dataDir: 'memory', port: 0 });
}
