/**
 * The operator CLI (`npm run helpdesk -- <command>`, cli/main.ts) run as a child process on a
 * temporary data directory: first on engines it starts itself, then while the local server runs on
 * the same directory (through `<dataDir>/endpoints.json`), checking over HTTP what it wrote. That
 * server uses the run's shared engines (a table of its own), so the file starts one DynamoDB Local,
 * the CLI's: the server's endpoints reach the CLI through endpoints.json all the same.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { spawnRuntime, type SpawnedRuntime } from './spawn-runtime';
import { onSharedEngines } from './shared-engines';
import { startReceiver } from './webhook-receiver';
import { runCli } from './table-cli';
import { emptyWalDatabase, SHARED_DATABASE_FILE } from '../../infra/local/sqlite-wal';

const COMMANDS = [
  'create-user',
  'set-password',
  'deactivate-user',
  'activate-user',
  'create-token',
  'list-tokens',
  'revoke-token',
  'create-queue',
  'update-queue',
  'unsuppress',
  'ses-event',
  'create-custom-field',
  'create-webhook',
  'ping-webhook',
  'disable-webhook',
  'list-users',
  'list-queues',
  'list-suppressions',
  'list-custom-fields',
  'list-webhooks',
  'tail-events',
  'import-django',
  'export-django',
];

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The server's AWS region: on the shared engines it names the server's database (shared-engines.ts),
 * which a user's CLI, on the one database of `npm start`'s engines, needs no name for.
 */
let serverRegion: string | undefined;

function cli(
  args: string[],
  options: { input?: string; dataDir?: string; env?: Record<string, string> } = {},
): Promise<Result> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HELPDESK_DATA_DIR: options.dataDir ?? 'unused-by-this-test',
    ...options.env,
  };
  if (serverRegion) env.AWS_REGION = serverRegion;
  delete env.TABLE_NAME;
  return runCli(args, env, options.input);
}

/** Resolves when `check` holds, or rejects when `settled` settles first or the time is up. */
async function until(check: () => boolean, settled: Promise<unknown>, ms = 30_000): Promise<void> {
  let done = false;
  void settled.finally(() => (done = true));
  const deadline = Date.now() + ms;
  while (!check()) {
    if (done || Date.now() > deadline) throw new Error('the condition never held');
    await new Promise((r) => setTimeout(r, 50));
  }
}

function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

let dataDir: string;
/** The first command: no server runs yet, so it starts the engines itself. */
let selfStarted: Promise<Result>;
/** Started while that command holds the directory: the server waits for it to finish. */
let starting: Promise<SpawnedRuntime> | undefined;
const ADMIN_PASSWORD = 'admin-cli-password';

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'helpdesk-cli-'));
  chmodSync(dataDir, 0o755); // as an earlier version left it: readable by anyone on the machine
  const ownerFile = join(dataDir, 'endpoints.json');
  selfStarted = cli(['create-queue', '--title', 'Billing', '--slug', 'billing', '--json'], { dataDir });
  await until(() => existsSync(ownerFile) && JSON.parse(readFileSync(ownerFile, 'utf8')).owner === 'cli', selfStarted);
  const engines = onSharedEngines();
  serverRegion = engines.AWS_REGION;
  starting = spawnRuntime({
    ...engines,
    HELPDESK_DATA_DIR: dataDir,
    HELPDESK_ADMIN_PASSWORD: ADMIN_PASSWORD,
    HELPDESK_ACTIVATE_API_ENDPOINT: 'True',
    HELPDESK_AUTHENTICATION_CLASSES: 'basic,token',
  });
  starting.catch(() => undefined); // reported by the tests that use it
});

afterAll(async () => {
  await (await starting?.catch(() => undefined))?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe.concurrent('command line', () => {
  it('--help lists every command and exits 0', async () => {
    const { code, stdout } = await cli(['--help']);
    expect(code).toBe(0);
    for (const command of COMMANDS) expect(stdout).toContain(command);
  });

  it.each(COMMANDS)('%s --help exits 0 with its usage', async (command) => {
    const { code, stdout } = await cli([command, '--help']);
    expect(code).toBe(0);
    expect(stdout).toContain(`Usage: helpdesk ${command}`);
  });

  it('an unknown command exits 2', async () => {
    const { code, stderr } = await cli(['drop-everything']);
    expect(code).toBe(2);
    expect(stderr).toContain('Unknown command "drop-everything"');
  });

  it('never takes a password as an argument, nor echoes it', { timeout: 60_000 }, async () => {
    const attempts = [
      ['create-user', 'bob', '--email', 'bob@example.com', '--password', 'top-secret-1'],
      ['create-user', 'bob', '--email', 'bob@example.com', '--password=top-secret-1'],
      ['set-password', 'bob', 'top-secret-1'],
    ];
    const results = await Promise.all(attempts.map((args) => cli(args, { input: 'from-stdin-pw\n' })));
    results.forEach(({ code, stdout, stderr }, i) => {
      expect(code, attempts[i]!.join(' ')).toBe(2);
      expect(stdout + stderr).not.toContain('top-secret-1');
    });
  });

  it('refuses a missing option and the "memory" data directory with exit 2', { timeout: 60_000 }, async () => {
    const [missing, memory] = await Promise.all([
      cli(['create-queue', '--title', 'No slug']),
      cli(['list-queues'], { dataDir: 'memory' }),
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--slug');
    expect(memory.code).toBe(2);
    expect(memory.stderr).toContain('memory');
  });
});

describe.sequential('on a data directory', () => {
  it(
    'with no server running, starts the engines itself (the server starting meanwhile waits)',
    { timeout: 90_000 },
    async () => {
      const { code, stdout, stderr } = await selfStarted;
      expect(code, stderr).toBe(0);
      expect(JSON.parse(stdout)).toMatchObject({ title: 'Billing', slug: 'billing' });
      expect(stderr).not.toContain('Waiting');
      // Its DynamoDB Local kept the data in the directory, not in memory: past the empty database's one
      // page the runtime makes (infra/local/sqlite-wal.ts), in the database or still in its write-ahead log.
      const database = join(dataDir, 'dynamodb', SHARED_DATABASE_FILE);
      const size = (path: string) => statSync(path, { throwIfNoEntry: false })?.size ?? 0;
      expect(size(database) + size(`${database}-wal`)).toBeGreaterThan(emptyWalDatabase().length);
      // Owner-only (issue 25): the directory (made so though it was not), what the engines made in it.
      const mode = (...path: string[]) => (statSync(join(dataDir, ...path)).mode & 0o777).toString(8);
      expect([mode(), mode('dynamodb'), mode('s3'), mode('dynamodb', SHARED_DATABASE_FILE)]).toEqual([
        '700',
        '700',
        '700',
        '600',
      ]);
    },
  );

  it('refuses invalid values before starting anything', async () => {
    const { code, stderr } = await cli(['create-custom-field', '--name', 'os', '--label', 'OS', '--type', 'list'], {
      dataDir,
    });
    expect(code).toBe(1);
    expect(stderr).toContain('--list-values: A list field needs at least one value.');
  });

  // Concurrent tests: one that polls takes `expect` from its own context (the global one may be bound to another test
  // then).
  describe.concurrent('while the local server runs on it', () => {
    let runtime: SpawnedRuntime;

    beforeAll(async () => {
      runtime = await starting!;
      const record = JSON.parse(readFileSync(join(dataDir, 'endpoints.json'), 'utf8'));
      expect(record).toMatchObject({ owner: 'server', url: runtime.url });
      expect((statSync(join(dataDir, 'endpoints.json')).mode & 0o777).toString(8)).toBe('600');
      expect(record.pid).toBeGreaterThan(0);
      expect(record.dynamoEndpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    });

    afterAll(async () => {
      await runtime?.stop();
      expect(existsSync(join(dataDir, 'endpoints.json'))).toBe(false);
    });

    it('create-queue, then list-queues --json shows it', { timeout: 60_000 }, async () => {
      const created = await cli(['create-queue', '--title', 'Sales', '--slug', 'sales'], { dataDir });
      expect(created.code, created.stderr).toBe(0);
      // It used the server's engines: starting its own would have waited for the server to stop.
      expect(created.stderr).not.toContain('Waiting');
      const [listed, duplicate] = await Promise.all([
        cli(['list-queues', '--json'], { dataDir }),
        cli(['create-queue', '--title', 'Again', '--slug', 'sales'], { dataDir }),
      ]);
      expect(listed.code, listed.stderr).toBe(0);
      const slugs = JSON.parse(listed.stdout).map((q: { slug: string }) => q.slug);
      // The server's first start made the default queue.
      expect(slugs).toEqual(['support', 'sales']);
      expect(duplicate.code).toBe(1);
      expect(duplicate.stderr).toContain('a queue with slug "sales" already exists');
    });

    it(
      "update-queue sets a queue's mail settings (refusing bad ones); ses-event bounce suppresses, " +
        'list-suppressions shows it, unsuppress clears it',
      { timeout: 120_000 },
      async () => {
        const [updated, bad, bounced, explode] = await Promise.all([
          cli(
            [
              'update-queue',
              '1',
              '--email-address',
              'help@example.com',
              '--new-ticket-cc',
              'a@example.com,b@example.com',
              '--disabled-mail',
              'updated_cc',
            ],
            { dataDir },
          ),
          cli(['update-queue', '1', '--new-ticket-cc', 'not-an-address'], { dataDir }),
          cli(['ses-event', 'bounce', '--message-id', '<nothing-sent@localhost>', '--recipient', 'Gone@Example.com'], {
            dataDir,
          }),
          cli(['ses-event', 'explode', '--message-id', 'x', '--recipient', 'a@b.c'], { dataDir }),
        ]);
        expect(updated.code, updated.stderr).toBe(0);
        expect(bad.code).toBe(1);
        expect(bad.stderr).toContain('--new-ticket-cc: Enter valid e-mail addresses separated by commas.');
        expect(bounced.code, bounced.stderr).toBe(0);
        expect(explode.code).toBe(1);
        const [queues, listed] = await Promise.all([
          cli(['list-queues', '--json'], { dataDir }),
          cli(['list-suppressions', '--json'], { dataDir }),
        ]);
        expect((JSON.parse(queues.stdout) as { id: number }[]).find((q) => q.id === 1)).toMatchObject({
          email_address: 'help@example.com',
          new_ticket_cc: 'a@example.com, b@example.com',
          disabled_mail: ['updated_cc'],
        });
        expect(JSON.parse(listed.stdout)).toEqual([
          expect.objectContaining({ address: 'gone@example.com', reason: 'bounce' }),
        ]);
        expect((await cli(['unsuppress', 'gone@example.com'], { dataDir })).code).toBe(0);
        const [after, again] = await Promise.all([
          cli(['list-suppressions'], { dataDir }),
          cli(['unsuppress', 'gone@example.com'], { dataDir }),
        ]);
        expect(after.stdout).toContain('No suppressed addresses.');
        expect(again.code).toBe(1);
      },
    );

    it(
      'create-user (password on stdin), list-users, duplicate, set-password; checked over HTTP',
      { timeout: 60_000 },
      async () => {
        const created = await cli(['create-user', 'carol', '--email', 'carol@example.com', '--staff'], {
          dataDir,
          input: 'carol-password-1\n',
        });
        expect(created.code, created.stderr).toBe(0);
        expect(created.stdout).toContain('Created user "carol"');
        const auth1 = await fetch(`${runtime.url}/api/tickets/`, {
          headers: { authorization: basic('carol', 'carol-password-1') },
        });
        expect(auth1.status).toBe(200);

        const [text, json, duplicate, changed, short, unknown] = await Promise.all([
          cli(['list-users'], { dataDir }),
          cli(['list-users', '--json'], { dataDir }),
          cli(['create-user', 'carol', '--email', 'other@example.com'], { dataDir, input: 'another-password\n' }),
          cli(['set-password', 'carol'], { dataDir, input: 'carol-password-2\n' }),
          cli(['set-password', 'carol'], { dataDir, input: 'short\n' }),
          cli(['set-password', 'nobody'], { dataDir, input: 'whatever-password\n' }),
        ]);
        expect(text.code, text.stderr).toBe(0);
        expect(text.stdout).toMatch(/carol\s+carol@example\.com/);
        const carol = JSON.parse(json.stdout).find((u: { username: string }) => u.username === 'carol');
        expect(carol).toMatchObject({
          email: 'carol@example.com',
          is_staff: true,
          is_superuser: false,
          is_active: true,
        });
        for (const output of [text.stdout, json.stdout]) expect(output).not.toMatch(/password|scrypt/i);

        expect(duplicate.code).toBe(1);
        expect(duplicate.stderr).toContain('A user with that username already exists.');

        expect(changed.code, changed.stderr).toBe(0);
        const auth2 = await fetch(`${runtime.url}/api/tickets/`, {
          headers: { authorization: basic('carol', 'carol-password-2') },
        });
        expect(auth2.status).toBe(200);
        expect(short.code).toBe(1);
        expect(short.stderr).toContain('at least 8 characters');
        expect(unknown.code).toBe(1);
        expect(unknown.stderr).toContain('No user named "nobody"');
      },
    );

    it(
      'deactivate-user: an inactive user cannot authenticate over HTTP; activate-user lets it in again',
      { timeout: 60_000 },
      async () => {
        const created = await cli(['create-user', 'dave', '--email', 'dave@example.com', '--staff'], {
          dataDir,
          input: 'dave-password-1\n',
        });
        expect(created.code, created.stderr).toBe(0);
        // Deactivated before its first request, so no warm function remembers the credential.
        const [deactivated, unknown] = await Promise.all([
          cli(['deactivate-user', 'dave', '--json'], { dataDir }),
          cli(['deactivate-user', 'nobody'], { dataDir }),
        ]);
        expect(deactivated.code, deactivated.stderr).toBe(0);
        expect(JSON.parse(deactivated.stdout)).toMatchObject({ username: 'dave', is_active: false });
        expect(unknown.code).toBe(1);
        expect(unknown.stderr).toContain('No user named "nobody"');

        const refused = await fetch(`${runtime.url}/api/tickets/`, {
          headers: { authorization: basic('dave', 'dave-password-1') },
        });
        expect(refused.status).toBe(401);
        expect(await refused.json()).toEqual({ detail: 'Invalid username/password.' });
        expect(refused.headers.get('www-authenticate')).toBe('Basic realm="api"');

        const activated = await cli(['activate-user', 'dave'], { dataDir });
        expect(activated.code, activated.stderr).toBe(0);
        expect(activated.stdout).toContain('User "dave" is now active.');
        const accepted = await fetch(`${runtime.url}/api/tickets/`, {
          headers: { authorization: basic('dave', 'dave-password-1') },
        });
        expect(accepted.status).toBe(200);
      },
    );

    it(
      'a deactivation reaches a credential the runtime already verified within seconds, not a minute (issue 13)',
      { timeout: 60_000 },
      async ({ expect }) => {
        expect(
          (
            await cli(['create-user', 'fay', '--email', 'fay@example.com', '--staff'], {
              dataDir,
              input: 'fay-password-1\n',
            })
          ).code,
        ).toBe(0);
        const request = () =>
          fetch(`${runtime.url}/api/tickets/?page_size=1`, {
            headers: { authorization: basic('fay', 'fay-password-1') },
          });
        expect((await request()).status).toBe(200); // verified, and remembered for 60 s
        expect((await cli(['deactivate-user', 'fay'], { dataDir })).code).toBe(0);
        // The cached record is read again once it is 5 s old: refused from then on (with the old
        // 60-second cache of the whole user, this poll ran out).
        await expect.poll(async () => (await request()).status, { timeout: 15_000, interval: 250 }).toBe(401);
      },
    );

    it(
      'create-token, list-tokens, revoke-token; a staff user manages its own tokens only, over HTTP',
      { timeout: 90_000 },
      async () => {
        const get = (path: string, authorization: string, init: RequestInit = {}) =>
          fetch(`${runtime.url}${path}`, { ...init, headers: { authorization, 'content-type': 'application/json' } });
        expect(
          (
            await cli(['create-user', 'erin', '--email', 'erin@example.com', '--staff'], {
              dataDir,
              input: 'erin-password-1\n',
            })
          ).code,
        ).toBe(0);
        const created = await cli(['create-token', 'erin', '--json'], { dataDir });
        expect(created.code, created.stderr).toBe(0);
        const { id, key } = JSON.parse(created.stdout);
        const erin = `Token ${key}`;
        expect((await get('/api/tickets/?page_size=1', erin)).status).toBe(200);

        // Erin may not make a token for someone else, nor see or revoke the admin's.
        expect(
          (await get('/api/tokens/', erin, { method: 'POST', body: JSON.stringify({ user: 'admin' }) })).status,
        ).toBe(403);
        const admins = await cli(['create-token', 'admin', '--json'], { dataDir });
        const adminToken = JSON.parse(admins.stdout);
        const listed = (await (await get('/api/tokens/', erin)).json()) as { results: { user: string }[] };
        expect(listed.results.map((t: { user: string }) => t.user)).toEqual(['erin']);
        expect((await get(`/api/tokens/${adminToken.id}/`, erin, { method: 'DELETE' })).status).toBe(404);
        const own = await get('/api/tokens/', erin, { method: 'POST', body: '{}' });
        expect(own.status).toBe(201);
        const second = (await own.json()) as { id: number; key: string };

        const text = await cli(['list-tokens', '--user', 'erin'], { dataDir });
        expect(text.stdout).toContain(key.slice(0, 8));
        expect(text.stdout).not.toContain(key);
        expect(text.stdout).not.toContain(second.key);

        // Used, then revoked by the CLI: refused at once (tokens are never cached).
        expect((await get('/api/user_tickets/', `Token ${second.key}`)).status).toBe(200);
        const revoked = await cli(['revoke-token', String(second.id)], { dataDir });
        expect(revoked.code, revoked.stderr).toBe(0);
        const refused = await get('/api/user_tickets/', `Token ${second.key}`);
        expect(refused.status).toBe(401);
        expect(await refused.json()).toEqual({ detail: 'Invalid token.' });
        expect((await cli(['revoke-token', String(second.id)], { dataDir })).code).toBe(1);

        // Deactivating the owner revokes the token (the same change as PATCH /api/users/{id}/).
        const third = JSON.parse((await cli(['create-token', 'erin', '--json'], { dataDir })).stdout);
        expect((await cli(['deactivate-user', 'erin'], { dataDir })).code).toBe(0);
        const inactive = await get('/api/user_tickets/', `Token ${third.key}`);
        expect(inactive.status).toBe(401);
        expect(await inactive.json()).toEqual({ detail: 'Invalid token.' });
        expect((await cli(['list-tokens', '--user', 'erin'], { dataDir })).stdout).not.toContain(third.key.slice(0, 8));
        expect(id).toBeGreaterThan(0);
      },
    );

    it(
      'create-webhook, list-webhooks, ping-webhook, disable-webhook; checked over HTTP',
      { timeout: 60_000 },
      async () => {
        const receiver = await startReceiver((r) => (r.path === '/down' ? 503 : 200));
        try {
          const created = await cli(
            [
              'create-webhook',
              '--url',
              `${receiver.url}/in`,
              '--events',
              'ticket.created,ticket.updated',
              '--description',
              'CLI',
              '--json',
            ],
            { dataDir },
          );
          expect(created.code, created.stderr).toBe(0);
          const subscription = JSON.parse(created.stdout);
          expect(subscription).toMatchObject({
            events: ['ticket.created', 'ticket.updated'],
            description: 'CLI',
            enabled: true,
            secret: expect.stringMatching(/^whsec_/),
          });
          const refused = await cli(
            ['create-webhook', '--url', 'http://169.254.169.254/', '--events', 'ticket.created'],
            { dataDir },
          );
          expect(refused.code).toBe(1);
          expect(refused.stderr).toContain('--url');

          const listed = await cli(['list-webhooks'], { dataDir });
          expect(listed.stdout).toContain(subscription.id);
          expect(listed.stdout).not.toContain(subscription.secret);

          const pinged = await cli(['ping-webhook', subscription.id, '--json'], { dataDir });
          expect(pinged.code, pinged.stderr).toBe(0);
          const pingAnswer = JSON.parse(pinged.stdout);
          expect(pingAnswer).toMatchObject({ delivered: true, status: 200 });
          // The ping, not a change event the subscription may receive meanwhile (tickets made above).
          const [ping] = await receiver.waitFor(
            1,
            (r) => r.path === '/in' && r.headers['webhook-id'] === pingAnswer.id,
          );
          expect(
            new Webhook(subscription.secret).verify(ping!.body, ping!.headers as Record<string, string>),
          ).toMatchObject({ type: 'webhook.ping' });

          const downCreated = await cli(
            ['create-webhook', '--url', `${receiver.url}/down`, '--events', 'ticket.created', '--json'],
            { dataDir },
          );
          expect(downCreated.code, downCreated.stderr).toBe(0);
          const down = JSON.parse(downCreated.stdout);
          const failing = await cli(['ping-webhook', down.id], { dataDir });
          expect(failing.code).toBe(1);
          expect(failing.stdout).toContain('503');

          expect((await cli(['disable-webhook', subscription.id], { dataDir })).code).toBe(0);
          const shown = await fetch(`${runtime.url}/api/webhooks/${subscription.id}/`, {
            headers: { authorization: basic('admin', ADMIN_PASSWORD) },
          });
          expect(await shown.json()).toMatchObject({ id: subscription.id, enabled: false });
          expect((await cli(['disable-webhook', 'env_new_ticket_0'], { dataDir })).stderr).toMatch(/redeploying/);
        } finally {
          await receiver.stop();
        }
      },
    );

    it(
      'tail-events prints the change feed, one line per event, and the cursor to continue from',
      { timeout: 60_000 },
      async ({ expect }) => {
        const created = await fetch(`${runtime.url}/api/tickets/`, {
          method: 'POST',
          headers: { authorization: basic('admin', ADMIN_PASSWORD), 'content-type': 'application/json' },
          body: JSON.stringify({
            queue: 1,
            title: 'Tailed',
            description: 'From the CLI test',
            submitter_email: 'tail@example.com',
          }),
        });
        const ticket = (await created.json()) as { id: number };
        expect(created.status, JSON.stringify(ticket)).toBe(201);
        // The horizon at 0: an event prints as soon as the runtime's stream consumer wrote it.
        const settled = { HELPDESK_EVENTS_SETTLE_MS: '0' };
        let lines: { event?: string; ticket?: number; cursor?: string }[] = [];
        let output = '';
        await expect
          .poll(
            async () => {
              const tailed = await cli(['tail-events', '--json'], { dataDir, env: settled });
              output = tailed.stdout + tailed.stderr;
              lines = tailed.stdout
                .trim()
                .split('\n')
                .map((l) => JSON.parse(l));
              return lines.some((l) => l.event === 'ticket.created' && l.ticket === ticket.id);
            },
            { timeout: 20_000, interval: 250, message: output },
          )
          .toBe(true);
        const cursor = lines.at(-1)!.cursor!;
        const human = await cli(['tail-events'], { dataDir, env: settled });
        expect(human.code, human.stderr).toBe(0);
        expect(human.stdout).toMatch(new RegExp(`ticket\\.created +ticket ${ticket.id}  evt_`));
        expect(human.stdout).toContain(`--after ${cursor}`);
        const idle = await cli(['tail-events', '--after', cursor, '--json'], { dataDir, env: settled });
        expect(idle.stdout.trim()).toBe(JSON.stringify({ cursor }));
        expect((await cli(['tail-events', '--after', 'nonsense'], { dataDir })).code).toBe(1);
      },
    );

    it(
      'create-custom-field: a valid one is listed (without its internal key); an invalid one exits non-zero',
      { timeout: 60_000 },
      async () => {
        const [created, invalid] = await Promise.all([
          cli(
            [
              'create-custom-field',
              '--name',
              'os',
              '--label',
              'OS',
              '--type',
              'list',
              '--list-values',
              'Linux, macOS,Windows',
              '--required',
            ],
            { dataDir },
          ),
          cli(['create-custom-field', '--name', 'cost', '--label', 'Cost', '--type', 'decimal'], { dataDir }),
        ]);
        expect(created.code, created.stderr).toBe(0);
        expect(invalid.code).not.toBe(0);
        expect(invalid.stderr).toContain('--decimal-places');
        const listed = await cli(['list-custom-fields', '--json'], { dataDir });
        expect(listed.code, listed.stderr).toBe(0);
        const defs = JSON.parse(listed.stdout);
        expect(defs).toEqual([
          expect.objectContaining({
            name: 'os',
            label: 'OS',
            data_type: 'list',
            list_values: ['Linux', 'macOS', 'Windows'],
            required: true,
          }),
        ]);
        expect(defs[0]).not.toHaveProperty('key');
      },
    );
  });
});
