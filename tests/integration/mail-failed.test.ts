/**
 * A mail that fails on every attempt (issue 22, "dead-lettered with an alarm"): the SMTP server it
 * goes to refuses connections (a closed port: a real failure, nothing mocked), the sender tries it
 * on the schedule (shortened here by HELPDESK_MAIL_RETRY_DELAYS), it ends `failed` with the error,
 * and the operators' list (`list-failed-mail`, on the runtime's table) shows it. On AWS the same
 * outcome also puts its message on the dead-letter queue, whose alarm fires (tests/infra/mail.test.ts).
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCAL_ENV_DEFAULTS } from '../../infra/local/endpoints';
import type { Json } from './client';
import { useOwnRuntime } from './own-runtime';
import { onSharedEngines } from './shared-engines';

/** A loopback port nothing listens on (taken, then let go). */
const closedPort = await new Promise<number>((done) => {
  const server = createServer().listen(0, '127.0.0.1', () => {
    const { port } = server.address() as { port: number };
    server.close(() => done(port));
  });
});

const engines = onSharedEngines();
const own = useOwnRuntime({ ...engines, HELPDESK_SMTP_URL: `smtp://127.0.0.1:${closedPort}`, HELPDESK_MAIL_RETRY_DELAYS: '0.2,0.2' });

/** The CLI on the runtime's table, as an operator runs it against a deployed one. */
function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...engines, AWS_ACCESS_KEY_ID: LOCAL_ENV_DEFAULTS.AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: LOCAL_ENV_DEFAULTS.AWS_SECRET_ACCESS_KEY };
  delete env.HELPDESK_DATA_DIR;
  const child = spawn(process.execPath, ['--import', 'tsx', 'cli/main.ts', ...args, '--table', engines.TABLE_NAME!], { cwd: resolve(import.meta.dirname, '../..'), env, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((done, fail) => {
    child.once('error', fail);
    child.once('close', (code) => done({ code, stdout, stderr }));
  });
}

describe('a mail that fails on every attempt', () => {
  it('ends failed after its attempts, with the error, and is listed for operators', { timeout: 90_000 }, async () => {
    const ticket = (await own.api.createTicket({ submitter_email: 'unreachable@example.com' })).body;
    let log: Json[] = [];
    await expect
      .poll(async () => (log = (await own.api.call('GET', `/api/tickets/${ticket.id}/emails/`)).body.results).map((m: Json) => m.status), { timeout: 30_000, interval: 200 })
      .toEqual(['failed']);
    expect(log[0]).toMatchObject({ kind: 'newticket_submitter', recipients: ['unreachable@example.com'], attempts: 3 });
    expect(log[0]!.error).toMatch(/ECONNREFUSED/);

    const listed = await cli(['list-failed-mail', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ ticket: ticket.id, mail: log[0]!.id, kind: 'newticket_submitter', recipient: 'unreachable@example.com', attempts: 3, error: log[0]!.error }),
    ]);
  });
});
