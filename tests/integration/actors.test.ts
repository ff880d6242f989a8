/**
 * Who did it (issue 34, item 4): the change feed, the subscriptions' payloads and the mail log name
 * the actor of each change: the API user (`{id, username}`), or null with `source` `mail` (mail in)
 * or `system` (the escalation run). A runtime in this process: mail in and the escalation run are
 * called as their entry points call them (shared/mail-in/ingest.ts, shared/store/escalation.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, ADMIN_ID, clientFor, unique, type Json } from './client';
import { startInProcessRuntime, type InProcessRuntime } from './in-process-runtime';
import { startReceiver, type Receiver } from './webhook-receiver';

let runtime: InProcessRuntime;
let api: ReturnType<typeof clientFor>;
let receiver: Receiver;
const mailbox = mkdtempSync(join(tmpdir(), 'helpdesk-actors-'));
const ADMIN_ACTOR = { actor: { id: ADMIN_ID, username: ADMIN.username }, source: 'api' };

beforeAll(async () => {
  receiver = await startReceiver();
  runtime = await startInProcessRuntime({
    HELPDESK_EVENTS_SETTLE_MS: '0',
    HELPDESK_MAILBOX_DIR: mailbox,
    HELPDESK_MAIL_FROM: 'Helpdesk <helpdesk@localhost>',
    HELPDESK_MAIL_SECRET: 'a-mail-secret-of-enough-length-0123456789',
  });
  api = clientFor(runtime.url);
  const sub = await api.call('POST', '/api/webhooks/', {
    json: { url: `${receiver.url}/all`, events: ['ticket.created', 'ticket.updated', 'followup.created'] },
  });
  expect(sub.status, sub.text).toBe(201);
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
  await receiver?.stop();
  rmSync(mailbox, { recursive: true, force: true });
});

/** The feed's events of a ticket, once `count` of them are there. */
async function eventsOf(ticket: number, count: number): Promise<Json[]> {
  let events: Json[] = [];
  await expect
    .poll(
      async () => {
        const all = (await api.call('GET', '/api/events/?limit=1000')).body.results as Json[];
        events = all.filter((e) => e.ticket === ticket);
        return events.length;
      },
      { timeout: 20_000 },
    )
    .toBeGreaterThanOrEqual(count);
  return events;
}

const who = (e: Json) => ({ actor: e.actor, source: e.source });

describe('the actor of a change', () => {
  it('is the API user for an API write: in the feed, the payload and the mail log', async () => {
    const queue = (await api.call('POST', '/api/queues/', { json: { title: 'A', slug: unique('a') } })).body;
    const created = await api.call('POST', '/api/tickets/', {
      json: { queue: queue.id, title: 't', description: 'd', submitter_email: 'someone@example.com' },
    });
    const id = created.body.id as number;
    expect((await api.call('PATCH', `/api/tickets/${id}/`, { json: { priority: 1 } })).status).toBe(200);
    const events = await eventsOf(id, 3);
    expect(events.map((e) => [e.event, who(e)])).toEqual([
      ['ticket.created', ADMIN_ACTOR],
      ['followup.created', ADMIN_ACTOR],
      ['ticket.updated', ADMIN_ACTOR],
    ]);
    const [payload] = await receiver.waitFor(1, (r) => JSON.parse(r.body).data?.ticket === id);
    expect(who(JSON.parse(payload!.body).data)).toEqual(ADMIN_ACTOR);
    await expect
      .poll(async () => (await api.call('GET', `/api/tickets/${id}/emails/`)).body.results, { timeout: 20_000 })
      .toContainEqual(expect.objectContaining({ recipients: ['someone@example.com'], ...ADMIN_ACTOR }));
  });

  it('is the user who deleted, not the last writer, for a deletion: in the feed and the payload', async () => {
    const sub = await api.call('POST', '/api/webhooks/', {
      json: { url: `${receiver.url}/deleted`, events: ['ticket.deleted'] },
    });
    expect(sub.status, sub.text).toBe(201);
    const staff = await api.createUser();
    const staffId = (await api.call('GET', `/api/users/?email=${encodeURIComponent(staff.email)}`)).body.results[0].id;
    expect((await api.call('PATCH', `/api/users/${staffId}/`, { json: { is_staff: true } })).status).toBe(200);
    const asStaff = { auth: staff.auth };
    const STAFF_ACTOR = { actor: { id: staffId, username: staff.username }, source: 'api' };
    // Written by the admin: a ticket, a followup with a file, another followup.
    const queue = (await api.call('POST', '/api/queues/', { json: { title: 'D', slug: unique('d') } })).body;
    const id = (
      await api.call('POST', '/api/tickets/', {
        json: { queue: queue.id, title: 't', description: 'd', submitter_email: 'someone@example.com' },
      })
    ).body.id as number;
    const withFile = new FormData();
    withFile.append('ticket', String(id));
    withFile.append('title', 'File');
    withFile.append('comment', 'See it.');
    withFile.append('attachments', new Blob(['x']), 'x.txt');
    const filed = await api.call('POST', '/api/followups/', { form: withFile });
    expect(filed.status, filed.text).toBe(201);
    const other = await api.call('POST', '/api/followups/', { json: { ticket: id, title: 'Other', comment: 'c' } });
    // Deleted by the staff user: the attachment, then the other followup, then the ticket.
    const attachment = filed.body.followupattachment_set[0].id as number;
    for (const path of [`/api/followups-attachments/${attachment}/`, `/api/followups/${other.body.id}/`])
      expect((await api.call('DELETE', path, asStaff)).status, path).toBe(204);
    await eventsOf(id, 7);
    expect((await api.call('DELETE', `/api/tickets/${id}/`, asStaff)).status).toBe(204);
    const events = await eventsOf(id, 8);
    expect(events.filter((e) => e.event.endsWith('.deleted')).map((e) => [e.event, who(e)])).toEqual([
      ['attachment.deleted', STAFF_ACTOR],
      ['followup.deleted', STAFF_ACTOR],
      ['ticket.deleted', STAFF_ACTOR],
    ]);
    const [payload] = await receiver.waitFor(
      1,
      (r) => r.path.startsWith('/deleted') && JSON.parse(r.body).data?.ticket === id,
    );
    expect(who(JSON.parse(payload!.body).data)).toEqual(STAFF_ACTOR);
  });

  it('is no one, from mail, for a ticket mail in opens', async () => {
    const slug = unique('m');
    expect((await api.call('POST', '/api/queues/', { json: { title: 'Mail', slug } })).status).toBe(201);
    const { ingest } = await import('../../shared/mail-in/ingest');
    const raw = Buffer.from(
      `From: writer@example.com\r\nTo: ${slug}@localhost\r\nSubject: By mail\r\n` +
        `Message-ID: <${unique('m')}@example.com>\r\nDate: ${new Date().toUTCString()}\r\n\r\nHello.\r\n`,
    );
    const result = await ingest({ raw, rawKey: `inbound/${unique('k')}`, recipients: [`${slug}@localhost`] });
    expect(result.outcome, JSON.stringify(result)).toBe('ticket');
    const id = (result as { ticket: number }).ticket;
    const events = await eventsOf(id, 2);
    expect(events.map((e) => [e.event, who(e)])).toEqual([
      ['ticket.created', { actor: null, source: 'mail' }],
      ['followup.created', { actor: null, source: 'mail' }],
    ]);
    await expect
      .poll(async () => (await api.call('GET', `/api/tickets/${id}/emails/`)).body.results, { timeout: 20_000 })
      .toContainEqual(expect.objectContaining({ actor: null, source: 'mail' }));
  });

  it('is no one, from the system, for an escalation', async () => {
    const queue = (
      await api.call('POST', '/api/queues/', { json: { title: 'E', slug: unique('e'), escalate_days: 1 } })
    ).body;
    const id = (
      await api.call('POST', '/api/tickets/', {
        json: { queue: queue.id, title: 't', description: 'd', submitter_email: 'late@example.com', priority: 3 },
      })
    ).body.id as number;
    const { runEscalation } = await import('../../shared/store/escalation');
    const run = await runEscalation({ queues: [queue.slug], now: new Date(Date.now() + 3 * 86_400_000) });
    expect(run.escalated.map((e) => e.ticket)).toEqual([id]);
    const events = await eventsOf(id, 4);
    expect(events.slice(2).map((e) => [e.event, who(e)])).toEqual([
      ['ticket.updated', { actor: null, source: 'system' }],
      ['followup.created', { actor: null, source: 'system' }],
    ]);
    await expect
      .poll(
        async () =>
          ((await api.call('GET', `/api/tickets/${id}/emails/`)).body.results as Json[]).filter(
            (m) => m.source === 'system',
          ).length,
        { timeout: 20_000 },
      )
      .toBeGreaterThan(0);
  });
});
