import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CUT_TEXT_HEAD_BYTES,
  dumpdataText,
  exportedPasswordHash,
  highestIds,
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

  describe('text longer than a record holds (upstream bounds none)', () => {
    /** The demo with ticket 3's description, followup 1's comment and a change of followup 4 made `text`. */
    const withText = (description: string, comment: string, change: string, custom = ''): DjangoObject[] => [
      ...demo.map((o) => {
        if (o.model === 'helpdesk.ticket' && o.pk === 3) return { ...o, fields: { ...o.fields, description } };
        if (o.model === 'helpdesk.followup' && o.pk === 1) return { ...o, fields: { ...o.fields, comment } };
        return o;
      }),
      {
        model: 'helpdesk.ticketchange',
        pk: 7,
        fields: { followup: 4, field: 'Description', old_value: 'WHOA!', new_value: change },
      },
      ...(custom
        ? [
            { model: 'helpdesk.customfield', pk: 5, fields: { name: 'notes', label: 'Notes', data_type: 'text' } },
            { model: 'helpdesk.ticketcustomfieldvalue', pk: 1, fields: { ticket: 3, field: 5, value: custom } },
          ]
        : []),
    ];

    it('keeps each long text whole as a file on its followup, its head in the record, and says so', () => {
      const description = `${'€'.repeat(110_000)}end`; // 330,003 bytes: over the record's 300,000 alone
      const comment = 'log line\n'.repeat(50_000); // 450,000 bytes
      const change = 'x'.repeat(310_000);
      const plan = planImport(withText(description, comment, change), () => true);
      const [t1, , t3] = plan.tickets;
      const made = plan.tickets.flatMap((t) => t.attachments.filter((a) => a.text !== undefined));
      // After the dump's highest attachment id (2), in the order of the tickets and their records.
      expect(made.map((a) => [a.id, a.ticket, a.followup, a.filename, a.size, a.mime_type])).toEqual([
        [3, 1, 1, 'comment-followup-1.txt', 450_000, 'text/plain; charset=utf-8'],
        [4, 3, 3, 'description-ticket-3.txt', 330_003, 'text/plain; charset=utf-8'],
        [5, 3, 4, 'change-7-new_value.txt', 310_000, 'text/plain; charset=utf-8'],
      ]);
      expect(made.map((a) => a.text)).toEqual([comment, description, change]);
      const f1 = t1!.followups.find((f) => f.id === 1)!;
      expect(f1.comment).toBe(
        `${comment.slice(0, CUT_TEXT_HEAD_BYTES)}\n\n[Cut at the import from django-helpdesk: the whole text ` +
          '(450000 bytes) is the attachment comment-followup-1.txt.]',
      );
      // Cut between characters: 20,000 whole euro signs (60,000 bytes).
      expect(t3!.ticket.description).toMatch(/^€{20000}\n\n\[Cut at the import .* description-ticket-3\.txt\.\]$/);
      expect(t3!.followups.find((f) => f.id === 4)!.changes![0]!.new_value).toMatch(/^x{60000}\n\n\[Cut /);
      expect(t3!.followups.find((f) => f.id === 4)!.changes![0]!.old_value).toBe('WHOA!');
      expect(plan.report.warnings).toContain(
        "ticket 3's description takes 330003 bytes, more than a record holds: cut to its first 60000 bytes, and " +
          'kept whole as the attachment description-ticket-3.txt (4) of followup 3',
      );
      expect(plan.report.tooLarge).toEqual([]);
      // The same dump gives the same files: a rerun finds them equal.
      const again = planImport(withText(description, comment, change), () => true);
      expect(again.tickets.flatMap((t) => t.attachments)).toEqual(plan.tickets.flatMap((t) => t.attachments));
    });

    it('leaves text a record holds as it is, however long the field', () => {
      const description = 'y'.repeat(250_000);
      const plan = planImport(withText(description, 'short', 'z'), () => true);
      expect(plan.tickets[2]!.ticket.description).toBe(description);
      expect(plan.tickets.flatMap((t) => t.attachments).map((a) => a.id)).toEqual([1, 2]);
    });

    it('names a record that stays too large, which the CLI refuses before writing', () => {
      const plan = planImport(withText('WHOA!', 'short', 'z', 'c'.repeat(301_000)), () => true);
      expect(plan.report.tooLarge).toEqual(['ticket 3 (its custom values)']);
    });
  });

  it('reads an installation of 250,000 followups and files: the highest ids without a spread of them', () => {
    // Math.max(...ids) overflowed the stack past some 120,000 ids: the import of a helpdesk with more stopped there.
    const n = 250_000;
    const big: DjangoObject[] = [
      ...demo.filter((o) => o.model === 'helpdesk.queue' || o.model === 'auth.user'),
      { model: 'helpdesk.ticket', pk: 1, fields: { queue: 1, title: 't', created: '2020-01-01T00:00:00Z' } },
    ];
    for (let id = 1; id <= n; id++) {
      big.push({
        model: 'helpdesk.followup',
        pk: id,
        fields: { ticket: 1, comment: id === n ? 'z'.repeat(310_000) : 'c' },
      });
      big.push({ model: 'helpdesk.followupattachment', pk: id, fields: { followup: id, file: `f/${id}`, size: 1 } });
    }
    const plan = planImport(big, () => true);
    // The long comment's file comes after the dump's highest attachment id.
    expect(plan.tickets[0]!.attachments.at(-1)).toMatchObject({
      id: n + 1,
      followup: n,
      filename: `comment-followup-${n}.txt`,
    });
    expect(highestIds(plan)).toMatchObject({ ticket: 1, followup: n, attachment: n + 1 });
  });

  it('writes a dump an object at a time, as JSON.stringify with an indent of 2 writes it whole', () => {
    expect([...dumpdataText(demo)].join('')).toBe(`${JSON.stringify(demo, null, 2)}\n`);
    expect([...dumpdataText(demo)].length).toBe(demo.length + 2);
    expect([...dumpdataText([])].join('')).toBe('[]\n');
  });
});
