/**
 * import-django with text longer than one record holds (django-helpdesk bounds none): upstream's demo with a
 * 450,000-byte comment and a 330,003-byte description, imported with the CLI into a runtime's table. Before, the
 * run failed at DynamoDB's item size with the tickets written and their followups not, and every rerun stopped at
 * the same record. Now it finishes, each long text kept whole as a file of its followup, read back over HTTP.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { basic, clientFor, download, type Json } from './client';
import { onSharedEngines } from './shared-engines';
import { spawnApiRuntime, type SpawnedRuntime } from './spawn-runtime';
import { cliOnTable } from './table-cli';
import type { DjangoObject } from '../../shared/migrate/django';

const FIXTURE = resolve(import.meta.dirname, '../fixtures/django-helpdesk');
const DEMO_ADMIN = basic('admin', 'Pa33w0rd');
const engines = onSharedEngines('django-import-long-text');
const work = mkdtempSync(join(tmpdir(), 'helpdesk-django-long-'));
const comment = 'log line\n'.repeat(50_000);
const description = `${'€'.repeat(110_000)}end`;
let runtime: SpawnedRuntime;

const dump = join(work, 'dump.json');
writeFileSync(
  dump,
  JSON.stringify(
    (JSON.parse(readFileSync(join(FIXTURE, 'demo.json'), 'utf8')) as DjangoObject[]).map((o) => {
      if (o.model === 'helpdesk.ticket' && o.pk === 3) return { ...o, fields: { ...o.fields, description } };
      if (o.model === 'helpdesk.followup' && o.pk === 1) return { ...o, fields: { ...o.fields, comment } };
      return o;
    }),
  ),
);
/** The same with a custom value over a record's 300,000 bytes: not a text the import can keep as a file. */
const tooLarge = join(work, 'too-large.json');
writeFileSync(
  tooLarge,
  JSON.stringify([
    ...(JSON.parse(readFileSync(dump, 'utf8')) as DjangoObject[]),
    { model: 'helpdesk.customfield', pk: 5, fields: { name: 'notes', label: 'Notes', data_type: 'text' } },
    { model: 'helpdesk.ticketcustomfieldvalue', pk: 1, fields: { ticket: 2, field: 5, value: 'c'.repeat(301_000) } },
  ]),
);
// --overwrite: the runtime's own admin and queue 1 give way to the demo's.
const importDump = (...more: string[]) =>
  cliOnTable(engines, ['import-django', ...more, '--media', join(FIXTURE, 'media'), '--overwrite', '--json'], {
    env: { HELPDESK_MAIL_SECRET: 'x'.repeat(40) },
  });

beforeAll(async () => {
  runtime = await spawnApiRuntime({ ...engines, HELPDESK_MAIL_SECRET: 'x'.repeat(40) });
}, 180_000);

afterAll(async () => {
  await runtime?.stop();
  rmSync(work, { recursive: true, force: true });
});

it('reads the dump an object at a time, and names what is wrong with one it cannot read', async () => {
  const bad = (name: string, text: string) => {
    writeFileSync(join(work, name), text);
    return join(work, name);
  };
  const cases: [string, string][] = [
    [bad('object.json', '{"model": "helpdesk.ticket"}'), 'is not a dumpdata JSON file'],
    [bad('numbers.json', '[1, 2]'), 'is not a dumpdata JSON file'],
    [bad('cut.json', '[{"model": "helpdesk.ticket", "pk": 1, "fields": {'), 'Cannot read the dump'],
    [join(work, 'missing.json'), 'Cannot read the dump'],
  ];
  for (const [path, message] of cases) {
    const run = await importDump(path, '--dry-run');
    expect([path, run.code, run.stderr]).toEqual([path, 1, expect.stringContaining(message)]);
  }
});

it('refuses, writing nothing, a dump with a record too large even with its long texts as files', async () => {
  const run = await importDump(tooLarge);
  expect(run.code).toBe(1);
  expect(run.stderr).toContain('1 records cannot be stored, not even with their long texts kept as files');
  expect(run.stderr).toContain('ticket 2 (its custom values)');
  // Not even the users and queues that come first: queue 1 is still the runtime's own, not the demo's DH.
  const api = clientFor(runtime.url);
  expect((await api.call('GET', '/api/queues/1/')).body).toMatchObject({ slug: 'support' });
  expect((await api.call('GET', '/api/tickets/1/')).status).toBe(404);
});

it("imports a text longer than a record holds: its head in the record, the whole as its followup's file", async () => {
  const dry = await importDump(dump, '--dry-run');
  expect(dry.code, dry.stderr).toBe(0);
  expect(JSON.parse(dry.stdout).warnings).toContain(
    "followup 1's comment takes 450000 bytes, more than a record holds: cut to its first 60000 bytes, and kept " +
      'whole as the attachment comment-followup-1.txt (3) of followup 1',
  );

  const run = await importDump(dump);
  expect(run.code, run.stderr).toBe(0);
  const api = clientFor(runtime.url);
  const file = async (ticket: number, name: string) => {
    const reply = await api.call('GET', `/api/tickets/${ticket}/`, { auth: DEMO_ADMIN });
    expect(reply.status, reply.text).toBe(200);
    const files = (reply.body.followup_set as Json[]).flatMap((f) => f.followupattachment_set as Json[]);
    const found = files.find((a) => a.filename === name);
    expect(found, JSON.stringify(files)).toBeDefined();
    const { target, bytes } = await download(new URL(found!.file as string, runtime.url).toString(), DEMO_ADMIN);
    // UTF-8 named, so that a browser shows the text's € as such.
    expect(target.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    return { ticket: reply.body, bytes };
  };
  const one = await file(1, 'comment-followup-1.txt');
  expect(one.bytes.toString('utf8')).toBe(comment);
  const opened = (one.ticket.followup_set as Json[]).find((f) => f.id === 1)!;
  // The head (60,000 bytes, not read over whole here: a failure would print it) and the line naming the file.
  const head = comment.slice(0, 60_000);
  expect((opened.comment as string).startsWith(head)).toBe(true);
  expect((opened.comment as string).slice(head.length)).toBe(
    '\n\n[Cut at the import from django-helpdesk: the whole text (450000 bytes) is the attachment ' +
      'comment-followup-1.txt.]',
  );
  const three = await file(3, 'description-ticket-3.txt');
  expect(three.bytes.toString('utf8')).toBe(description);
  expect(three.ticket.description).toMatch(/^€{20000}\n\n\[Cut at the import /);

  // Rerun: every item equal already.
  const again = await importDump(dump);
  expect(again.code, again.stderr).toBe(0);
  for (const [kind, tally] of Object.entries(JSON.parse(again.stdout).items as Record<string, Json>))
    expect([kind, tally.written, tally.replaced, tally.conflicts]).toEqual([kind, 0, 0, []]);
}, 120_000);
