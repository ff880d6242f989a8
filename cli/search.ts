/**
 * The search command: reindex. Rebuilds the search index from the table, with a progress bar on
 * the terminal; stopped, it goes on from where it was at its next run (`--restart`: from scratch).
 * Locally the index is the embedded engine's files under the data directory, which only one
 * process may open: the local server must be stopped. On AWS (--table), the Aurora cluster named by
 * HELPDESK_SEARCH=aurora, HELPDESK_SEARCH_CLUSTER_ARN and HELPDESK_SEARCH_SECRET_ARN (stack outputs
 * SearchClusterArn and SearchSecretArn).
 */
import { join } from 'node:path';
import { command, Failure } from './command';
import { chooseTarget, localServerOn } from './target';
import { progressBar } from './terminal';

const bar = (done: number, total: number) => progressBar(done, total, 'tickets');

/** Refuses a data directory the local server runs on: its worker holds the index's files. */
async function refuseRunningServer(dataDir: string): Promise<void> {
  const pid = await localServerOn(dataDir);
  if (pid !== undefined)
    throw new Failure(
      `The local server (process ${pid}) holds the search index of ${dataDir}: stop it, run reindex, and start ` +
        `it again.`,
    );
}

export const reindex = command({
  name: 'reindex',
  summary: 'rebuild the search index from the table (resumable)',
  description:
    'Empties the search index and indexes every ticket again, in id order, a page of the table at a time, ' +
    'showing a progress bar. Interrupted, the next run goes on from where it stopped (--restart starts over). ' +
    'Locally, stop `npm start` first (the index is its files). On AWS, give the Aurora cluster in ' +
    'HELPDESK_SEARCH=aurora, HELPDESK_SEARCH_CLUSTER_ARN and HELPDESK_SEARCH_SECRET_ARN (the stack outputs ' +
    'SearchClusterArn and SearchSecretArn).',
  options: { restart: { type: 'boolean', help: 'start over, even if an earlier run was interrupted' } },
  examples: [
    'npm run helpdesk -- reindex',
    'HELPDESK_SEARCH=aurora HELPDESK_SEARCH_CLUSTER_ARN=... HELPDESK_SEARCH_SECRET_ARN=... npm run helpdesk -- ' +
      'reindex --table helpdesk-prod',
  ],
  async prepare(ctx) {
    const target = chooseTarget(ctx.options);
    if (target.kind === 'local') {
      await refuseRunningServer(target.dataDir);
      process.env.HELPDESK_SEARCH = 'pglite';
      process.env.HELPDESK_SEARCH_DIR = join(target.dataDir, 'search');
    } else if (process.env.HELPDESK_SEARCH !== 'aurora') {
      throw new Failure(
        'Set HELPDESK_SEARCH=aurora, HELPDESK_SEARCH_CLUSTER_ARN and HELPDESK_SEARCH_SECRET_ARN (the stack ' +
          'outputs) to rebuild the index on AWS.',
      );
    }
    return async () => {
      const [{ rebuildSearchIndex }, { closeSearchEngine }] = await Promise.all([
        import('../shared/search/rebuild'),
        import('../shared/search/engine'),
      ]);
      const tty = process.stderr.isTTY && !ctx.json;
      try {
        const done = await rebuildSearchIndex({
          restart: ctx.options.restart === true,
          onProgress: (p) => {
            if (tty) process.stderr.write(`\r${bar(p.tickets, p.total)}`);
            else if (!ctx.json) process.stderr.write(`${bar(p.tickets, p.total)}\n`);
          },
        });
        if (tty) process.stderr.write('\n');
        const resumed = done.resumedFrom ? ` (went on from ticket ${done.resumedFrom})` : '';
        const text = `Indexed ${done.tickets} tickets${resumed}.`;
        ctx.out(ctx.json ? JSON.stringify(done) : text);
      } finally {
        await closeSearchEngine();
      }
    };
  },
});
