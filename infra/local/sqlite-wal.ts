/**
 * DynamoDB Local keeps an on-disk table in SQLite and leaves the journal at SQLite's default, a
 * rollback journal: every commit writes and syncs the journal, then the database, then deletes the
 * journal. In write-ahead-log mode a commit appends to the log and syncs it once, and is as durable
 * (SQLite's `synchronous` stays FULL, sqlite4java's default: checked with `PRAGMA synchronous`). A
 * create is four commits, so on `npm start`'s store this decides how many creates a second the
 * machine takes (docs/local.md, "On disk").
 *
 * DynamoDB Local has no setting for it, but the mode is a property of the database file (its
 * header's read and write versions, 2 for WAL), which SQLite honours on every open. So the runtime
 * makes the database file itself, empty and in WAL mode, before DynamoDB Local first opens it:
 * the one page SQLite writes for `PRAGMA journal_mode=WAL` on a new database, at today's default
 * page size (DynamoDB Local's SQLite, 3.8.7, would pick 1,024 bytes; it reads either)
 * (https://www.sqlite.org/fileformat2.html, "The Database Header" and "B-tree Pages").
 *
 * Only a file that does not exist is made. One that does is left as it is: changing the mode of an
 * existing database is SQLite's own work (`PRAGMA journal_mode`, which may have to roll back a hot
 * journal first), which this runtime does not run.
 *
 * But DynamoDB Local checkpoints the log only now and then: SQLite's automatic checkpoint, which the committing
 * connection runs, gets through with some of its calls and never with others (likely a statement of its connection
 * still open at the commit: a connection in a transaction cannot checkpoint). With a create's four calls alone,
 * replayed at 8 in flight (2026-11-30), it never did: the database file stayed one page long, the log reached
 * 728 MB after about 5,000 creates, and the rate fell from 77 to 52 a second as it grew (SQLite 3.8.7 looks a page
 * up through the whole log's index). With the runtime's whole mix it does (bench/wal.ts: about 90 MB of log).
 * So the runtime checkpoints the log from a connection of its own as well (`checkpointWal`), whatever the calls:
 * the same replay then held 66-87 a second to the end with at most 65 MB of log, and a stop leaves no log behind.
 */
import { closeSync, existsSync, fsyncSync, linkSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

/** The file DynamoDB Local uses in its `-dbPath` with `-sharedDb`. */
export const SHARED_DATABASE_FILE = 'shared-local-instance.db';

/** SQLite's default page size since 3.12 (and the file system's). */
const PAGE_SIZE = 4096;
/** The version of the SQLite that last wrote the file (offset 96): DynamoDB Local's, in its sqlite4java. */
const SQLITE_VERSION_NUMBER = 3_008_007;

/** An empty database, one page long, in WAL mode. */
export function emptyWalDatabase(): Buffer {
  const page = Buffer.alloc(PAGE_SIZE);
  page.write('SQLite format 3\0', 0, 'latin1');
  page.writeUInt16BE(PAGE_SIZE, 16);
  page[18] = 2; // write version: WAL
  page[19] = 2; // read version: WAL
  page[20] = 0; // bytes reserved at the end of each page
  page[21] = 64; // maximum embedded payload fraction (must be 64)
  page[22] = 32; // minimum embedded payload fraction (must be 32)
  page[23] = 32; // leaf payload fraction (must be 32)
  page.writeUInt32BE(1, 24); // file change counter
  page.writeUInt32BE(1, 28); // the database's size in pages, valid while offset 92 equals the counter
  page.writeUInt32BE(1, 92); // version-valid-for: the change counter it was written at
  page.writeUInt32BE(SQLITE_VERSION_NUMBER, 96);
  // Page 1's b-tree header, after the database header: an empty leaf of the schema table.
  page[100] = 0x0d; // a table b-tree leaf
  page.writeUInt16BE(0, 101); // first freeblock: none
  page.writeUInt16BE(0, 103); // cells: none
  page.writeUInt16BE(PAGE_SIZE, 105); // the cell content area starts at the page's end
  page[107] = 0; // fragmented free bytes
  return page;
}

/**
 * Makes `dir`'s shared database, empty and in WAL mode, unless it exists. True when it made it.
 * Written whole to a file of its own, synced, then linked into place, which fails on a name that
 * exists: the database never exists half-written (a crash mid-write leaves only the temporary file),
 * and one that appeared meanwhile is never overwritten.
 */
export function makeWalDatabase(dir: string): boolean {
  const path = join(dir, SHARED_DATABASE_FILE);
  if (existsSync(path)) return false;
  const draft = `${path}.${process.pid}.new`;
  const fd = openSync(draft, 'w', 0o600);
  try {
    writeSync(fd, emptyWalDatabase());
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(draft, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(draft, { force: true });
  }
}

/**
 * Whether this Node can checkpoint the log: its built-in SQLite (`node:sqlite`, without a flag since Node 22.13;
 * `npm start` runs the Node the project pins). Without it the log is left to DynamoDB Local's own checkpoints.
 */
export const canCheckpointWal = (): boolean => isBuiltin('node:sqlite');

/** Whether the database file at `path` is in WAL mode (its header's read and write versions). */
export function isWalDatabase(path: string): boolean {
  if (!existsSync(path)) return false;
  const header = Buffer.alloc(20);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, header, 0, header.length, 0);
  } finally {
    closeSync(fd);
  }
  return header[18] === 2 && header[19] === 2;
}

/** How often the log is checkpointed: every 250 ms, the replay above kept its log under 65 MB (every 1 s, 510 MB). */
export const CHECKPOINT_MS = 250;

/** What the checkpoints did (wal-checkpointer.mjs). */
export interface CheckpointStats {
  checkpoints: number;
  busy: number;
  failures: number;
  /** The log's length in frames at the last checkpoint. */
  frames: number;
  /** How often the log was found begun again from its start. */
  restarts: number;
  lastError?: string;
}

export interface WalCheckpointer {
  stats(): Promise<CheckpointStats>;
  /** Stops checkpointing and closes the connection: after DynamoDB Local has exited, that removes the log. */
  close(): Promise<CheckpointStats>;
}

/** What the checkpointer's thread is asked, and where its replies come from (a Worker). */
export interface CheckpointerPort {
  on(event: 'message', listener: (reply: { stats: CheckpointStats }) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  postMessage(message: 'stats' | 'close'): void;
}

/**
 * Asks the checkpointer's thread, which answers each message in the order sent: each reply goes to the oldest
 * question waiting, so a `stats` asked while a `close` waits (or the other way round) never takes the other's reply.
 * Once the thread has failed, every question waiting and every later one fails with its error.
 */
export function checkpointerQuestions(
  port: CheckpointerPort,
): (message: 'stats' | 'close') => Promise<CheckpointStats> {
  let failed: Error | undefined;
  const waiting: { resolve(stats: CheckpointStats): void; reject(error: Error): void }[] = [];
  port.on('message', (reply) => waiting.shift()?.resolve(reply.stats));
  port.on('error', (error) => {
    failed = error;
    for (const question of waiting.splice(0)) question.reject(error);
    console.warn(`DynamoDB Local's write-ahead log is no longer checkpointed: ${error.message}`);
  });
  return (message) =>
    new Promise<CheckpointStats>((resolve, reject) => {
      if (failed) return reject(failed);
      waiting.push({ resolve, reject });
      port.postMessage(message);
    });
}

/** Checkpoints the WAL database at `path` every `everyMs`, in a worker thread, until closed. */
export function checkpointWal(path: string, everyMs = CHECKPOINT_MS): WalCheckpointer {
  const worker = new Worker(new URL('./wal-checkpointer.mjs', import.meta.url), {
    workerData: { path, everyMs },
    // node:sqlite warns that it is experimental on its first use: nothing for a user of `npm start` to act on.
    execArgv: ['--disable-warning=ExperimentalWarning'],
  });
  // The runtime closes it on stop; it never keeps the process alive on its own.
  worker.unref();
  const ask = checkpointerQuestions(worker);
  return {
    stats: () => ask('stats'),
    close: async () => {
      try {
        return await ask('close');
      } finally {
        await worker.terminate();
      }
    },
  };
}
