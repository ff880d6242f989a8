/**
 * HELPDESK_MAIL_ON_TICKET_UPDATES=true: a PUT or PATCH that resolves, closes or reassigns a ticket
 * mails as a followup would; a followup that resolves (and so writes the ticket too) mails once. A
 * runtime of its own, its mail captured in a temporary mailbox.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useOwnRuntime } from './own-runtime';
import { basic, type Json } from './client';
import { onSharedEngines } from './shared-engines';
import { cliOnTable } from './table-cli';

const mailbox = mkdtempSync(join(tmpdir(), 'helpdesk-mail-updates-'));
afterAll(() => rmSync(mailbox, { recursive: true, force: true }));
const engines = onSharedEngines();
const own = useOwnRuntime({ ...engines, HELPDESK_MAILBOX_DIR: mailbox, HELPDESK_MAIL_ON_TICKET_UPDATES: 'true' });

/** The ticket's mail log once `count` mails are sent. */
async function sent(ticket: number, count: number): Promise<Json[]> {
  let log: Json[] = [];
  await expect
    .poll(
      async () =>
        (log = (await own.api.call('GET', `/api/tickets/${ticket}/emails/`)).body.results).filter(
          (m: Json) => m.status === 'sent',
        ).length,
      { timeout: 20_000, interval: 200 },
    )
    .toBeGreaterThanOrEqual(count);
  return log;
}
const kinds = (log: Json[]) => log.map((m) => `${m.kind} ${m.recipients[0]}`);

describe('PUT and PATCH with the setting on', () => {
  it(
    'a PATCH that resolves mails resolved_submitter (who gets a reassignment: ' + 'tests/unit/mail-recipients.test.ts)',
    async () => {
      const ticket = (await own.api.createTicket({ submitter_email: 'patched@example.com' })).body;
      await sent(ticket.id, 1);
      expect((await own.api.call('PATCH', `/api/tickets/${ticket.id}/`, { json: { status: 3 } })).status).toBe(200);
      expect(kinds((await sent(ticket.id, 2)).slice(1))).toEqual(['resolved_submitter patched@example.com']);
      // A PATCH that changes anything else mails nothing: the next change's mail comes next in the log.
      expect((await own.api.call('PATCH', `/api/tickets/${ticket.id}/`, { json: { priority: 1 } })).status).toBe(200);
      expect((await own.api.call('PATCH', `/api/tickets/${ticket.id}/`, { json: { status: 4 } })).status).toBe(200);
      expect(kinds((await sent(ticket.id, 3)).slice(2))).toEqual(['closed_submitter patched@example.com']);
    },
  );

  it('a followup that resolves mails once, as the followup', async () => {
    const ticket = (await own.api.createTicket({ submitter_email: 'followed@example.com' })).body;
    await sent(ticket.id, 1);
    expect(
      (
        await own.api.call('POST', '/api/followups/', {
          json: { ticket: ticket.id, title: 'Done', comment: 'Fixed', public: true, new_status: 3 },
        })
      ).status,
    ).toBe(201);
    // A later change's mail: once it is logged, the resolve's ticket write has been consumed too.
    expect(
      (
        await own.api.call('POST', '/api/followups/', {
          json: { ticket: ticket.id, title: 'More', comment: 'One more thing', public: true },
        })
      ).status,
    ).toBe(201);
    const log = await sent(ticket.id, 3);
    expect(kinds(log)).toEqual([
      'newticket_submitter followed@example.com',
      'resolved_submitter followed@example.com',
      'updated_submitter followed@example.com',
    ]);
  });

  it(
    'never mails the caller: a staff member who resolves or takes a ticket by PATCH is not told of it',
    { timeout: 60_000 },
    async () => {
      // A staff member with an address (POST /api/users/ makes users without staff rights).
      const made = await cliOnTable(
        engines,
        ['create-user', 'bea', '--email', 'bea@example.com', '--staff', '--json'],
        { input: 'bea-password-1\n' },
      );
      expect(made.code, made.stderr).toBe(0);
      const bea = JSON.parse(made.stdout) as { id: number };
      const auth = basic('bea', 'bea-password-1');

      const ticket = (await own.api.createTicket({ submitter_email: 'asker@example.com' })).body;
      await sent(ticket.id, 1);
      // Bea takes the ticket (assigned_owner would go to her), then resolves it (resolved_owner would).
      expect(
        (await own.api.call('PATCH', `/api/tickets/${ticket.id}/`, { json: { assigned_to: bea.id }, auth })).status,
      ).toBe(200);
      expect((await own.api.call('PATCH', `/api/tickets/${ticket.id}/`, { json: { status: 3 }, auth })).status).toBe(
        200,
      );
      // Someone else closes it: now Bea, its assignee, is told.
      expect((await own.api.call('PATCH', `/api/tickets/${ticket.id}/`, { json: { status: 4 } })).status).toBe(200);
      const log = await sent(ticket.id, 4);
      expect(kinds(log.slice(0, 2))).toEqual([
        'newticket_submitter asker@example.com',
        'resolved_submitter asker@example.com',
      ]);
      // The close's two mails, in the log's order within one change (by their ids' hashes).
      expect(kinds(log.slice(2)).sort()).toEqual([
        'closed_owner bea@example.com',
        'closed_submitter asker@example.com',
      ]);
    },
  );
});
