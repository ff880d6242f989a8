/**
 * The CLI (`npm run helpdesk`) in a process of its own (`runCli`), and on a test runtime's table as an
 * operator runs it against a deployed one (`cliOnTable`, `--table`): on the run's shared engines with
 * the runtime's own table.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { LOCAL_ENV_DEFAULTS } from '../../infra/local/endpoints';

/**
 * `engines`: what the runtime was started with (onSharedEngines()); `input`: the CLI's stdin; `env`: settings it needs
 * too.
 */
export function cliOnTable(
  engines: Record<string, string>,
  args: string[],
  options: { input?: string; env?: Record<string, string> } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  // DynamoDB Local keeps a database per access key and region: the runtime's (its local defaults'), and only errors
  // logged.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...LOCAL_ENV_DEFAULTS,
    ...engines,
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    ...options.env,
  };
  delete env.HELPDESK_DATA_DIR;
  delete env.TABLE_NAME;
  return runCli([...args, '--table', engines.TABLE_NAME!], env, options.input);
}

/** The CLI in a process of its own with exactly `env`: its exit code and output, once it ends. */
export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  input = '',
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'cli/main.ts', ...args], {
    cwd: resolve(import.meta.dirname, '../..'),
    env,
    stdio: 'pipe',
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  child.stdin.end(input);
  return new Promise((done, fail) => {
    child.once('error', fail);
    child.once('close', (code) => done({ code, stdout, stderr }));
  });
}
