/**
 * `npm run bench -- --import` (issue 37): a generated django-helpdesk installation of 20,000 tickets,
 * 60,000 followups and 2,000 attachments imported with `import-django` into a fresh local runtime (the
 * CLI in a process of its own, against the runtime's table as against a deployed one), timed, and then
 * the time until the derived state is exact (the list's count, which follows the table's stream).
 * Writes the "Importing from django-helpdesk" section of docs/benchmarks.md.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { withSection } from './report';
import { BENCH_ADMIN_AUTH, BENCH_ADMIN_ENV } from './admin';

const TICKETS = Number(process.env.BENCH_IMPORT_TICKETS ?? 20_000);
const FOLLOWUPS_PER_TICKET = 3;
const ATTACHMENT_EVERY = 10; // one attachment per 10 tickets: 2,000
const START = '<!-- import:start -->';
const END = '<!-- import:end -->';
const REPORT = resolve(import.meta.dirname, '../docs/benchmarks.md');
const log = (m: string) => process.stderr.write(`${m}\n`);

const work = mkdtempSync(join(tmpdir(), 'bench-import-'));
const media = join(work, 'media');
const at = (i: number) => new Date(Date.UTC(2020, 0, 1) + i * 60_000).toISOString();

function installation(): unknown[] {
  const objects: unknown[] = [];
  // Queues 11 to 14: the runtime's own queue 1 stays as it is.
  for (let q = 11; q <= 14; q++)
    objects.push({
      model: 'helpdesk.queue',
      pk: q,
      fields: { title: `Queue ${q}`, slug: `q${q}`, escalate_days: null },
    });
  for (let u = 1; u <= 20; u++)
    objects.push({
      model: 'auth.user',
      pk: u + 1,
      fields: {
        username: `agent${u}`,
        password: 'pbkdf2_sha256$1000$benchsalt$AAAA',
        is_staff: true,
        is_superuser: false,
        is_active: true,
        email: `agent${u}@example.com`,
        first_name: '',
        last_name: '',
        date_joined: at(0),
        groups: [],
        user_permissions: [['queue_access_q11', 'helpdesk', 'queue']],
      },
    });
  let followup = 0;
  for (let t = 1; t <= TICKETS; t++) {
    objects.push({
      model: 'helpdesk.ticket',
      pk: t,
      fields: {
        title: `Imported ticket ${t}`,
        queue: 11 + (t % 4),
        created: at(t),
        modified: at(t + 3),
        submitter_email: `user${t % 500}@example.com`,
        assigned_to: t % 3 ? 2 + (t % 20) : null,
        status: 1 + (t % 4),
        on_hold: false,
        description: `The description of ticket ${t}, a line or two as people write them.`,
        resolution: null,
        priority: 1 + (t % 5),
        due_date: null,
        secret_key: `bench-${t}`,
        merged_to: null,
      },
    });
    for (let f = 0; f < FOLLOWUPS_PER_TICKET; f++) {
      followup++;
      objects.push({
        model: 'helpdesk.followup',
        pk: followup,
        fields: {
          ticket: t,
          date: at(t + f),
          title: f ? 'Comment' : 'Ticket Opened',
          comment: `Followup ${f} of ticket ${t}.`,
          public: f !== 1,
          user: f ? 2 + (t % 20) : null,
          new_status: null,
          message_id: null,
          time_spent: f === 2 ? '0:15:00' : null,
        },
      });
      if (f === 0 && t % ATTACHMENT_EVERY === 0) {
        const file = `helpdesk/attachments/q-${t}/${followup}/note.txt`;
        mkdirSync(join(media, file, '..'), { recursive: true });
        writeFileSync(join(media, file), `Attachment of ticket ${t}.\n`);
        objects.push({
          model: 'helpdesk.followupattachment',
          pk: t / ATTACHMENT_EVERY,
          fields: { followup, file, filename: 'note.txt', mime_type: 'text/plain', size: 24 },
        });
      }
    }
  }
  return objects;
}

process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
Object.assign(process.env, {
  ...BENCH_ADMIN_ENV,
  HELPDESK_ACTIVATE_API_ENDPOINT: 'True',
});
const { startLocalRuntime } = await import('../infra/local/runtime');
const runtime = await startLocalRuntime({ dataDir: 'memory', port: 0 });
const count = async () =>
  (
    (await (
      await fetch(`${runtime.url}/api/tickets/?page_size=1`, { headers: { authorization: BENCH_ADMIN_AUTH } })
    ).json()) as {
      count: number;
    }
  ).count;

const dump = join(work, 'dump.json');
const objects = installation();
writeFileSync(dump, JSON.stringify(objects));
log(`generated ${objects.length} objects (${TICKETS} tickets); importing`);
const load = { before: loadavg()[0]!, cores: cpus().length };
const started = performance.now();
const env: NodeJS.ProcessEnv = { ...process.env };
delete env.HELPDESK_DATA_DIR;
// Set by the runtime in this process for its invocations (infra/local/invocations.ts): in the CLI, which serves none,
// Powertools would ask for the invocation store and the CLI exit with "InvokeStore is not available".
delete env.AWS_LAMBDA_MAX_CONCURRENCY;
const out = await new Promise<string>((done, fail) => {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'cli/main.ts', 'import-django', dump, '--media', media, '--json', '--table', env.TABLE_NAME!],
    { cwd: resolve(import.meta.dirname, '..'), env, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let text = '';
  child.stdout.on('data', (c) => (text += c));
  child.once('close', (code) => (code === 0 ? done(text) : fail(new Error(`import-django exited ${code}`))));
});
const importSeconds = (performance.now() - started) / 1000;
const loadDuring = loadavg()[0]!;
const tally = (JSON.parse(out) as { items: Record<string, { written: number }> }).items;
const items = Object.values(tally).reduce((n, t) => n + t.written, 0);
const records = TICKETS * (1 + FOLLOWUPS_PER_TICKET) + TICKETS / ATTACHMENT_EVERY;
log(`imported ${records} records (${items} items) in ${importSeconds.toFixed(1)} s; waiting for the counts`);
while ((await count()) < TICKETS) await new Promise((r) => setTimeout(r, 250));
const exactSeconds = (performance.now() - started) / 1000 - importSeconds;
await runtime.stop();
rmSync(work, { recursive: true, force: true });

const r = (n: number) => Math.round(n);
const fullSizeMinutes = r(((20_000 / TICKETS) * importSeconds) / 60);
const smallerRun =
  TICKETS === 20_000
    ? ''
    : `Run with BENCH_IMPORT_TICKETS=${TICKETS}, not the issue's 20,000: at this rate those take ${fullSizeMinutes} ` +
      'minutes.\n\n';
const section = `${START}
## Importing from django-helpdesk

Measured by \`npm run bench -- --import\` on ${new Date().toISOString().slice(0, 10)}: a generated installation
of ${TICKETS.toLocaleString('en')} tickets, ${(TICKETS * FOLLOWUPS_PER_TICKET).toLocaleString('en')} followups and
${(TICKETS / ATTACHMENT_EVERY).toLocaleString('en')} attachments (20 users, 4 queues) imported with \`import-django\`
(a process of its own, 8 transactions of up to 100 conditional puts in flight) into a freshly started local
runtime on DynamoDB Local and s3rver. Load average ${load.before.toFixed(1)} on ${load.cores} cores as it began,
${loadDuring.toFixed(1)} as the import ended (the engines, the runtime's stream consumer and the CLI share them).

| | figure |
|---|---|
| records (tickets, followups, attachments) | ${records.toLocaleString('en')} |
| items written (the records, their refs, users, queues) | ${items.toLocaleString('en')} |
| import time | ${importSeconds.toFixed(0)} s |
| rate | ${r(records / importSeconds)} records/s, ${r(items / importSeconds)} items/s |
| after the import, until the list's count was exact | ${exactSeconds.toFixed(0)} s |

${smallerRun}The stream consumer (counts, listings, page snapshots) works beside the import and finishes after it;
mail and webhooks skip the imported records. On AWS the rate and cost: [cost.md](cost.md).
${END}`;
const previous = existsSync(REPORT) ? readFileSync(REPORT, 'utf8') : '';
writeFileSync(REPORT, withSection(previous, START, END, section));
log(section);
process.exit(0);
