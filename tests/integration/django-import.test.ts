/**
 * import-django and export-django (issue 37) end to end: upstream's demo fixture and a generated
 * installation imported with the CLI into a runtime's table (as into a deployed one: --table), read back
 * over HTTP, signed in with the imported passwords and DRF token, a reply over SMTP threaded to an imported
 * Message-ID; nobody mailed and no webhook called; a second run changes nothing; a run killed half-way
 * finishes when run again; and the export imported into a fresh helpdesk gives equal records.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { basic, clientFor, download, type Json } from './client';
import { compose } from '../fixtures/mail/corpus';
import PostalMime from 'postal-mime';
import { mailsTo, sendRaw } from './mail-helpers';
import { onSharedEngines } from './shared-engines';
import { MIN_COST_SCRYPT_PARAMS } from '../../shared/domain/password';
import { spawnApiRuntime, type SpawnedRuntime } from './spawn-runtime';
import { cliOnTable } from './table-cli';
import { startReceiver, type Receiver } from './webhook-receiver';
import { CUSTOM_VALUES, djangoInstallation, PASSWORD, type Installation } from './django-fixture';

const FIXTURE = resolve(import.meta.dirname, '../fixtures/django-helpdesk');
/** The demo's admin: upstream's demo README signs in with this password (pbkdf2_sha256, 1,000,000 rounds). */
const DEMO_ADMIN = basic('admin', 'Pa33w0rd');
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

const work = mkdtempSync(join(tmpdir(), 'helpdesk-django-'));
const mailbox = join(work, 'mailbox');
const engines = onSharedEngines('django-import');
/**
 * The runtimes keep custom field definitions 1 s rather than a minute: fields the CLI imports show
 * on a warm runtime's tickets within that (each check below waits for them), not after a minute's wait.
 */
const CACHE = { HELPDESK_CUSTOM_FIELDS_CACHE_MS: '1000' };
let runtime: SpawnedRuntime;
let receiver: Receiver;
let api: ReturnType<typeof clientFor>;
const as = (auth: string) => ({
  get: (path: string) => api.call('GET', path, { auth }),
});

const cli = (args: string[], env: Record<string, string> = {}, on = engines) =>
  cliOnTable(on, [...args, '--json'], { env: { HELPDESK_MAIL_SECRET: 'x'.repeat(40), ...env } });

function dump(installation: Installation, name: string): string {
  const path = join(work, name);
  writeFileSync(path, JSON.stringify(installation.objects));
  return path;
}

const mails = () => (existsSync(mailbox) ? readdirSync(mailbox).filter((f) => f.endsWith('.eml')) : []);

beforeAll(async () => {
  receiver = await startReceiver();
  runtime = await spawnApiRuntime({
    ...engines,
    ...CACHE,
    HELPDESK_AUTHENTICATION_CLASSES: 'basic,token',
    HELPDESK_MAILBOX_DIR: mailbox,
    HELPDESK_MAIL_SECRET: 'x'.repeat(40),
    HELPDESK_NEW_TICKET_WEBHOOK_URLS: `${receiver.url}/new`,
    HELPDESK_FOLLOWUP_WEBHOOK_URLS: `${receiver.url}/followup`,
    HELPDESK_WEBHOOK_SECRET: SECRET,
  });
  api = clientFor(runtime.url);
}, 180_000);

afterAll(async () => {
  await runtime?.stop();
  await receiver?.stop();
  rmSync(work, { recursive: true, force: true });
});

const media = join(work, 'media');
const generated = djangoInstallation(100, media);

describe('import-django', () => {
  it('dry run: the report per model, skipped with why, warnings; nothing written', async () => {
    const run = await cli([
      'import-django',
      join(FIXTURE, 'demo.json'),
      '--media',
      join(FIXTURE, 'media'),
      '--dry-run',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.imported).toEqual({
      'auth.user': 1,
      'helpdesk.queue': 2,
      'helpdesk.ticket': 3,
      'helpdesk.followup': 4,
      'helpdesk.followupattachment': 2,
      'helpdesk.ticketcc': 1,
    });
    expect(report.skipped).toEqual({
      'helpdesk.kbcategory': { count: 2, why: 'no knowledge base' },
      'helpdesk.kbitem': { count: 3, why: 'no knowledge base' },
    });
    expect(report.items.tickets).toEqual({ written: 3, unchanged: 0, replaced: 0, conflicts: [] });
    expect((await api.call('GET', '/api/tickets/1/')).status).toBe(404);
  });

  it("imports upstream's demo (replacing the local bootstrap's admin and queue 1) and reads it back", async () => {
    const run = await cli([
      'import-django',
      join(FIXTURE, 'demo.json'),
      '--media',
      join(FIXTURE, 'media'),
      '--overwrite',
    ]);
    expect(run.code, run.stderr).toBe(0);
    // The demo's admin signs in with the demo's password (Django's pbkdf2_sha256), and is rehashed to ours.
    const reply = await as(DEMO_ADMIN).get('/api/tickets/3/');
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ id: 3, queue: 1, title: expect.any(String) });
    expect(reply.body.followup_set.length).toBeGreaterThan(0);
    const files = (reply.body.followup_set as Json[]).flatMap((f) => f.followupattachment_set as Json[]);
    expect(files.map((a) => a.filename).sort()).toEqual(['helpdesk.png', 'someinfo.txt']);
    const txt = files.find((a) => a.filename === 'someinfo.txt')!;
    const { bytes } = await download(new URL(txt.file as string, runtime.url).toString(), DEMO_ADMIN);
    expect(bytes).toEqual(readFileSync(join(FIXTURE, 'media/helpdesk/attachments/DH-3/3/someinfo.txt')));
    const queue = await as(DEMO_ADMIN).get('/api/queues/1/');
    expect(queue.body).toMatchObject({ slug: 'DH', email_address: 'django-helpdesk@example.com' });
    const stored = await new DynamoDBClient({
      endpoint: engines.AWS_ENDPOINT_URL_DYNAMODB,
      region: engines.AWS_REGION,
      // DynamoDB Local keeps a database per access key and region: the runtime's.
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    }).send(new GetItemCommand({ TableName: engines.TABLE_NAME, Key: { PK: { S: 'USER#admin' }, SK: { S: 'USER' } } }));
    // Rehashed at the sign-in, in Django's scrypt encoding at the cost the suite's runtimes hash at (vitest.config.ts).
    const { N, r, p } = MIN_COST_SCRYPT_PARAMS;
    expect(stored.Item?.password_hash?.S).toMatch(new RegExp(`^scrypt\\$${N}\\$[A-Za-z0-9]{22}\\$${r}\\$${p}\\$`));
    expect((await as(DEMO_ADMIN).get('/api/users/me/')).status).toBe(200);
  }, 60_000);

  it('imports every field and edge, and reads it back over the API', async () => {
    const run = await cli(['import-django', dump(generated, 'generated.json'), '--media', media]);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.skipped['helpdesk.savedsearch']).toEqual({ count: 1, why: 'no saved searches' });
    expect(report.skipped['helpdesk.usersettings']).toEqual({ count: 1, why: 'no per-user settings' });
    expect(report.unusablePasswords).toEqual(['argon2-100 (argon2)', 'bcrypt_sha256-100 (bcrypt_sha256)']);
    expect(report.warnings).toEqual(
      expect.arrayContaining([
        expect.stringContaining('slug "odd.slug100" changed to "odd-slug100"'),
        expect.stringContaining('lost.pdf" is missing under --media'),
      ]),
    );
    const { ids, users } = generated;
    const agent = basic(users.pbkdf2_sha256, PASSWORD);
    const t = (await as(agent).get(`/api/tickets/${ids.ticket}/`)).body;
    expect(t).toMatchObject({
      id: ids.ticket,
      queue: ids.queue,
      status: 3,
      on_hold: true,
      priority: 2,
      resolution: 'Extinguished.',
      submitter_email: 'reporter-100@example.com',
      assigned_to: ids.staff,
      due_date: '2023-06-01T00:00:00Z',
      merged_to: null,
    });
    // A warm function keeps the custom field definitions for a while (CACHE here): then they show.
    const custom = async () => (await as(agent).get(`/api/tickets/${ids.ticket}/`)).body;
    await expect.poll(async () => (await custom()).custom_c_integer_100, { timeout: 15_000 }).toBe(42);
    const values = await custom();
    for (const [name, [, , wire]] of Object.entries(CUSTOM_VALUES))
      expect(values[`custom_${name}_100`], name).toEqual(wire);
    const followups = t.followup_set as Json[];
    expect(followups.map((f) => [f.id, f.public, f.time_spent, f.message_id])).toEqual([
      [ids.openingFollowup, true, null, generated.messageId],
      [ids.privateFollowup, false, '01:30:00', null],
      [ids.openingFollowup + 2, true, '2 00:00:05.000001', null],
    ]);
    expect(followups[2]!.followupattachment_set.map((a: Json) => [a.filename, a.mime_type, a.size])).toEqual([
      ['report.txt', 'text/plain', 'The report of 100.\n'.length],
    ]);
    const merged = (await as(agent).get(`/api/tickets/${ids.merged}/`)).body;
    expect(merged).toMatchObject({ status: 5, merged_to: ids.ticket });
    const ccList = (await as(agent).get(`/api/tickets/${ids.ticket}/cc/`)).body;
    const ccs = (ccList.results ?? ccList) as Json[];
    expect(ccs.map((c) => [c.user, c.email, c.can_update])).toEqual([
      [ids.staff + 1, null, false],
      [null, 'watcher-100@example.com', true],
    ]);
    // The counts and listings took the imported tickets in: demo 3 and these 2.
    await expect.poll(async () => (await as(DEMO_ADMIN).get('/api/tickets/?page_size=1')).body.count).toBe(5);
    // A queue's bad slug made valid; upstream's locale taken (it picks the queue's search stemming).
    expect((await as(DEMO_ADMIN).get(`/api/queues/${ids.badSlugQueue}/`)).body).toMatchObject({
      slug: 'odd-slug100',
      locale: null,
    });
    expect((await as(DEMO_ADMIN).get(`/api/queues/${ids.queue}/`)).body.locale).toBe('de');
  }, 120_000);

  it("signs in with each hasher's password (unknown ones refused) and the imported DRF token", async () => {
    const { users } = generated;
    for (const hasher of ['pbkdf2_sha256', 'pbkdf2_sha1', 'scrypt'] as const)
      expect((await as(basic(users[hasher], PASSWORD)).get('/api/users/me/')).status, hasher).toBe(200);
    for (const hasher of ['argon2', 'bcrypt_sha256'] as const)
      expect((await as(basic(users[hasher], PASSWORD)).get('/api/users/me/')).status, hasher).toBe(401);
    const me = await as(`Token ${generated.token}`).get('/api/users/me/');
    expect(me.status, me.text).toBe(200);
    expect(me.body.username).toBe(users.pbkdf2_sha256);
  }, 60_000);

  const NOTHING_SENT =
    'mailed nobody and called no webhook: the first mail and webhook after the import are for a new ticket';
  it(
    NOTHING_SENT,
    async () => {
      const marker = await api.call('POST', '/api/tickets/', {
        auth: DEMO_ADMIN,
        json: {
          queue: generated.ids.queue,
          title: 'Marker',
          description: 'Marker',
          submitter_email: 'marker@example.com',
        },
      });
      expect(marker.status, marker.text).toBe(201);
      const [first] = await receiver.waitFor(1, () => true);
      expect(first!.path).toBe('/new');
      expect(first!.body).toContain('Marker');
      // Every mail there is about the marker (its acknowledgement, the queue's CC): none about imported history.
      await mailsTo(mailbox, 'marker@example.com', 1);
      const subjects = await Promise.all(
        mails().map(async (f) => (await PostalMime.parse(readFileSync(join(mailbox, f)))).subject),
      );
      for (const subject of subjects) expect(subject).toContain('Marker');
      expect(receiver.received.length).toBe(1);
      // The change feed has no event of an imported ticket either (subscriptions read it).
      const ticketsInFeed = async () => [
        ...new Set(((await as(DEMO_ADMIN).get('/api/events/?limit=100')).body.results as Json[]).map((e) => e.ticket)),
      ];
      await expect.poll(ticketsInFeed, { timeout: 15_000 }).toEqual([marker.body.id]);
    },
    60_000,
  );

  it('a second run changes nothing', async () => {
    const run = await cli(['import-django', join(work, 'generated.json'), '--media', media]);
    expect(run.code, run.stderr).toBe(0);
    const items = JSON.parse(run.stdout).items as Record<string, Json>;
    for (const [kind, tally] of Object.entries(items)) {
      expect(tally.written, kind).toBe(0);
      expect(tally.replaced, kind).toBe(0);
      // The users signed in since, and their hashes were upgraded: still the users the dump names.
      expect(tally.conflicts, kind).toEqual([]);
    }
  }, 60_000);

  it("threads a reply over SMTP to an imported followup's Message-ID", async () => {
    const raw = await compose(
      {
        from: 'reporter-100@example.com',
        to: `${generated.slug}@localhost`,
        subject: 'Re: no tag here',
        inReplyTo: generated.messageId,
      },
      { text: 'It burns again.' },
    );
    const sent = await sendRaw(runtime.smtpPort, raw, [`${generated.slug}@localhost`], 'reporter-100@example.com');
    expect(sent.accepted, sent.response).toBe(true);
    expect(sent.ticket).toBe(generated.ids.ticket);
  }, 60_000);

  it('a run killed half-way finishes when run again, with nothing duplicated or lost', async () => {
    const other = djangoInstallation(200, media);
    const path = dump(other, 'killed.json');
    const killed = await cli(['import-django', path, '--media', media], { HELPDESK_IMPORT_FAULT_AFTER: '9' });
    expect(killed.code).toBeNull();
    expect((await as(DEMO_ADMIN).get(`/api/tickets/${other.ids.ticket}/`)).status).toBe(404);
    const again = await cli(['import-django', path, '--media', media]);
    expect(again.code, again.stderr).toBe(0);
    const items = JSON.parse(again.stdout).items as Record<string, Json>;
    expect(Object.values(items).reduce((n, t) => n + (t.unchanged as number), 0)).toBeGreaterThanOrEqual(9);
    const t = (await as(DEMO_ADMIN).get(`/api/tickets/${other.ids.ticket}/`)).body;
    expect(t.followup_set.map((f: Json) => f.id)).toEqual([
      other.ids.openingFollowup,
      other.ids.privateFollowup,
      other.ids.openingFollowup + 2,
    ]);
    const third = await cli(['import-django', path, '--media', media]);
    for (const tally of Object.values(JSON.parse(third.stdout).items as Record<string, Json>))
      expect(tally.written).toBe(0);
    await expect.poll(async () => (await as(DEMO_ADMIN).get('/api/tickets/?page_size=1')).body.count).toBe(8);
  }, 120_000);
});

describe('export-django', () => {
  it('exports what import-django reads back into a fresh helpdesk as equal records', async () => {
    const out = join(work, 'export.json');
    const files = join(work, 'export-media');
    const exported = await cli(['export-django', out, '--media', files]);
    expect(exported.code, exported.stderr).toBe(0);
    const first = JSON.parse(readFileSync(out, 'utf8')) as Json[];
    expect(first.filter((o) => o.model === 'helpdesk.ticket').length).toBe(8);
    const fresh = onSharedEngines('django-roundtrip');
    const second = await spawnApiRuntime({ ...fresh, ...CACHE });
    try {
      // The fresh runtime's own admin and queue 1 are replaced by the exported ones (the same ids).
      const imported = await cli(['import-django', out, '--media', files, '--overwrite'], {}, fresh);
      expect(imported.code, imported.stderr).toBe(0);
      const again = join(work, 'export-again.json');
      const reexported = await cli(['export-django', again, '--media', join(work, 'export-media-again')], {}, fresh);
      expect(reexported.code, reexported.stderr).toBe(0);
      expect(JSON.parse(readFileSync(again, 'utf8'))).toEqual(first);
      for (const o of first.filter((x) => x.model === 'helpdesk.followupattachment'))
        expect(readFileSync(join(work, 'export-media-again', o.fields.file as string))).toEqual(
          readFileSync(join(files, o.fields.file as string)),
        );
      // Over the API too: the ticket with everything, as staff read it on both.
      const read = async (base: string) => {
        const reply = await clientFor(base).call('GET', `/api/tickets/${generated.ids.ticket}/`, { auth: DEMO_ADMIN });
        return JSON.parse(reply.text.replaceAll(base, ''));
      };
      // (The first runtime shows the custom fields imported last once its definitions are read again: CACHE.)
      const there = await read(second.url);
      await expect.poll(() => read(runtime.url), { timeout: 15_000, interval: 250 }).toEqual(there);
    } finally {
      await second.stop();
    }
  }, 240_000);
});
