/**
 * Moving in from django-helpdesk and back out (issue 37): `import-django <dump.json> --media <MEDIA_ROOT>`
 * and `export-django <out.json> --media <dir>`. The dump is `manage.py dumpdata` JSON; the mapping is
 * shared/migrate/django.ts, the writes shared/store/django-import.ts. docs/operations.md has the runbook.
 */
import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { command, Failure, UsageError, type Context } from './command';
import { chooseTarget } from './target';
import { progressBar } from './terminal';
import type { DjangoObject, ImportReport } from '../shared/migrate/django';

const BUCKET_OPTION = {
  type: 'string' as const,
  value: 'NAME',
  help: 'the attachments bucket of a deployed environment (default: $BUCKET_NAME; the stack output BucketName)',
};

/** A file under `media`, never outside it (a dump's `file` is a relative path). */
function mediaPath(media: string, file: string): string | undefined {
  const root = resolve(media);
  const path = resolve(root, file);
  return path.startsWith(root + sep) ? path : undefined;
}

const NOT_A_DUMP = 'is not a dumpdata JSON file (a list of {"model", "pk", "fields"}).';

/**
 * The dump's objects, read an object at a time (stream-json), so that a dump longer than V8's longest string (some
 * 512 MB) is read: the file as one string for `JSON.parse` failed there (a 617 MB dump: ERR_STRING_TOO_LONG;
 * streamed, 10 s and 845 MB here). The dump is the operator's own file, the input stream-json is made for.
 */
async function readDump(path: string): Promise<DjangoObject[]> {
  const { streamArray } = await import('stream-json/streamers/stream-array.js');
  const valid = (o: unknown): o is DjangoObject =>
    !!o &&
    typeof o === 'object' &&
    typeof (o as DjangoObject).model === 'string' &&
    typeof (o as DjangoObject).fields === 'object';
  const objects: DjangoObject[] = [];
  const notADump = new Failure(`${path} ${NOT_A_DUMP}`);
  // Kept aside: a throw in the last stage makes the pipeline reject with its own AbortError, not with the throw.
  let refused = false;
  try {
    await pipeline(
      createReadStream(path),
      streamArray.withParserAsStream(),
      async (elements: AsyncIterable<{ value: unknown }>) => {
        for await (const { value } of elements) {
          if (!valid(value)) {
            refused = true;
            throw notADump;
          }
          objects.push(value);
        }
      },
    );
  } catch (error) {
    const message = (error as Error).message;
    // stream-json's word for a top-level value that is no list.
    if (refused || /Top-level object should be an array/.test(message)) throw notADump;
    throw new Failure(`Cannot read the dump ${path}: ${message}`);
  }
  return objects;
}

function useBucket(ctx: Context): void {
  const target = chooseTarget(ctx.options);
  const bucket = ctx.options.bucket as string | undefined;
  if (target.kind === 'local') {
    if (bucket !== undefined) throw new UsageError('--bucket is for a deployed environment (with --table).');
    return;
  }
  if (bucket) process.env.BUCKET_NAME = bucket;
  if (!process.env.BUCKET_NAME) throw new UsageError('Give the attachments bucket: --bucket (or BUCKET_NAME).');
}

function reportText(
  report: ImportReport,
  tally: Record<string, { written: number; unchanged: number; replaced: number; conflicts: string[] }>,
  dryRun: boolean,
): string {
  const lines = [dryRun ? 'Dry run: nothing was written.' : 'Import done.', '', 'Imported (per model):'];
  for (const [model, n] of Object.entries(report.imported).sort()) lines.push(`  ${model}: ${n}`);
  const skipped = Object.entries(report.skipped).sort();
  if (skipped.length) {
    lines.push('', 'Skipped:');
    for (const [model, s] of skipped) lines.push(`  ${model}: ${s.count} (${s.why})`);
  }
  lines.push(
    '',
    dryRun
      ? 'Items it would write (new / equal already / to replace / different):'
      : 'Items (written / equal already / replaced / refused as different):',
  );
  for (const [kind, t] of Object.entries(tally))
    lines.push(`  ${kind}: ${t.written} / ${t.unchanged} / ${t.replaced} / ${t.conflicts.length}`);
  if (report.warnings.length) lines.push('', 'Warnings:', ...report.warnings.map((w) => `  ${w}`));
  if (report.tooLarge.length)
    lines.push('', 'Cannot be stored (nothing is written while any are):', ...report.tooLarge.map((r) => `  ${r}`));
  return lines.join('\n');
}

/** Tickets written per round: their items read in one BatchGetItem pass, then put 16 at a time. */
const TICKETS_PER_ROUND = 25;

export const importDjango = command({
  name: 'import-django',
  args: ['dump.json'],
  summary: 'import a django-helpdesk installation (dumpdata JSON and MEDIA_ROOT)',
  description:
    'Reads `manage.py dumpdata --natural-foreign helpdesk auth.user auth.group authtoken.token` JSON and the ' +
    "attachment files under the installation's MEDIA_ROOT, and writes users, queues, custom fields, tickets, " +
    'followups, ticket changes, attachments, CCs and API tokens, keeping every id and time. Nobody is mailed and ' +
    'no webhook is called. Idempotent: a second run changes nothing, and a run stopped half-way finishes when ' +
    'run again. A record already there that differs is refused (exit 1) unless --overwrite. --dry-run prints the ' +
    'report (per model imported and skipped, warnings) and writes nothing.',
  options: {
    media: { type: 'string', value: 'DIR', help: "the installation's MEDIA_ROOT (attachment files)" },
    'dry-run': { type: 'boolean', help: 'print the report only; write nothing' },
    overwrite: { type: 'boolean', help: 'replace records that differ from the dump' },
    bucket: BUCKET_OPTION,
  },
  examples: [
    'npm run helpdesk -- import-django dump.json --media /srv/helpdesk/media --dry-run',
    'npm run helpdesk -- import-django dump.json --media ./media --table helpdesk-prod --bucket helpdesk-prod-files',
  ],
  async prepare(ctx) {
    useBucket(ctx);
    const objects = await readDump(ctx.args[0]!);
    const media = ctx.options.media as string | undefined;
    const { planImport, highestIds } = await import('../shared/migrate/django');
    const plan = planImport(objects, (file) => {
      const path = media === undefined ? undefined : mediaPath(media, file);
      return path !== undefined && existsSync(path);
    });
    if (media === undefined && plan.report.skipped['helpdesk.followupattachment'])
      plan.report.warnings.push('no --media given: attachment files cannot be read');
    const dryRun = ctx.options['dry-run'] === true;
    const overwrite = ctx.options.overwrite === true;
    const { tooLarge } = plan.report;
    // Refused before anything is written, so that the run leaves no half of an installation behind.
    if (tooLarge.length && !dryRun)
      throw new Failure(
        `${tooLarge.length} records cannot be stored, not even with their long texts kept as files ` +
          `(shorten them in django-helpdesk, or leave them out of the dump): ${tooLarge.join(', ')}`,
      );
    // The kill test's fault: the process ends outright after this many items written.
    const faultAfter = Number(process.env.HELPDESK_IMPORT_FAULT_AFTER ?? 0);
    return async () => {
      const store = await import('../shared/store/django-import');
      const { raiseCounters } = await import('../shared/store/counters');
      const { putFile } = await import('../shared/aws/s3');
      const recordsOf = (t: (typeof plan.tickets)[number]) => 1 + t.followups.length + t.attachments.length;
      const total =
        plan.users.length +
        plan.queues.length +
        plan.customFields.length +
        plan.tickets.reduce((n, t) => n + recordsOf(t), 0) +
        plan.ccs.length +
        plan.tokens.length;
      const tty = process.stderr.isTTY && !ctx.json;
      const started = Date.now();
      let done = 0;
      let items = 0;
      const progress = (n = 1) => {
        done += n;
        if (!tty) return;
        const seconds = (Date.now() - started) / 1000;
        process.stderr.write(`\r${progressBar(done, total, 'records', seconds > 0 ? done / seconds : undefined)}`);
      };
      const writer = store.importWriter({
        overwrite,
        dryRun,
        onItem: () => {
          if (faultAfter && ++items >= faultAfter) process.kill(process.pid, 'SIGKILL');
        },
      });
      if (!dryRun) await raiseCounters(highestIds(plan));
      await writer.write('users', plan.users.flatMap(store.userItems));
      progress(plan.users.length);
      await writer.write('queues', plan.queues.flatMap(store.queueItems));
      if (overwrite && !dryRun) await store.releaseStaleSlugs(plan.queues);
      progress(plan.queues.length);
      await writer.write(
        'custom fields',
        plan.customFields.map(({ id: _, ...d }) => store.customFieldItem(d)),
      );
      progress(plan.customFields.length);
      const files = new Map(plan.tickets.flatMap((t) => t.attachments.map((a) => [a.id, a])));
      for (let i = 0; i < plan.tickets.length; i += TICKETS_PER_ROUND) {
        const round = plan.tickets.slice(i, i + TICKETS_PER_ROUND);
        const secrets = await store.storedSecretKeys(round.map((t) => t.ticket.id));
        const desired = round.flatMap((t) =>
          store.ticketItems(
            {
              ...t,
              ticket: {
                ...t.ticket,
                secret_key: t.ticket.secret_key ?? secrets.get(t.ticket.id) ?? crypto.randomUUID(),
              },
            },
            writer.mark,
          ),
        );
        for (const kind of ['ticket', 'followup', 'attachment', 'other'] as const) {
          // Tickets before their followups, and an attachment's file before its record.
          await writer.write(
            { ticket: 'tickets', followup: 'followups', attachment: 'attachments', other: 'references' }[kind],
            desired.filter((d) => d.kind === kind),
            async (d) => {
              if (kind !== 'attachment') return;
              const a = files.get(Number(d.item.id))!;
              // A file the import made holds a text too long for its record (django.ts, keepLongTextWhole).
              const bytes =
                a.text !== undefined ? Buffer.from(a.text, 'utf8') : readFileSync(mediaPath(media!, a.file)!);
              await putFile(String(d.item.object_key), bytes, a.mime_type);
            },
          );
        }
        progress(round.reduce((n, t) => n + recordsOf(t), 0));
      }
      await writer.write('ticket ccs', plan.ccs.map(store.ticketCcItem));
      progress(plan.ccs.length);
      const tokens = { written: 0, unchanged: 0, replaced: 0, conflicts: [] as string[] };
      for (const token of plan.tokens) tokens[await store.importToken(token, dryRun)]++;
      writer.tally['api tokens'] = tokens;
      progress(plan.tokens.length);
      if (tty) process.stderr.write('\n');
      const conflicts = Object.values(writer.tally).flatMap((t) => t.conflicts);
      const seconds = (Date.now() - started) / 1000;
      ctx.out(
        ctx.json
          ? JSON.stringify({ ...plan.report, items: writer.tally, seconds }, null, 2)
          : `${reportText(plan.report, writer.tally, dryRun)}\n\n${total} records in ${seconds.toFixed(1)} s.`,
      );
      if (tooLarge.length) throw new Failure(`${tooLarge.length} records cannot be stored: ${tooLarge.join(', ')}`);
      if (conflicts.length && !dryRun)
        throw new Failure(
          `${conflicts.length} records differ from the dump and were left as they are (--overwrite replaces them): ` +
            `${conflicts.slice(0, 10).join(', ')}${conflicts.length > 10 ? ', ...' : ''}`,
        );
    };
  },
});

export const exportDjango = command({
  name: 'export-django',
  args: ['out.json'],
  summary: 'export to django-helpdesk dumpdata JSON (and the attachment files)',
  description:
    'Writes users (with their password hashes), queues, custom fields and their values, tickets, followups, ' +
    'ticket changes, attachments and CCs as `manage.py dumpdata` JSON, which `manage.py loaddata` reads, and the ' +
    'attachment files under --media (the dump names them relative to it, as MEDIA_ROOT). import-django reads it ' +
    'back into an empty helpdesk as equal records.',
  options: {
    media: { type: 'string', value: 'DIR', help: 'where the attachment files go (a MEDIA_ROOT)' },
    bucket: BUCKET_OPTION,
  },
  required: ['media'],
  examples: ['npm run helpdesk -- export-django out.json --media ./media'],
  prepare(ctx) {
    useBucket(ctx);
    const out = ctx.args[0]!;
    const media = ctx.options.media as string;
    return async () => {
      const [{ readInstallation }, { toDjango, dumpdataText }, { getFile }] = await Promise.all([
        import('../shared/store/django-import'),
        import('../shared/migrate/django'),
        import('../shared/aws/s3'),
      ]);
      const installation = await readInstallation();
      const fileOf = (a: { ticket: number; id: number; filename: string }) =>
        `helpdesk/attachments/${a.ticket}/${a.id}/${a.filename.replace(/[/\\]/g, '_')}`;
      let files = 0;
      for (const { attachments } of installation.tickets)
        for (const a of attachments) {
          const path = join(media, fileOf(a));
          mkdirSync(dirname(path), { recursive: true });
          writeFileSync(path, await getFile(a.object_key));
          files++;
        }
      // An object at a time: the whole as one string stops at V8's longest string, some 512 MB.
      await pipeline(Readable.from(dumpdataText(toDjango({ ...installation, fileOf }))), createWriteStream(out));
      const counts = {
        users: installation.users.length,
        queues: installation.queues.length,
        tickets: installation.tickets.length,
        followups: installation.tickets.reduce((n, t) => n + t.followups.length, 0),
        files,
      };
      ctx.out(
        ctx.json
          ? JSON.stringify(counts)
          : `Exported ${counts.tickets} tickets, ${counts.followups} followups, ${counts.users} users, ` +
              `${counts.queues} queues and ${files} files to ${out} and ${media}.`,
      );
    };
  },
});
