/**
 * The CLI (`npm run helpdesk`) on a test runtime's table, as an operator runs it against a deployed
 * one (`--table`): a process of its own, on the run's shared engines with the runtime's own table.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { LOCAL_ENV_DEFAULTS } from '../../infra/local/endpoints';

/** `engines`: what the runtime was started with (onSharedEngines()); `input`: the CLI's stdin. */
export function cliOnTable(engines: Record<string, string>, args: string[], input = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  // DynamoDB Local keeps a database per access key and region: the runtime's.
  const env: NodeJS.ProcessEnv = { ...process.env, ...engines, AWS_ACCESS_KEY_ID: LOCAL_ENV_DEFAULTS.AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: LOCAL_ENV_DEFAULTS.AWS_SECRET_ACCESS_KEY };
  delete env.HELPDESK_DATA_DIR;
  const child = spawn(process.execPath, ['--import', 'tsx', 'cli/main.ts', ...args, '--table', engines.TABLE_NAME!], { cwd: resolve(import.meta.dirname, '../..'), env, stdio: 'pipe' });
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
