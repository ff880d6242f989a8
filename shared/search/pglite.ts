/**
 * The local search engine: PGlite (PostgreSQL 18 in WebAssembly) in a worker thread of its own
 * (pglite-worker.mjs), persisted under the data directory (or in memory). A long search runs there,
 * never on the loop that serves the other routes. Its calls are serialised by the worker.
 */
import { Worker } from 'node:worker_threads';
import { bindNamed, type Row, type SearchDriver, type Statement } from './driver';
import { SCHEMA } from './sql';

interface Reply {
  id: number;
  rows?: Row[];
  error?: string;
}

/** A statement as PGlite takes it: `$1`… and the values in that order. */
function positional({ sql, params = {} }: Statement): { sql: string; values: unknown[] } {
  const bound = bindNamed(sql, params, (_, index) => `$${index + 1}`);
  return { sql: bound.sql, values: bound.names.map((name) => params[name]) };
}

export function startPglite(dataDir: string): SearchDriver & { ready: Promise<void> } {
  const worker = new Worker(new URL('./pglite-worker.mjs', import.meta.url), {
    workerData: { dataDir, schema: SCHEMA },
  });
  // The worker never keeps the process alive on its own: the runtime closes it on stop.
  worker.unref();
  const pending = new Map<number, { resolve: (rows: Row[]) => void; reject: (error: Error) => void }>();
  let next = 0;
  let failed: Error | undefined;
  worker.on('message', ({ id, rows, error }: Reply) => {
    const call = pending.get(id);
    pending.delete(id);
    if (error !== undefined) call?.reject(new Error(`search engine: ${error}`));
    else call?.resolve(rows ?? []);
  });
  worker.on('error', (error) => {
    failed = error;
    for (const call of pending.values()) call.reject(error);
    pending.clear();
  });
  const send = (kind: string, statements: Statement[] = []) =>
    failed
      ? Promise.reject(failed)
      : new Promise<Row[]>((resolve, reject) => {
          const id = next++;
          pending.set(id, { resolve, reject });
          worker.postMessage({ id, kind, statements: statements.map(positional) });
        });
  return {
    ready: send('ready').then(() => undefined),
    query: (statement) => send('query', [statement]),
    transaction: async (statements) => void (await send('transaction', [...statements])),
    async close() {
      await send('close').catch(() => undefined);
      await worker.terminate();
    },
  };
}
