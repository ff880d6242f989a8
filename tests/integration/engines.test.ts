/**
 * The embedded engines answer this machine only (infra/local/engines.ts). DynamoDB Local listens on
 * every interface and checks no credentials; under the loopback-only Java policy a connection from
 * another address is closed unanswered, while the runtime's own, on loopback, are served.
 *
 * The engines checked are the run's shared pair, which global-setup.ts starts with `startEngines`
 * as every runtime does (a second DynamoDB Local here would cost seconds and prove nothing more),
 * except for the on-disk store, which they do not use: a pair of its own, started twice.
 */
import {
  CreateTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, inject, it } from 'vitest';
import { loopbackOnlyJavaOptions, startEngines } from '../../infra/local/engines';
import { canCheckpointWal, checkpointWal, makeWalDatabase, SHARED_DATABASE_FILE } from '../../infra/local/sqlite-wal';

/** An address of this machine that is not loopback, if it has one. */
const outside = Object.values(networkInterfaces())
  .flat()
  .find((i) => i && !i.internal && i.family === 'IPv4')?.address;

const engines = inject('engines');

const port = (endpoint: string) => new URL(endpoint).port;

describe('DynamoDB Local', () => {
  it('answers on loopback', async () => {
    expect(await (await fetch(engines.dynamoEndpoint)).text()).toContain('com.amazonaws.dynamodb');
  });

  it.skipIf(!outside)("closes a connection from this machine's other address unanswered", async () => {
    await expect(
      fetch(`http://${outside}:${port(engines.dynamoEndpoint)}/`, { signal: AbortSignal.timeout(5000) }),
    ).rejects.toThrow();
  });

  // Linux: the JVM's environment and state in /proc (the JVM found by its port, as `ps` shows its arguments).
  const jvm = () =>
    execFileSync('pgrep', ['-f', `DynamoDBLocal\\.jar.* -port ${port(engines.dynamoEndpoint)}( |$)`], {
      encoding: 'utf8',
    }).trim();
  /** A process's group (the fifth field of /proc/<pid>/stat, after the command in parentheses). */
  const processGroup = (pid: string | number) =>
    Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[2]);

  it.skipIf(process.platform !== 'linux')('runs with its telemetry to AWS off', () => {
    const environment = readFileSync(`/proc/${jvm()}/environ`, 'utf8').split('\0');
    expect(environment).toContain('DDB_LOCAL_TELEMETRY=0');
  });

  // A terminal's Ctrl-C signals its whole foreground group: the runtime, not the JVM under it, which it stops last.
  it.skipIf(process.platform !== 'linux')('runs in a process group of its own', () => {
    const pid = Number(jvm());
    expect(processGroup(pid)).toBe(pid);
    expect(processGroup(pid)).not.toBe(processGroup(process.pid));
  });
});

describe('s3rver', () => {
  it.skipIf(!outside)('listens on loopback only', async () => {
    await expect(
      fetch(`http://${outside}:${port(engines.s3Endpoint)}/`, { signal: AbortSignal.timeout(5000) }),
    ).rejects.toThrow();
  });
});

describe('the Java options', () => {
  it(
    'turn the policy on where Java has a security manager (17 to 23), and copy ' + 'a policy whose path has a space',
    () => {
      expect(loopbackOnlyJavaOptions(17)).toMatch(
        /^-Djava\.security\.manager -Djava\.security\.policy==\S+loopback-only\.policy$/,
      );
      expect(loopbackOnlyJavaOptions(23)).toBeDefined();
      expect(loopbackOnlyJavaOptions(24)).toBeUndefined();
      const policy = new URL('../../infra/local/loopback-only.policy', import.meta.url).pathname;
      const spacedDir = mkdtempSync(join(tmpdir(), 'with space '));
      const spaced = join(spacedDir, 'loopback-only.policy');
      copyFileSync(policy, spaced);
      const copied = /policy==(\S+)$/.exec(loopbackOnlyJavaOptions(17, spaced)!)![1]!;
      expect(copied).not.toBe(spaced);
      expect(readFileSync(copied, 'utf8')).toBe(readFileSync(policy, 'utf8'));
      rmSync(spacedDir, { recursive: true });
    },
  );
});

describe('the on-disk store', () => {
  /** The header's write and read versions: 2 and 2 in WAL mode, 1 and 1 with a rollback journal. */
  const journalVersions = (file: string) => [...readFileSync(file).subarray(18, 20)];

  /** The checkpointer's thread works on its own time: polled for. */
  const POLL = { timeout: 20_000, interval: 50 };

  it(
    'keeps DynamoDB Local in SQLite WAL mode: a commit goes to the log, the log is checkpointed and begun again ' +
      'while it runs, none is left after the stop, and the commit is there after a restart',
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'helpdesk-wal-'));
      const database = join(dataDir, 'dynamodb', SHARED_DATABASE_FILE);
      const TableName = 'wal';
      const Key = { pk: { S: 'ticket#1' } };
      const clientOf = (endpoint: string) =>
        new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'k', secretAccessKey: 's' } });
      const started: { stop(): Promise<void> }[] = [];
      try {
        const first = await startEngines(dataDir);
        started.push(first);
        const client = clientOf(first.dynamoEndpoint);
        await client.send(
          new CreateTableCommand({
            TableName,
            BillingMode: 'PAY_PER_REQUEST',
            AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
            KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
          }),
        );
        await waitUntilTableExists({ client, maxWaitTime: 30 }, { TableName });
        await client.send(new PutItemCommand({ TableName, Item: { ...Key, title: { S: 'kept' } } }));
        expect(journalVersions(database)).toEqual([2, 2]);
        // A rollback journal is gone after each commit; the write-ahead log stays, holding the commits.
        expect(statSync(`${database}-wal`).size).toBeGreaterThan(0);
        // DynamoDB Local never copies the log into the database file (it stays one page long): the runtime's
        // checkpointer does, and then DynamoDB Local's next write begins the log again from its start.
        await expect.poll(() => statSync(database).size, POLL).toBeGreaterThan(4096);
        let writes = 0;
        await expect
          .poll(async () => {
            await client.send(new PutItemCommand({ TableName, Item: { pk: { S: `ticket#${++writes + 1}` } } }));
            return (await first.walCheckpoints!()).restarts;
          }, POLL)
          .toBeGreaterThan(0);
        expect(await first.walCheckpoints!()).toMatchObject({ failures: 0 });
        client.destroy();
        await first.stop();
        // Its connection closes last, after the JVM's: that copies the whole log and removes it.
        expect(existsSync(`${database}-wal`)).toBe(false);

        const second = await startEngines(dataDir);
        started.push(second);
        const again = clientOf(second.dynamoEndpoint);
        const { Item } = await again.send(new GetItemCommand({ TableName, Key, ConsistentRead: true }));
        expect(Item?.title).toEqual({ S: 'kept' });
        expect(journalVersions(database)).toEqual([2, 2]);
        again.destroy();
      } finally {
        // A failed assertion must not leave a JVM behind (stop() is once only: a second call does nothing).
        await Promise.all(started.map((engines) => engines.stop()));
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
    120_000,
  );

  it.runIf(canCheckpointWal())(
    "closes the checkpointer's connection on close, stats asked beside it: the log goes with the last connection",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'helpdesk-wal-'));
      const path = join(dir, SHARED_DATABASE_FILE);
      try {
        makeWalDatabase(dir);
        const checkpointer = checkpointWal(path, 5);
        await checkpointer.stats(); // its connection is open
        await writeInOtherConnection(path, 'CREATE TABLE t (v); INSERT INTO t VALUES (1);');
        // Not the last connection: the log stays until the checkpointer's closes.
        expect(existsSync(`${path}-wal`)).toBe(true);
        const [, , closed] = await Promise.all([checkpointer.stats(), checkpointer.stats(), checkpointer.close()]);
        expect(closed).toMatchObject({ failures: 0 });
        expect(existsSync(`${path}-wal`)).toBe(false);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it('never overwrites a database that exists', () => {
    const dir = mkdtempSync(join(tmpdir(), 'helpdesk-wal-'));
    writeFileSync(join(dir, SHARED_DATABASE_FILE), 'an older database');
    expect(makeWalDatabase(dir)).toBe(false);
    expect(readFileSync(join(dir, SHARED_DATABASE_FILE), 'utf8')).toBe('an older database');
    rmSync(dir, { recursive: true });
  });
});

/**
 * `sql` run by a connection of its own, in a worker: node:sqlite warns that it is experimental on its first use in a
 * thread, and a passing run prints nothing (the checkpointer's worker is started so too).
 */
function writeInOtherConnection(path: string, sql: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const code = `const db = new (require('node:sqlite').DatabaseSync)(${JSON.stringify(path)});
      db.exec(${JSON.stringify(sql)}); db.close();`;
    const worker = new Worker(code, { eval: true, execArgv: ['--disable-warning=ExperimentalWarning'] });
    worker.once('error', reject);
    worker.once('exit', (exit) => (exit === 0 ? resolve() : reject(new Error(`the writer exited ${exit}`))));
  });
}
