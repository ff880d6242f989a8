/**
 * Mail to a real SMTP server (HELPDESK_SMTP_URL, nodemailer's SMTP transport), and a transport
 * failure retried with backoff: a runtime of its own (the user's `npm start`, in its own process)
 * whose SMTP server, here in the test, refuses the first attempt with a temporary error.
 */
import { SMTPServer } from 'smtp-server';
import { afterAll, describe, expect, it } from 'vitest';
import { useOwnRuntime } from './own-runtime';
import type { Json } from './client';

const received: { to: string[]; data: string }[] = [];
let refused = 0;
const server = new SMTPServer({
  // Loopback only, no TLS or AUTH offered: the local runtime's SMTP client then sends in the clear.
  disabledCommands: ['AUTH', 'STARTTLS'],
  logger: false,
  onRcptTo(address, _session, callback) {
    if (address.address === 'flaky@example.com' && refused === 0) {
      refused += 1;
      callback(Object.assign(new Error('Try again later'), { responseCode: 451 }));
      return;
    }
    callback();
  },
  onData(stream, session, callback) {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      received.push({ to: session.envelope.rcptTo.map((r) => r.address), data: Buffer.concat(chunks).toString() });
      callback();
    });
  },
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = (server.server.address() as { port: number }).port;
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const own = useOwnRuntime({ HELPDESK_SMTP_URL: `smtp://127.0.0.1:${port}` });

describe('mail through SMTP', () => {
  it('a new ticket is mailed to the SMTP server; a temporary refusal is retried, and the mail sent once', async () => {
    const ticket = (await own.api.createTicket({ title: 'Over SMTP', submitter_email: 'flaky@example.com' })).body;
    let log: Json[] = [];
    await expect
      .poll(
        async () => {
          log = (await own.api.call('GET', `/api/tickets/${ticket.id}/emails/`)).body.results;
          return log[0]?.status;
        },
        { timeout: 30_000, interval: 250 },
      )
      .toBe('sent');
    expect(refused).toBe(1);
    expect(log[0]).toMatchObject({
      kind: 'newticket_submitter',
      recipients: ['flaky@example.com'],
      attempts: 2,
      error: null,
    });
    const mails = received.filter((m) => m.to.includes('flaky@example.com'));
    expect(mails).toHaveLength(1);
    expect(mails[0]!.data).toContain('Over SMTP (Opened)');
    expect(mails[0]!.data).toMatch(/^Auto-Submitted: auto-generated/m);
  });
});
