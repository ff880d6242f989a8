/**
 * Escalation over two simulated weeks (`npm run helpdesk -- escalate --as-of <day>`, on a runtime's
 * table as an operator runs it): a queue escalating after 2 days, a holiday that lengthens the wait,
 * a ticket on hold and one at priority 1 that never escalate, a reopened one that does, a second run
 * the same day that changes nothing, and `--notify-only`; each mail read from the local mailbox.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { unique, type Json } from './client';
import { useOwnRuntime } from './own-runtime';
import { onSharedEngines } from './shared-engines';
import { cliOnTable } from './table-cli';
import { mailsTo } from './mail-helpers';

const mailbox = mkdtempSync(join(tmpdir(), 'helpdesk-escalation-'));
afterAll(() => rmSync(mailbox, { recursive: true, force: true }));
const engines = onSharedEngines();
const own = useOwnRuntime({ ...engines, HELPDESK_MAILBOX_DIR: mailbox, HELPDESK_ESCALATION_HOUR: 'off' });

const DAY = 86_400_000;
/** `n` days after today (UTC), at 07:00. */
const day = (n: number) =>
  new Date(Date.parse(`${new Date().toISOString().slice(0, 10)}T07:00:00Z`) + n * DAY).toISOString();
const date = (n: number) => day(n).slice(0, 10);

async function escalate(
  ...args: string[]
): Promise<{ day: string; escalated: { ticket: number; from: number; to: number }[]; alreadyToday: number[] }> {
  const run = await cliOnTable(engines, ['escalate', ...args, '--json']);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as never;
}

async function queue(escalateDays: number, extra: Record<string, unknown> = {}): Promise<Json> {
  const slug = unique('esc');
  const reply = await own.api.call('POST', '/api/queues/', {
    json: { title: `Escalating ${slug}`, slug, escalate_days: escalateDays, ...extra },
  });
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

const ticket = async (id: number): Promise<Json> => (await own.api.call('GET', `/api/tickets/${id}/`)).body;
const kindsOf = async (id: number): Promise<string[]> =>
  ((await own.api.call('GET', `/api/tickets/${id}/emails/`)).body.results as Json[]).map(
    (m) => `${m.kind} ${m.recipients[0]}`,
  );

describe('escalation', () => {
  it(
    "escalates open and reopened tickets once their queue's days have passed, a holiday not counted, once a day",
    { timeout: 180_000 },
    async () => {
      const q = await queue(2, { updated_ticket_cc: 'watchers@example.com' });
      const made = await cliOnTable(
        engines,
        ['create-user', unique('owner'), '--email', 'owner@example.com', '--staff', '--json'],
        { input: 'owner-password-1\n' },
      );
      expect(made.code, made.stderr).toBe(0);
      const ownerId = (JSON.parse(made.stdout) as { id: number }).id;
      const make = async (fields: Record<string, unknown>) =>
        (await own.api.createTicket({ queue: q.id, priority: 3, ...fields })).body.id as number;
      const open = await make({ submitter_email: 'open@example.com', assigned_to: ownerId });
      const held = await make({ submitter_email: 'held@example.com' });
      const urgent = await make({ submitter_email: 'urgent@example.com', priority: 1 });
      const reopened = await make({ submitter_email: 'reopened@example.com' });
      expect((await own.api.call('PATCH', `/api/tickets/${held}/`, { json: { on_hold: true } })).status).toBe(200);
      expect((await own.api.call('PATCH', `/api/tickets/${reopened}/`, { json: { status: 2 } })).status).toBe(200);
      // Day 2 is a holiday for this queue; one for another queue changes nothing here.
      const holiday = await own.api.call('POST', '/api/escalation-exclusions/', {
        json: { name: 'Holiday', date: date(2), queues: [q.id] },
      });
      expect(holiday.status, holiday.text).toBe(201);
      expect(holiday.body).toEqual({ id: expect.any(Number), name: 'Holiday', date: date(2), queues: [q.id] });

      const only = ['--queues', q.slug];
      const escalatedOn = async (n: number) =>
        (await escalate(...only, '--as-of', day(n))).escalated.map((e) => `${e.ticket} ${e.from}->${e.to}`);
      expect(await escalatedOn(1)).toEqual([]);
      // Two days have passed, but one was the holiday: the wait is a day longer.
      expect(await escalatedOn(2)).toEqual([]);
      expect(await escalatedOn(3)).toEqual([`${open} 3->2`, `${reopened} 3->2`]);
      // The same day again: nothing.
      expect(await escalatedOn(3)).toEqual([]);
      expect(await escalatedOn(4)).toEqual([]);
      expect(await escalatedOn(5)).toEqual([`${open} 2->1`, `${reopened} 2->1`]);
      // At priority 1 nothing escalates further, for the rest of the two weeks.
      for (const n of [6, 9, 12, 14]) expect(await escalatedOn(n)).toEqual([]);

      for (const [id, priority] of [
        [open, 1],
        [reopened, 1],
        [held, 3],
        [urgent, 1],
      ] as const)
        expect((await ticket(id)).priority).toBe(priority);
      const escalations = ((await ticket(open)).followup_set as Json[]).filter((f) => f.title === 'Ticket Escalated');
      expect(
        escalations.map((f) => ({ user: f.user, comment: f.comment, public: f.public, date: f.date.slice(0, 10) })),
      ).toEqual([
        { user: null, comment: 'Ticket escalated after 2 days', public: true, date: date(3) },
        { user: null, comment: 'Ticket escalated after 2 days', public: true, date: date(5) },
      ]);
      expect(((await ticket(held)).followup_set as Json[]).length).toBe(1);

      // The mails: the submitter, the queue's CC list and the assignee, twice each; no `updated_*` mail from the
      // followups.
      const [first] = await mailsTo(mailbox, 'open@example.com', 3);
      expect(first!.subject).toContain('(Opened)');
      const toSubmitter = await mailsTo(mailbox, 'open@example.com', 3);
      expect(toSubmitter.filter((m) => m.subject?.includes('(Escalated)')).length).toBe(2);
      expect(
        (await mailsTo(mailbox, 'reopened@example.com', 3)).filter((m) => m.subject?.includes('(Escalated)')).length,
      ).toBe(2);
      expect(
        (await mailsTo(mailbox, 'watchers@example.com', 4)).filter((m) => m.subject?.includes('(Escalated)')).length,
      ).toBeGreaterThanOrEqual(4);
      expect(
        (await mailsTo(mailbox, 'owner@example.com', 2)).filter((m) => m.subject?.includes('(Escalated)')).length,
      ).toBe(2);
      await expect
        .poll(() => kindsOf(open), { timeout: 20_000, interval: 300 })
        .toEqual(expect.arrayContaining(['escalated_submitter open@example.com', 'escalated_cc watchers@example.com']));
      expect((await kindsOf(open)).filter((k) => k.startsWith('updated_'))).toEqual([]);
      expect((await kindsOf(held)).filter((k) => k.startsWith('escalated_'))).toEqual([]);

      // The escalation is a change event: the ticket's priority, old and new.
      await expect
        .poll(
          async () =>
            ((await own.api.call('GET', '/api/events/?limit=1000')).body.results as Json[])
              .filter((e) => e.ticket === open && e.event === 'ticket.updated' && e.changes?.priority)
              .map((e) => e.changes.priority),
          { timeout: 30_000, interval: 500 },
        )
        .toEqual([
          { old: 3, new: 2 },
          { old: 2, new: 1 },
        ]);
    },
  );

  it(
    '--notify-only mails without changing the ticket, once a day; an unknown queue is refused',
    { timeout: 90_000 },
    async () => {
      const q = await queue(1);
      const id = (await own.api.createTicket({ queue: q.id, priority: 3, submitter_email: 'notified@example.com' }))
        .body.id as number;
      expect(
        (await escalate('--queues', q.slug, '--notify-only', '--as-of', day(1))).escalated.map((e) => [
          e.ticket,
          e.from,
          e.to,
        ]),
      ).toEqual([[id, 3, 3]]);
      expect((await escalate('--queues', q.slug, '--notify-only', '--as-of', day(1))).alreadyToday).toEqual([id]);
      const after = await ticket(id);
      expect(after.priority).toBe(3);
      expect((after.followup_set as Json[]).length).toBe(1);
      const mails = await mailsTo(mailbox, 'notified@example.com', 2);
      expect(mails.filter((m) => m.subject?.includes('(Escalated)')).length).toBe(1);

      const refused = await cliOnTable(engines, ['escalate', '--queues', 'no-such-queue']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('No queue with the slug "no-such-queue"');
    },
  );

  it(
    'exclusions: superusers only; a bad date or an unknown queue is a 400; the weekday command adds each date',
    { timeout: 60_000 },
    async () => {
      const user = await own.api.createUser();
      expect((await own.api.call('GET', '/api/escalation-exclusions/', { auth: user.auth })).status).toBe(403);
      expect(
        (await own.api.call('POST', '/api/escalation-exclusions/', { json: { name: 'x', date: '2027-02-30' } })).body,
      ).toEqual({ date: ['Date has wrong format. Use one of these formats instead: YYYY-MM-DD.'] });
      expect(
        (
          await own.api.call('POST', '/api/escalation-exclusions/', {
            json: { name: 'x', date: '2027-02-03', queues: [999999] },
          })
        ).body,
      ).toEqual({ queues: ['Invalid pk "999999" - object does not exist.'] });
      const q = await queue(3);
      const made = await cliOnTable(engines, [
        'create-escalation-exclusions',
        '--days',
        'saturday,sunday',
        '--from',
        '2027-01-01',
        '--until',
        '2027-01-17',
        '--queues',
        q.slug,
        '--json',
      ]);
      expect(made.code, made.stderr).toBe(0);
      const dates = (JSON.parse(made.stdout) as Json[]).map((e) => `${e.date} ${e.name} ${e.queues.join(',')}`);
      expect(dates).toEqual(
        ['2027-01-02', '2027-01-03', '2027-01-09', '2027-01-10', '2027-01-16', '2027-01-17'].map(
          (d, i) => `${d} ${i % 2 ? 'Sunday' : 'Saturday'} ${q.id}`,
        ),
      );
      const listed = (await own.api.call('GET', '/api/escalation-exclusions/?page_size=100')).body.results as Json[];
      const one = listed.find((e) => e.date === '2027-01-09')!;
      expect((await own.api.call('GET', `/api/escalation-exclusions/${one.id}/`)).body).toEqual(one);
      expect((await own.api.call('DELETE', `/api/escalation-exclusions/${one.id}/`)).status).toBe(204);
      expect((await own.api.call('GET', `/api/escalation-exclusions/${one.id}/`)).status).toBe(404);
    },
  );
});
