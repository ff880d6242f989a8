/**
 * SES's events, locally (issue 22): a runtime in this process sends a new ticket's mail to its local
 * mailbox (mail-out's pipeline); an EventBridge-shaped SES bounce for that mail (domain/ses-events.ts
 * `simulatedSesEvent`, the local stand-in for SES) goes through the recorder's handler, held to its
 * AWS grants. Then the address is on the suppression list (and a superuser can take it off), the
 * mail shows as bounced on the ticket's email list, and the change feed has `mail.bounced`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor, unique, type Json } from './client';
import { startInProcessRuntime } from './in-process-runtime';
import type { MailRecord } from '../../shared/domain/mail';

const mailbox = mkdtempSync(join(tmpdir(), 'mail-events-'));
let runtime: { url: string; stop(): Promise<void> };
let api: ReturnType<typeof clientFor>;
let record: (event: unknown) => Promise<unknown>;
let ticketMail: typeof import('../../shared/store/mail-log').ticketMail;
let simulatedSesEvent: typeof import('../../shared/domain/ses-events').simulatedSesEvent;

beforeAll(async () => {
  runtime = await startInProcessRuntime({
    HELPDESK_MAIL_TRANSPORT: 'mailbox',
    HELPDESK_MAILBOX_DIR: mailbox,
    HELPDESK_MAIL_SECRET: 'a-test-mail-secret-of-forty-characters-xx',
    HELPDESK_EVENTS_SETTLE_MS: '0',
  });
  api = clientFor(runtime.url);
  const [{ handler }, { asFunction }, { MAIL_EVENT_GRANTS }] = await Promise.all([
    import('../../functions/mail/record-event'),
    import('../../infra/local/table-access'),
    import('../../shared/api/table-access'),
  ]);
  // As AWS would run it: the recorder's handler, with only the recorder's table grants.
  record = (event) => asFunction('mail/record-event', MAIL_EVENT_GRANTS, () => handler(event as never));
  ({ ticketMail } = await import('../../shared/store/mail-log'));
  ({ simulatedSesEvent } = await import('../../shared/domain/ses-events'));
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
  rmSync(mailbox, { recursive: true, force: true });
});

/** The ticket's mail to `address`, once it has been sent. */
async function sentMailTo(ticket: number, address: string): Promise<MailRecord> {
  let sent: MailRecord | undefined;
  await expect
    .poll(async () => (sent = (await ticketMail(ticket)).find((m) => m.recipient === address && m.message_id)), {
      timeout: 30_000,
      interval: 100,
    })
    .toBeDefined();
  return sent!;
}

describe('a simulated SES bounce', () => {
  it(
    "suppresses the address, shows the mail bounced on the ticket's email list, and is a mail.bounced change " +
      'event; a superuser can clear the address',
    async () => {
      const address = `${unique('bouncy')}@example.com`;
      const ticket = (await api.createTicket({ submitter_email: address })).body.id as number;
      const mail = await sentMailTo(ticket, address);

      await record(simulatedSesEvent('bounce', mail.message_id!, address.toUpperCase()));

      const list = await api.call('GET', '/api/mail/suppressions/?page_size=1000');
      const entry = (list.body.results as Json[]).find((s) => s.address === address);
      expect(entry).toMatchObject({ address, reason: 'bounce', message_id: mail.message_id });
      expect(entry!.detail).toMatch(/Permanent bounce.*550 5\.1\.1/);
      expect((await ticketMail(ticket)).find((m) => m.id === mail.id)).toMatchObject({
        status: 'bounced',
        error: expect.stringMatching(/Permanent bounce/),
      });
      // As staff see it: the ticket's email list.
      const emails = await api.call('GET', `/api/tickets/${ticket}/emails/`);
      expect(emails.status, emails.text).toBe(200);
      expect((emails.body.results as Json[]).find((m) => m.id === mail.id)).toMatchObject({
        recipients: [address],
        status: 'bounced',
        kind: mail.kind,
      });

      await expect
        .poll(
          async () =>
            ((await api.call('GET', '/api/events/?limit=1000')).body.results as Json[]).find(
              (e) => e.event === 'mail.bounced' && e.ticket === ticket,
            ),
          { timeout: 30_000, interval: 200 },
        )
        .toMatchObject({
          data: { recipient: address, status: 'bounced', kind: mail.kind },
          changes: { status: { new: 'bounced' } },
        });

      // The event again (EventBridge delivers at least once): the same state, no error.
      await record(simulatedSesEvent('bounce', mail.message_id!, address));
      expect(
        (await api.call('DELETE', `/api/mail/suppressions/${encodeURIComponent(address.toUpperCase())}/`)).status,
      ).toBe(204);
      expect(
        ((await api.call('GET', '/api/mail/suppressions/?page_size=1000')).body.results as Json[]).some(
          (s) => s.address === address,
        ),
      ).toBe(false);
    },
  );

  it("a path key longer than any the table holds names nothing: 404, not the store's refusal of the key", async () => {
    for (const [method, path] of [
      ['DELETE', `/api/mail/suppressions/${'a'.repeat(1018)}@example.com/`],
      ['DELETE', `/api/mail/suppressions/${encodeURIComponent('é'.repeat(300))}/`],
      ['POST', `/api/mail/problems/${'a'.repeat(1100)}/release/`],
    ] as const) {
      const answer = await api.call(method, path);
      expect([answer.status, answer.body]).toEqual([404, { detail: 'Not found.' }]);
    }
  });

  it(
    'a delivery records delivered and suppresses nothing; an event for a mail never sent still suppresses on a ' +
      'hard bounce',
    async () => {
      const address = `${unique('fine')}@example.com`;
      const ticket = (await api.createTicket({ submitter_email: address })).body.id as number;
      const mail = await sentMailTo(ticket, address);
      await record(simulatedSesEvent('delivery', mail.message_id!, address));
      expect((await ticketMail(ticket)).find((m) => m.id === mail.id)?.status).toBe('delivered');
      const stranger = `${unique('stranger')}@example.com`;
      await record(simulatedSesEvent('bounce', '<never-sent@example.com>', stranger));
      const results = (await api.call('GET', '/api/mail/suppressions/?page_size=1000')).body.results as Json[];
      expect(results.map((s) => s.address)).toContain(stranger);
      expect(results.map((s) => s.address)).not.toContain(address);
    },
  );
});
