/**
 * What the mail-in tests share: the operators' CLI on a runtime's table, and the mail the runtime
 * sent, read from its local mailbox (issue 22's capture folder).
 */
import { expect } from 'vitest';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import PostalMime from 'postal-mime';
import { LOCAL_ENV_DEFAULTS } from '../../infra/local/endpoints';

/** `npm run helpdesk -- <args> --json` on the table `engines` name (as on a deployed one: --table), with the mail secret `secret`. */
export function mailCli(engines: Record<string, string>, secret: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { TABLE_NAME: table, ...env } = engines;
  const child = spawn(process.execPath, ['--import', 'tsx', 'cli/main.ts', ...args, '--json', '--table', table!], {
    cwd: resolve(import.meta.dirname, '../..'),
    env: { ...process.env, ...LOCAL_ENV_DEFAULTS, ...env, HELPDESK_MAIL_SECRET: secret, HELPDESK_DATA_DIR: '', POWERTOOLS_LOG_LEVEL: 'ERROR' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((done) => child.once('close', (code) => done({ code, stdout, stderr })));
}

/** The mails to `to` in the capture folder `mailbox`, once there are at least `count`. */
export async function mailsTo(mailbox: string, to: string, count: number) {
  let found: Awaited<ReturnType<typeof PostalMime.parse>>[] = [];
  await expect
    .poll(
      async () => {
        const all = await Promise.all(readdirSync(mailbox).filter((f) => f.endsWith('.eml')).map((f) => PostalMime.parse(readFileSync(join(mailbox, f)))));
        found = all.filter((m) => (m.to ?? []).some((a) => a.address === to));
        return found.length;
      },
      { timeout: 15_000, interval: 200 },
    )
    .toBeGreaterThanOrEqual(count);
  return found;
}
