/**
 * The worker thread that owns the local search engine (PGlite: PostgreSQL in WebAssembly), so that
 * its work never runs on the request loop (pglite.ts is the other side). One connection; messages
 * are handled one at a time, in order, as PGlite needs.
 *
 * Plain JavaScript: a worker thread does not inherit a TypeScript loader everywhere it runs.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';

const { dataDir, schema } = workerData;
const db = new PGlite({ ...(dataDir === 'memory' ? {} : { dataDir }), extensions: { unaccent, pg_trgm } });
const ready = (async () => {
  await db.waitReady;
  for (const statement of schema) await db.exec(statement);
})();

/** Transactions between two checkpoints: about 100 MB of WAL at batches of 500 tickets. */
const CHECKPOINT_EVERY = 50;
let transactions = 0;

const run = async ({ kind, statements }) => {
  await ready;
  if (kind === 'ready') return [];
  if (kind === 'close') {
    await db.close();
    return [];
  }
  if (kind === 'query') return (await db.query(statements[0].sql, statements[0].values)).rows;
  await db.transaction(async (tx) => {
    for (const { sql, values } of statements) await tx.query(sql, values);
  });
  // Single-user PostgreSQL has no checkpointer: without a checkpoint now and then its WAL is never recycled (2.9 GB of
  // it after 150,000 tickets indexed, in memory when the engine is).
  if (++transactions % CHECKPOINT_EVERY === 0) await db.exec('CHECKPOINT');
  return [];
};

let queue = Promise.resolve();
parentPort.on('message', (message) => {
  queue = queue.then(() =>
    run(message).then(
      (rows) => parentPort.postMessage({ id: message.id, rows }),
      (error) =>
        parentPort.postMessage({ id: message.id, error: error instanceof Error ? error.message : String(error) }),
    ),
  );
});
