/**
 * Authentication on a runtime of its own: Token first, then Basic (so 401s challenge `Token`), a short failed-login
 * window (10 s; delay after 2 failures, lockout after 3) to see a lockout end, and storage faults injected
 * (faults/storage-fault.mjs) so that some requests end in a logged 500. Last, everything the runtime printed is
 * searched for the secrets the requests carried: nothing secret is ever logged.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, basic, clientFor, createUser, unique, type Reply } from './client';
import { spawnApiRuntime, type SpawnedRuntime } from './spawn-runtime';
import { onSharedEngines } from './shared-engines';
import { attempt, expectThrottled, fail } from './throttle-helpers';

const MARKER = `fault-${unique()}`;
const FAULT_MODULE = pathToFileURL(resolve(import.meta.dirname, 'faults/storage-fault.mjs')).href;

/**
 * Seconds in a failed-login window: long enough for a test's few attempts on a loaded machine, short
 * because one test waits for a lockout to end.
 */
const WINDOW = 10;
let runtime: SpawnedRuntime | undefined;
let api: ReturnType<typeof clientFor>;
/** Every secret the requests of this file carry; none may appear in the output. */
const secrets = new Set<string>([ADMIN.password]);

function secret(prefix: string): string {
  const value = `${prefix}-${unique()}`;
  secrets.add(value);
  return value;
}

/** A Basic header whose password (and base64 form) count as secrets. */
function credential(username: string, password: string): string {
  const header = basic(username, password);
  secrets.add(header.slice('Basic '.length));
  return header;
}

beforeAll(async () => {
  runtime = await spawnApiRuntime({
    ...onSharedEngines(),
    HELPDESK_AUTHENTICATION_CLASSES: 'token,basic',
    HELPDESK_LOGIN_FAILURE_WINDOW: String(WINDOW),
    HELPDESK_LOGIN_FAILURES_BEFORE_DELAY: '2',
    HELPDESK_LOGIN_FAILURES_BEFORE_LOCKOUT: '3',
    HELPDESK_LOGIN_FAILURE_DELAY_MS: '300',
    HELPDESK_TEST_FAULT_MARKER: MARKER,
    // Every level is logged, so the scan for secrets below reads all a deployment could write.
    POWERTOOLS_LOG_LEVEL: 'DEBUG',
    // And npm start's one line per request, scanned too.
    HELPDESK_LOG_FORMAT: 'line',
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${FAULT_MODULE}`.trim(),
  });
  api = clientFor(runtime.url);
  credential(ADMIN.username, ADMIN.password);
}, 200_000);

afterAll(async () => {
  await runtime?.stop();
});

describe('with HELPDESK_AUTHENTICATION_CLASSES=token,basic', () => {
  it(
    'every 401 challenges with the first class, Token; Basic and tokens both authenticate',
    { timeout: 180_000 },
    async () => {
      for (const [auth, detail] of [
        [null, 'Authentication credentials were not provided.'],
        [basic(ADMIN.username, 'not-the-password'), 'Invalid username/password.'],
        ['Token', 'Invalid token header. No credentials provided.'],
        [`Token ${'f'.repeat(64)}`, 'Invalid token.'],
      ] as const) {
        const reply = await api.call('GET', '/api/tickets/', { auth });
        expect(reply.status).toBe(401);
        expect(reply.body).toEqual({ detail });
        expect(reply.headers.get('www-authenticate')).toBe('Token');
      }
      const created = await api.call('POST', '/api/tokens/', { json: {} });
      expect(created.status, created.text).toBe(201);
      secrets.add(created.body.key);
      expect((await api.call('GET', '/api/tickets/?page_size=1', { auth: `Token ${created.body.key}` })).status).toBe(
        200,
      );
      expect((await api.call('GET', '/api/tickets/?page_size=1')).status).toBe(200);
    },
  );
});

describe('failed-login throttling with a lockout after 3 failures', () => {
  it(
    'unknown usernames are counted the same way: the answers do not tell which usernames exist',
    { timeout: 180_000 },
    async () => {
      const known = await createUser({}, runtime!.url);
      const unknown = unique('nobody');
      const [a, b] = await Promise.all([fail(known.username, 4, runtime!.url), fail(unknown, 4, runtime!.url)]);
      const shape = (replies: Reply[]) => replies.map((r) => [r.status, r.status === 429 ? 'throttled' : r.text]);
      expect(shape(a)).toEqual(shape(b));
      expect(shape(a).map(([status]) => status)).toEqual([401, 401, 401, 429]);
    },
  );

  it('a success below the lockout clears the count', { timeout: 180_000 }, async () => {
    const user = await createUser({}, runtime!.url);
    await fail(user.username, 2, runtime!.url);
    expect((await attempt(user.auth, runtime!.url)).status).toBe(200);
    // The count starts again from 0: 2 more failures still get 401 (2 + 2 would have locked it at 3).
    expect((await fail(user.username, 2, runtime!.url)).map((r) => r.status)).toEqual([401, 401]);
  });

  it('a credential verified before the lockout keeps working from the warm cache', { timeout: 180_000 }, async () => {
    const user = await createUser({}, runtime!.url);
    expect((await attempt(user.auth, runtime!.url)).status).toBe(200);
    await Promise.all(
      Array.from({ length: 3 }, (_, i) => attempt(basic(user.username, `attacker-${i}`), runtime!.url)),
    );
    expectThrottled(await attempt(basic(user.username, 'attacker-x'), runtime!.url), WINDOW);
    expect((await attempt(user.auth, runtime!.url)).status).toBe(200);
  });

  it('headers that carry no usable username are not counted', { timeout: 180_000 }, async () => {
    for (let i = 0; i < 4; i++) {
      const reply = await attempt(`Basic ${Buffer.from(`:nothing-${i}`).toString('base64')}`, runtime!.url);
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual({ detail: 'Invalid username/password.' });
    }
  });

  it(
    'a locked username may log in again after Retry-After, and a new window counts from 1',
    { timeout: 180_000 },
    async () => {
      const user = await createUser({}, runtime!.url);
      expect((await fail(user.username, 3, runtime!.url)).map((r) => r.status)).toEqual([401, 401, 401]);
      const wait = expectThrottled(await attempt(user.auth, runtime!.url), WINDOW);
      await new Promise((r) => setTimeout(r, wait * 1000 + 100));
      // The stored item outlives its window (TTL deletes lazily): it must no longer count.
      expect((await fail(user.username, 3, runtime!.url)).map((r) => r.status)).toEqual([401, 401, 401]);
      expectThrottled(await attempt(user.auth, runtime!.url), WINDOW);
    },
  );

  it('the configured delay applies from the configured count', { timeout: 180_000 }, async () => {
    const replies = await fail(unique('slow'), 3, runtime!.url);
    expect(replies.map((r) => r.status)).toEqual([401, 401, 401]);
    expect(replies[2]!.ms).toBeGreaterThanOrEqual(290);
  });
});

describe('the runtime output after requests full of secrets', () => {
  it('contains no password, no base64 credential and no password hash', { timeout: 240_000 }, async () => {
    const username = unique('secretive');
    const password = secret('pw');
    const created = await api.call('POST', '/api/users/', {
      json: { first_name: 'S', last_name: 'L', username, email: `${username}@example.com`, password },
    });
    expect(created.status, created.text).toBe(201);

    expect((await api.call('GET', '/api/user_tickets/', { auth: credential(username, password) })).status).toBe(200);
    for (let i = 0; i < 3; i++) {
      expect(
        (await api.call('GET', '/api/user_tickets/', { auth: credential(username, secret('wrong')) })).status,
      ).toBe(401);
    }
    expect(
      (await api.call('GET', '/api/user_tickets/', { auth: credential(unique('nobody'), secret('guess')) })).status,
    ).toBe(401);
    // Malformed headers that still carry a password.
    const spaced = credential(username, secret('spaced'));
    expect((await api.call('GET', '/api/user_tickets/', { auth: `${spaced} extra` })).status).toBe(401);
    const noColon = Buffer.from(secret('nocolon')).toString('base64');
    secrets.add(noColon);
    expect((await api.call('GET', '/api/user_tickets/', { auth: `Basic ${noColon}` })).status).toBe(401);

    // Refused creations: a short password, a duplicate username.
    const short = `S${unique().slice(-6)}`;
    secrets.add(short);
    const refused = await api.call('POST', '/api/users/', {
      json: { first_name: 'S', last_name: 'L', username: unique('u'), email: 'a@example.com', password: short },
    });
    expect(refused.status).toBe(400);
    const duplicate = await api.call('POST', '/api/users/', {
      json: { first_name: 'S', last_name: 'L', username, email: 'a@example.com', password: secret('dup') },
    });
    expect(duplicate.status).toBe(400);

    // Requests that fail in the store: a user creation (its write carries the new password hash) and
    // a ticket creation by a user who authenticated with Basic.
    const failing = await api.call('POST', '/api/users/', {
      json: {
        first_name: MARKER,
        last_name: 'L',
        username: unique('u'),
        email: 'a@example.com',
        password: secret('failing'),
      },
    });
    expect(failing.status).toBe(500);
    expect(failing.body).toEqual({ detail: 'A server error occurred.' });
    const ticket = await api.call('POST', '/api/tickets/', {
      auth: credential(ADMIN.username, ADMIN.password),
      json: { queue: 1, title: MARKER, description: 'd', submitter_email: 'a@example.com' },
    });
    expect(ticket.status).toBe(500);

    await runtime!.stop();
    const output = runtime!.output();
    // The faults were logged (so the scan below covers error logs), and so was every request.
    expect(output.match(/unhandled error/g)?.length).toBeGreaterThanOrEqual(2);
    expect(output.match(/"route": "GET \/api\/user_tickets"/g)?.length).toBeGreaterThanOrEqual(5);
    expect(output).toMatch(/^GET \/api\/user_tickets\/ 200 \d+ ms [0-9a-f-]{36}$/m);
    expect(output).toMatch(/^POST \/api\/tickets\/ 500 \d+ ms [0-9a-f-]{36}$/m);
    for (const value of secrets) expect(output, `the output contains "${value}"`).not.toContain(value);
    expect(output).not.toMatch(/scrypt\$/);
  });
});
