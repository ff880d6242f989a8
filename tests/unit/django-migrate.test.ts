import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  exportedPasswordHash,
  importedPasswordHash,
  planImport,
  toDjango,
  type DjangoObject,
} from '../../shared/migrate/django';

const demo = JSON.parse(
  readFileSync(resolve(import.meta.dirname, '../fixtures/django-helpdesk/demo.json'), 'utf8'),
) as DjangoObject[];

describe("django-helpdesk's dumpdata to records and back", () => {
  it("reads upstream's demo: ids, times, CCs, attachments; the knowledge base skipped with why", () => {
    const plan = planImport(demo, () => true);
    expect(plan.users.map((u) => [u.id, u.username, u.is_superuser])).toEqual([[1, 'admin', true]]);
    expect(plan.queues.map((q) => [q.id, q.slug])).toEqual([
      [1, 'DH'],
      [2, expect.any(String)],
    ]);
    expect(plan.tickets[0]!.ticket).toMatchObject({
      id: 1,
      created: '2017-03-20T04:52:18.321000Z',
      due_date: '2017-03-04T00:00:00.000000Z',
      secret_key: null,
    });
    expect(plan.tickets.flatMap((t) => t.attachments.map((a) => [a.id, a.ticket, a.file]))).toEqual([
      [1, 3, 'helpdesk/attachments/DH-3/3/someinfo.txt'],
      [2, 3, 'helpdesk/attachments/DH-3/4/helpdesk.png'],
    ]);
    expect(plan.ccs).toEqual([
      { id: 1, ticket: 1, user: null, email: 'watcher@example.com', can_view: true, can_update: false },
    ]);
    expect(plan.report.skipped).toEqual({
      'helpdesk.kbcategory': { count: 2, why: 'no knowledge base' },
      'helpdesk.kbitem': { count: 3, why: 'no knowledge base' },
    });
  });

  it('reports a missing file and leaves its attachment out', () => {
    const plan = planImport(demo, (file) => !file.endsWith('.png'));
    expect(plan.report.imported['helpdesk.followupattachment']).toBe(1);
    expect(plan.report.warnings).toContain(
      'attachment 2: file "helpdesk/attachments/DH-3/4/helpdesk.png" is missing under --media',
    );
  });

  it('keeps hashes it verifies, hides others behind ! and gives them back on export', () => {
    expect(importedPasswordHash('pbkdf2_sha256$1$s$k')).toEqual({ stored: 'pbkdf2_sha256$1$s$k' });
    expect(importedPasswordHash('!abc')).toEqual({ stored: '!abc' });
    const argon = importedPasswordHash('argon2$argon2id$v=19$m=1,t=1,p=1$c2FsdA$aGFzaA');
    expect(argon).toEqual({ stored: '!argon2$argon2id$v=19$m=1,t=1,p=1$c2FsdA$aGFzaA', unknown: 'argon2' });
    expect(exportedPasswordHash(argon.stored)).toBe('argon2$argon2id$v=19$m=1,t=1,p=1$c2FsdA$aGFzaA');
    expect(exportedPasswordHash('!abc')).toBe('!abc');
  });

  it('exports what it reads: the demo through toDjango and back gives the same records', () => {
    const plan = planImport(demo, () => true);
    const tickets = plan.tickets.map((t) => ({
      ticket: { ...t.ticket, secret_key: `s${t.ticket.id}` },
      followups: t.followups,
      attachments: t.attachments,
    }));
    const out = toDjango({
      users: plan.users,
      queues: plan.queues,
      customFields: plan.customFields,
      tickets,
      ccs: plan.ccs,
      fileOf: (a) => (a as (typeof plan.tickets)[number]['attachments'][number]).file,
    });
    const again = planImport(out, () => true);
    expect(again.users).toEqual(plan.users);
    expect(again.queues).toEqual(plan.queues);
    expect(again.ccs).toEqual(plan.ccs);
    expect(again.tickets.map((t) => t.ticket)).toEqual(tickets.map((t) => t.ticket));
    expect(again.tickets.map((t) => t.followups)).toEqual(plan.tickets.map((t) => t.followups));
  });
});
