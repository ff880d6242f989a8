/**
 * `npx tsx bench/mail.ts [--creates N]`: the time from a ticket's commit to its mail captured in the
 * local mailbox, for a burst of creates sent at once (200 by default), p50 and p99. Starts its own
 * runtime in memory with a temporary mailbox; writes the "Mail out" section of docs/benchmarks.md
 * (bench/report.ts renderMailSection), which a full `npm run bench` keeps.
 */
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startLocalRuntime } from '../infra/local/runtime';
import { MAIL_END, MAIL_START, renderMailSection, withSection, type MailLatencyResult } from './report';
import { BENCH_ADMIN_AUTH, BENCH_ADMIN_ENV } from './admin';

const { values: args } = parseArgs({ options: { creates: { type: 'string', default: '200' } } });
const CREATES = Number(args.creates);
const REPORT = resolve(import.meta.dirname, '../docs/benchmarks.md');
const log = (line: string) => process.stderr.write(`${line}\n`);

const mailbox = await mkdtemp(join(tmpdir(), 'helpdesk-bench-mail-'));
Object.assign(process.env, {
  ...BENCH_ADMIN_ENV,
  HELPDESK_ACTIVATE_API_ENDPOINT: 'True',
  HELPDESK_MAILBOX_DIR: mailbox,
  POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'WARN',
});
const runtime = await startLocalRuntime({ dataDir: 'memory', port: 0 });
// The mail's DynamoDB requests, by the function that makes them (the consumer that queues it, the sender).
const { dynamo } = await import('../shared/aws/clients');
const { currentFunction } = await import('../infra/local/table-access');
const MAIL_FUNCTIONS = ['mail/queue', 'mail/send'];
const mailRequests = new Map<string, Map<string, number>>(MAIL_FUNCTIONS.map((f) => [f, new Map()]));
dynamo.intercept((call, next) => {
  const counts = mailRequests.get(currentFunction() ?? '');
  counts?.set(call.operation, (counts.get(call.operation) ?? 0) + 1);
  return next();
});

try {
  const run = `mailbench-${Date.now()}`;
  log(`mail: ${CREATES} creates at once, each mailing its submitter`);
  const replies = await Promise.all(
    Array.from({ length: CREATES }, async (_, i) => {
      const response = await fetch(`${runtime.url}/api/tickets/`, {
        method: 'POST',
        headers: { authorization: BENCH_ADMIN_AUTH, 'content-type': 'application/json' },
        body: JSON.stringify({
          queue: 1,
          title: `${run}-${i}`,
          description: 'Mail bench',
          submitter_email: `bench-${i}@example.com`,
        }),
      });
      return {
        status: response.status,
        body: (await response.json()) as { id: number; followup_set: { date: string }[] },
      };
    }),
  );
  const answered = Date.now();
  // A ticket's commit time is its opening followup's date (the ticket's `created`, which the wire shape leaves out).
  const created = new Map(
    replies.filter((r) => r.status === 201).map((r) => [r.body.id, Date.parse(r.body.followup_set[0]!.date)]),
  );
  if (created.size !== CREATES) throw new Error(`${CREATES - created.size} creates failed`);
  // Wait for one mail per ticket (each file named by time; the subject holds the ticket's tag).
  let files: string[] = [];
  for (;;) {
    files = (await readdir(mailbox)).filter((f) => f.endsWith('.eml'));
    if (files.length >= CREATES) break;
    if (Date.now() - answered > 300_000) throw new Error(`only ${files.length} of ${CREATES} mails after 5 minutes`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const latencies: number[] = [];
  let last = 0;
  for (const file of files) {
    const path = join(mailbox, file);
    const [raw, info] = await Promise.all([readFile(path, 'utf8'), stat(path)]);
    const ticket = Number(/^Subject: \[[^\]]*-(\d+)\]/m.exec(raw)?.[1]);
    const commit = created.get(ticket);
    if (commit === undefined) continue;
    latencies.push(info.mtimeMs - commit);
    last = Math.max(last, info.mtimeMs);
  }
  latencies.sort((a, b) => a - b);
  const at = (p: number) =>
    Math.round(latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0);
  const result: MailLatencyResult = {
    creates: CREATES,
    captured: latencies.length,
    p50: at(50),
    p99: at(99),
    max: Math.round(latencies.at(-1) ?? 0),
    drainedAfterMs: Math.round(last - answered),
    requestsPerMail: Object.fromEntries(
      [...mailRequests].map(([name, counts]) => [
        name,
        Object.fromEntries([...counts].map(([operation, n]) => [operation, Math.round((n / CREATES) * 100) / 100])),
      ]),
    ),
    load: Math.round(loadavg()[0]! * 10) / 10,
    cores: cpus().length,
  };
  log(JSON.stringify(result));
  writeFileSync(
    REPORT,
    withSection(
      readFileSync(REPORT, 'utf8'),
      MAIL_START,
      MAIL_END,
      renderMailSection(result, new Date().toISOString()),
    ),
  );
  log('wrote the "Mail out" section of docs/benchmarks.md');
} finally {
  await runtime.stop();
  await rm(mailbox, { recursive: true, force: true });
}
process.exit(0);
