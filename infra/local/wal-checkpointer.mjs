/**
 * The thread that checkpoints DynamoDB Local's write-ahead log (sqlite-wal.ts `checkpointWal` is the other side):
 * a connection of its own to the database file, which runs SQLite's PASSIVE checkpoint every `everyMs`. A checkpoint
 * syncs the log and the database file, so it runs here, never on the request loop.
 *
 * PASSIVE only: it copies what no reader still needs and never takes the writer's lock, so DynamoDB Local (which
 * sets no busy timeout: a lock it cannot take at once fails its call, InternalFailure) never waits for it. FULL,
 * RESTART and TRUNCATE hold the writer's lock while they wait, and failed DynamoDB Local's calls when tried.
 *
 * Plain JavaScript: a worker thread does not inherit a TypeScript loader everywhere it runs.
 */
import { setInterval, clearInterval } from 'node:timers';
import { parentPort, workerData } from 'node:worker_threads';
import { DatabaseSync } from 'node:sqlite';

const { path, everyMs } = workerData;
const db = new DatabaseSync(path);
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
/** What the checkpoints did: `frames`, the log's length at the last one; `restarts`, how often it was found shorter
 * than at the one before (DynamoDB Local's next write began the log again from its start, once it was all copied). */
const stats = { checkpoints: 0, busy: 0, failures: 0, frames: 0, restarts: 0, lastError: undefined };

const timer = setInterval(() => {
  try {
    const { busy, log } = checkpoint.get();
    stats.checkpoints++;
    if (busy) stats.busy++;
    if (log < stats.frames) stats.restarts++;
    stats.frames = Math.max(0, log);
  } catch (error) {
    // The next tick tries again: a lock held at this instant (DynamoDB Local's own checkpoint attempt) is no fault.
    stats.failures++;
    stats.lastError = String(error);
  }
}, everyMs);

parentPort.on('message', (message) => {
  if (message === 'stats') return parentPort.postMessage({ stats });
  if (message !== 'close') return;
  clearInterval(timer);
  // When DynamoDB Local has exited, this is the database's last connection: closing it checkpoints the whole log
  // and removes it, so the next start does not read it back.
  db.close();
  parentPort.postMessage({ closed: true, stats });
});
