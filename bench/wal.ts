/**
 * `npx tsx bench/wal.ts [--rounds N] [--creates N]`: creates at 8 in flight, round after round, on a runtime that
 * keeps its data on disk as `npm start` does, with DynamoDB Local's write-ahead log checkpointed (as the runtime
 * does: infra/local/sqlite-wal.ts) and without, one after the other in the same run. Per round: creates a second,
 * and the sizes of the log and of the database file. Writes the "Write-ahead log" section of docs/benchmarks.md.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startEngines } from '../infra/local/engines';
import { startLocalRuntime } from '../infra/local/runtime';
import { SHARED_DATABASE_FILE, type CheckpointStats } from '../infra/local/sqlite-wal';
import { WAL_END, WAL_START, withSection } from './report';
import { BENCH_ADMIN_AUTH, BENCH_ADMIN_ENV } from './admin';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '8' },
    creates: { type: 'string', default: '600' },
    // One side of the comparison, measured in a process of its own (the store's clients are made once a process).
    arm: { type: 'string' },
  },
});
const ROUNDS = Number(args.rounds);
const CREATES = Number(args.creates);
const IN_FLIGHT = 8;
const REPORT = resolve(import.meta.dirname, '../docs/benchmarks.md');
const log = (line: string) => process.stderr.write(`${line}\n`);

Object.assign(process.env, {
  ...BENCH_ADMIN_ENV,
  HELPDESK_ACTIVATE_API_ENDPOINT: 'True',
  // As the burst bench: mail's own calls would be most of a create's otherwise (bench/mail.ts measures them).
  HELPDESK_MAIL_TRANSPORT: process.env.HELPDESK_MAIL_TRANSPORT ?? 'off',
  POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'WARN',
});

interface Round {
  perSecond: number;
  logMb: number;
  databaseMb: number;
}
interface Arm {
  checkpointed: boolean;
  rounds: Round[];
  checkpoints?: CheckpointStats;
  /** What the data directory's DynamoDB files took after the stop. */
  afterStopMb: number;
  load: number;
}

const megabytes = (path: string) => {
  try {
    return Math.round((statSync(path).size / 1048576) * 10) / 10;
  } catch {
    return 0;
  }
};

/** One arm in a data directory of its own, removed after it, whether the arm ends or fails. */
async function measure(checkpointed: boolean): Promise<Arm> {
  const dataDir = mkdtempSync(join(tmpdir(), 'helpdesk-bench-wal-'));
  try {
    return await measureIn(dataDir, checkpointed);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function measureIn(dataDir: string, checkpointed: boolean): Promise<Arm> {
  const database = join(dataDir, 'dynamodb', SHARED_DATABASE_FILE);
  const engines = await startEngines(dataDir, { checkpointWal: checkpointed });
  const runtime = await startLocalRuntime({ dataDir, port: 0, engines }).catch(async (error: unknown) => {
    await engines.stop();
    throw error;
  });
  const load = Math.round(loadavg()[0]! * 10) / 10;
  let sent = 0;
  const create = async () => {
    const n = sent++;
    const response = await fetch(`${runtime.url}/api/tickets/`, {
      method: 'POST',
      headers: { authorization: BENCH_ADMIN_AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ queue: 1, title: `wal ${n}`, description: 'x', submitter_email: 'wal@example.com' }),
    });
    if (response.status !== 201) throw new Error(`create ${n}: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  };
  const rounds: Round[] = [];
  let checkpoints: CheckpointStats | undefined;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      let left = CREATES;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (left-- > 0) await create();
        }),
      );
      const perSecond = Math.round(CREATES / ((performance.now() - started) / 1000));
      rounds.push({ perSecond, logMb: megabytes(`${database}-wal`), databaseMb: megabytes(database) });
      log(`wal (${checkpointed ? 'checkpointed' : 'not checkpointed'}): ${JSON.stringify(rounds.at(-1))}`);
    }
    checkpoints = await engines.walCheckpoints?.();
  } finally {
    await runtime.stop();
    await engines.stop();
  }
  const files = [database, `${database}-wal`, `${database}-shm`];
  const afterStopMb = Math.round(files.reduce((sum, file) => sum + megabytes(file), 0) * 10) / 10;
  return { checkpointed, rounds, ...(checkpoints ? { checkpoints } : {}), afterStopMb, load };
}

function render(arms: Arm[], date: string): string {
  const name = (arm: Arm) => (arm.checkpointed ? 'checkpointed (as the runtime runs)' : 'not checkpointed');
  const rows = arms.flatMap((arm) =>
    arm.rounds.map(
      (r, i) => `| ${name(arm)} | ${i + 1} | ${(i + 1) * CREATES} | ${r.perSecond} | ${r.logMb} | ${r.databaseMb} |`,
    ),
  );
  const checkpointed = arms.find((arm) => arm.checkpoints)?.checkpoints;
  return [
    WAL_START,
    "## DynamoDB Local's write-ahead log on disk",
    '',
    `Measured by \`npx tsx bench/wal.ts\` on ${date.slice(0, 10)}: ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}. ` +
      `JSON creates at ${IN_FLIGHT} in flight over HTTP, in rounds of ${CREATES}, on a runtime started fresh on ` +
      "disk as `npm start` keeps its data (mail off), with the write-ahead log of DynamoDB Local's database " +
      'checkpointed every 250 ms by the runtime and without, one after the other in the same run ' +
      `(load average as each began: ${arms.map((arm) => `${arm.load} ${name(arm)}`).join(', ')}). ` +
      "DynamoDB Local's own checkpoints get through only now and then, depending on the calls it takes: with the " +
      "runtime's whole mix they do (the database file grows either way), with a create's four calls alone they " +
      'never did (infra/local/sqlite-wal.ts, docs/local.md "On disk").',
    '',
    '| Log | Round | Creates so far | Creates a second | Log MB | Database file MB |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
    `After the stop, the data directory's database took ${arms
      .map((arm) => `${arm.afterStopMb} MB ${name(arm)}`)
      .join(' and ')}: the checkpointer's connection is the last to close, which copies and removes the log.` +
      (checkpointed
        ? ` The checkpointer ran ${checkpointed.checkpoints} checkpoints (${checkpointed.busy} busy, ` +
          `${checkpointed.failures} failed); the log began again from its start ${checkpointed.restarts} times.`
        : ''),
    WAL_END,
  ].join('\n');
}

if (args.arm) {
  process.stdout.write(JSON.stringify(await measure(args.arm === 'checkpointed')));
} else {
  // The order alternates with the minute, so that neither side always runs on the warmer machine.
  const order = new Date().getMinutes() % 2 ? ['checkpointed', 'not'] : ['not', 'checkpointed'];
  const arms: Arm[] = [];
  for (const arm of order) {
    const child = spawnSync(
      process.execPath,
      [
        ...process.execArgv,
        import.meta.filename,
        '--arm',
        arm,
        '--rounds',
        String(ROUNDS),
        '--creates',
        String(CREATES),
      ],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 20 },
    );
    if (child.status !== 0) throw new Error(`bench/wal.ts --arm ${arm} exited ${child.status}`);
    arms.push(JSON.parse(child.stdout) as Arm);
  }
  arms.sort((a, b) => Number(b.checkpointed) - Number(a.checkpointed));
  const section = render(arms, new Date().toISOString());
  writeFileSync(REPORT, withSection(readFileSync(REPORT, 'utf8'), WAL_START, WAL_END, section));
  log(section);
  log('wrote the Write-ahead log section of docs/benchmarks.md');
}
