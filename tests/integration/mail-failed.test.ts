/**
 * A mail that fails on every attempt (issue 22, "dead-lettered with an alarm"): the SMTP server it
 * goes to refuses connections (a closed port: a real failure, nothing mocked), the sender tries it
 * on the schedule (shortened here by HELPDESK_MAIL_RETRY_DELAYS), it ends `failed` with the error,
 * and the operators' list (`list-failed-mail`, on the runtime's table) shows it. On AWS the same
 * outcome also puts its message on the dead-letter queue, whose alarm fires (tests/infra/mail.test.ts).
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { Json } from './client';
import { useOwnRuntime } from './own-runtime';
import { onSharedEngines } from './shared-engines';
import { cliOnTable } from './table-cli';

/** A loopback port nothing listens on (taken, then let go). */
const closedPort = await new Promise<number>((done) => {
  const server = createServer().listen(0, '127.0.0.1', () => {
    const { port } = server.address() as { port: number };
    server.close(() => done(port));
  });
});

const engines = onSharedEngines();
const own = useOwnRuntime({
  ...engines,
  HELPDESK_SMTP_URL: `smtp://127.0.0.1:${closedPort}`,
  HELPDESK_MAIL_RETRY_DELAYS: '0.2,0.2',
});

describe('a mail that fails on every attempt', () => {
  it('ends failed after its attempts, with the error, and is listed for operators', { timeout: 90_000 }, async () => {
    const ticket = (await own.api.createTicket({ submitter_email: 'unreachable@example.com' })).body;
    let log: Json[] = [];
    await expect
      .poll(
        async () =>
          (log = (await own.api.call('GET', `/api/tickets/${ticket.id}/emails/`)).body.results).map(
            (m: Json) => m.status,
          ),
        { timeout: 30_000, interval: 200 },
      )
      .toEqual(['failed']);
    expect(log[0]).toMatchObject({ kind: 'newticket_submitter', recipients: ['unreachable@example.com'], attempts: 3 });
    expect(log[0]!.error).toMatch(/ECONNREFUSED/);

    const listed = await cliOnTable(engines, ['list-failed-mail', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({
        ticket: ticket.id,
        mail: log[0]!.id,
        kind: 'newticket_submitter',
        recipient: 'unreachable@example.com',
        attempts: 3,
        error: log[0]!.error,
      }),
    ]);
  });
});
