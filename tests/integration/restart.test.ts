/**
 * A restart of `npm start` on its data directory: the stream is read on from where the stopped runtime had applied it
 * (infra/local/stream-positions.ts), and mail waiting for an attempt is sent (infra/local/mail.ts, `mail-queue.json`).
 * Before, a restart read the stream from its oldest record and stamped each record with a new time, so the mail and
 * the change events keyed on it were made again (measured: 250 mails and 308 events again after 300 creates).
 * Each runtime's table is on the run's shared engines; the data directory holds the positions and the mailbox.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { clientFor, unique, type Json } from './client';
import { mailsTo } from './mail-helpers';
import { onSharedEngines } from './shared-engines';
import { STREAM_POSITIONS_FILE } from '../../infra/local/stream-positions';
import { spawnApiRuntime, type SpawnedRuntime } from './spawn-runtime';

/** A loopback port nothing listens on (taken, then let go). */
const closedPort = await new Promise<number>((done) => {
  const server = createServer().listen(0, '127.0.0.1', () => {
    const { port } = server.address() as { port: number };
    server.close(() => done(port));
  });
});

interface Runtimes {
  /** A runtime on `env` (stopped after the test, if it is not before). */
  start(env: Record<string, string>): Promise<SpawnedRuntime>;
  stop(runtime: SpawnedRuntime): Promise<void>;
}

/** Runs `body` with a data directory of its own, removed after, and stops the runtimes it started. */
async function withDataDir(body: (dataDir: string, runtimes: Runtimes) => Promise<void>): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'helpdesk-restart-'));
  const started = new Set<SpawnedRuntime>();
  const runtimes: Runtimes = {
    async start(env) {
      const runtime = await spawnApiRuntime(env);
      started.add(runtime);
      return runtime;
    },
    async stop(runtime) {
      started.delete(runtime);
      await runtime.stop();
    },
  };
  try {
    await body(dataDir, runtimes);
  } finally {
    await Promise.all([...started].map((runtime) => runtime.stop()));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A ticket created through `api` for a new submitter, once its mail is in `mailbox`. */
async function mailedTicket(api: ReturnType<typeof clientFor>, mailbox: string, prefix: string): Promise<Json> {
  const ticket = (await api.createTicket({ submitter_email: `${unique(prefix)}@example.com` })).body;
  await mailsTo(mailbox, ticket.submitter_email, 1);
  return ticket;
}

const emlIn = (mailbox: string) => readdirSync(mailbox).filter((f) => f.endsWith('.eml'));

describe('a restart on a data directory', () => {
  it('reads the stream on from where it stopped: no mail and no change event is made twice', { timeout: 120_000 }, () =>
    withDataDir(async (dataDir, runtimes) => {
      const env = { ...onSharedEngines(), HELPDESK_DATA_DIR: dataDir };
      const mailbox = join(dataDir, 'mailbox');
      const events = async (api: ReturnType<typeof clientFor>) =>
        (await api.call('GET', '/api/events/?limit=1000')).body.results as Json[];

      const first = await runtimes.start(env);
      const before = clientFor(first.url);
      const a = await mailedTicket(before, mailbox, 'a');
      await expect.poll(async () => (await events(before)).length, { timeout: 15_000 }).toBe(2);
      await runtimes.stop(first);

      const after = clientFor((await runtimes.start(env)).url);
      // The second ticket's records come after the first's: once its mail is out, the first's were read if ever.
      await mailedTicket(after, mailbox, 'b');
      await expect.poll(async () => (await events(after)).length, { timeout: 15_000 }).toBe(4);

      expect(emlIn(mailbox)).toHaveLength(2);
      const logged = (await after.call('GET', `/api/tickets/${a.id}/emails/`)).body;
      expect(logged.results.map((m: Json) => m.status)).toEqual(['sent']);
      const ids = (await events(after)).map((e) => e.id as string);
      expect(new Set(ids).size).toBe(4);
    }),
  );

  it(
    'reads on from the newest record when a kept position is past it (a database older than the positions file)',
    { timeout: 120_000 },
    () =>
      withDataDir(async (dataDir, runtimes) => {
        const env = { ...onSharedEngines(), HELPDESK_DATA_DIR: dataDir };
        const mailbox = join(dataDir, 'mailbox');
        const first = await runtimes.start(env);
        const a = await mailedTicket(clientFor(first.url), mailbox, 'a');
        await runtimes.stop(first);
        // As if the database had been put back from a copy made before its last records: each position 1,000 ahead.
        const file = join(dataDir, STREAM_POSITIONS_FILE);
        const kept = JSON.parse(readFileSync(file, 'utf8')) as { shards: Record<string, { after: string }> };
        for (const position of Object.values(kept.shards))
          position.after = String(BigInt(position.after) + 1000n).padStart(position.after.length, '0');
        writeFileSync(file, JSON.stringify(kept));

        // Before, DynamoDB Local answered every read after the position with nothing, and the poller waited for ever.
        const after = clientFor((await runtimes.start(env)).url);
        const b = await mailedTicket(after, mailbox, 'b');
        const newest = await after.call('GET', '/api/tickets/?page_size=1&ordering=-id&status=1');
        expect(newest.body.results[0].id).toBe(b.id);
        // What the shard held was applied before: its mail is not sent again.
        expect(await mailsTo(mailbox, a.submitter_email as string, 1)).toHaveLength(1);
        expect(emlIn(mailbox)).toHaveLength(2);
      }),
  );

  it('sends the mail that was waiting for its next attempt when the runtime stopped', { timeout: 120_000 }, () =>
    withDataDir(async (dataDir, runtimes) => {
      const engines = onSharedEngines();
      const mailbox = join(dataDir, 'mailbox');
      // The first attempt fails (nothing listens), the next is due 5 s later: after the stop.
      const first = await runtimes.start({
        ...engines,
        HELPDESK_DATA_DIR: dataDir,
        HELPDESK_SMTP_URL: `smtp://127.0.0.1:${closedPort}`,
        HELPDESK_MAIL_RETRY_DELAYS: '5',
      });
      const api = clientFor(first.url);
      const to = `${unique('waiting')}@example.com`;
      const ticket = (await api.createTicket({ submitter_email: to })).body;
      const log = async (base: ReturnType<typeof clientFor>) =>
        (await base.call('GET', `/api/tickets/${ticket.id}/emails/`)).body.results as Json[];
      await expect
        .poll(async () => (await log(api)).map((m) => [m.status, m.attempts]), { timeout: 30_000 })
        .toEqual([['queued', 1]]);
      await runtimes.stop(first);

      // Back with the mailbox (the data directory's default): the waiting mail goes there, once.
      const second = await runtimes.start({ ...engines, HELPDESK_DATA_DIR: dataDir });
      const [mail] = await mailsTo(mailbox, to, 1);
      expect(mail!.subject).toContain(ticket.title);
      const restarted = clientFor(second.url);
      await expect
        .poll(async () => (await log(restarted)).map((m) => [m.status, m.attempts]), { timeout: 15_000 })
        .toEqual([['sent', 2]]);
      expect(emlIn(mailbox)).toHaveLength(1);
    }),
  );

  it(
    'makes queue 1 on the first start only: deleted, it stays so, and no queue is given its id',
    { timeout: 120_000 },
    () =>
      withDataDir(async (dataDir, runtimes) => {
        const env = { ...onSharedEngines(), HELPDESK_DATA_DIR: dataDir };
        const queueIds = async (api: ReturnType<typeof clientFor>) =>
          ((await api.call('GET', '/api/queues/?page_size=100')).body.results as Json[]).map((q) => q.id);
        const newQueue = async (api: ReturnType<typeof clientFor>) => {
          const slug = unique('q');
          const reply = await api.call('POST', '/api/queues/', { json: { title: slug, slug } });
          expect(reply.status).toBe(201);
          return reply.body.id as number;
        };

        const first = await runtimes.start(env);
        const before = clientFor(first.url);
        expect(await queueIds(before)).toEqual([1]);
        expect((await before.call('DELETE', '/api/queues/1/')).status).toBe(204);
        // A staff member kept to queue 1 would see whatever queue took its id.
        expect(await newQueue(before)).toBe(2);
        await runtimes.stop(first);

        const after = clientFor((await runtimes.start(env)).url);
        expect(await queueIds(after)).toEqual([2]);
        expect(await newQueue(after)).toBe(3);
      }),
  );
});
