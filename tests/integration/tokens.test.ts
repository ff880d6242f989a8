/**
 * API tokens over HTTP (docs/security.md) on a runtime of its own with
 * HELPDESK_AUTHENTICATION_CLASSES=basic,token: DRF's TokenAuthentication header and messages, and
 * POST/GET/DELETE /api/tokens/ (staff for themselves, superusers for anyone). The challenge with
 * `token,basic` first is checked in auth-runtime.test.ts; the CLI commands in cli.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, ADMIN_AUTH, clientFor, unique, type Reply } from './client';
import { spawnApiRuntime, type SpawnedRuntime } from './spawn-runtime';
import { onSharedEngines } from './shared-engines';
import { MAX_TOKENS_PER_USER, tooManyTokens } from '../../shared/domain/tokens';

let runtime: SpawnedRuntime | undefined;
let api: ReturnType<typeof clientFor>;

beforeAll(async () => {
  runtime = await spawnApiRuntime({
    ...onSharedEngines(),
    HELPDESK_AUTHENTICATION_CLASSES: 'basic,token',
  });
  api = clientFor(runtime.url);
}, 200_000);

afterAll(async () => {
  await runtime?.stop();
});

const tokenAuth = (key: string) => `Token ${key}`;

function expect401(reply: Reply, detail: string): void {
  expect(reply.status, reply.text).toBe(401);
  expect(reply.body).toEqual({ detail });
  expect(reply.headers.get('www-authenticate')).toBe('Basic realm="api"');
}

async function makeToken(auth: string, body: Record<string, unknown> = {}): Promise<Reply> {
  return api.call('POST', '/api/tokens/', { auth, json: body });
}

describe('Token authentication (basic,token)', () => {
  it(
    'a token made by POST /api/tokens/ authenticates as its owner; the key is shown once',
    { timeout: 120_000 },
    async () => {
      const created = await makeToken(ADMIN_AUTH);
      expect(created.status, created.text).toBe(201);
      expect(Object.keys(created.body)).toEqual(['id', 'user', 'key', 'prefix', 'created']);
      const { id, key, prefix, user } = created.body;
      expect(user).toBe(ADMIN.username);
      expect(key).toMatch(/^[0-9a-f]{64}$/);
      expect(prefix).toBe(key.slice(0, 8));

      const reply = await api.call('GET', '/api/tickets/?page_size=1', { auth: tokenAuth(key) });
      expect(reply.status, reply.text).toBe(200);

      const listed = await api.call('GET', '/api/tokens/', { auth: tokenAuth(key) });
      expect(listed.status).toBe(200);
      expect(listed.text).not.toContain(key);
      const mine = listed.body.results.find((t: { id: number }) => t.id === id);
      expect(mine).toEqual({ id, user: ADMIN.username, prefix, created: created.body.created });
    },
  );

  it(
    'an Idempotency-Key replay of a token create never shows (or stores) the key again: 409 naming the token',
    { timeout: 120_000 },
    async () => {
      const headers = { 'idempotency-key': unique('token-key') };
      const count = async () => (await api.call('GET', '/api/tokens/', { auth: ADMIN_AUTH })).body.count as number;
      const before = await count();
      const first = await api.call('POST', '/api/tokens/', { auth: ADMIN_AUTH, json: {}, headers });
      expect(first.status, first.text).toBe(201);
      const again = await api.call('POST', '/api/tokens/', { auth: ADMIN_AUTH, json: {}, headers });
      // A replay answers what the key's record stores, so the record holds no key either.
      expect(again.status, again.text).toBe(409);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.text).not.toContain(first.body.key);
      expect(again.body).toEqual({
        detail:
          `A request with this Idempotency-Key already succeeded (id ${first.body.id}); its answer held a secret ` +
          `that is shown only once, ` +
          `so it is not repeated.`,
      });
      expect(await count()).toBe(before + 1);
    },
  );

  it("DRF's messages for a malformed or unknown token; Basic still works", { timeout: 120_000 }, async () => {
    expect401(
      await api.call('GET', '/api/tickets/', { auth: 'Token' }),
      'Invalid token header. No credentials provided.',
    );
    expect401(
      await api.call('GET', '/api/tickets/', { auth: 'Token a b' }),
      'Invalid token header. Token string should not contain spaces.',
    );
    expect401(await api.call('GET', '/api/tickets/', { auth: `Token ${'0'.repeat(64)}` }), 'Invalid token.');
    expect401(await api.call('GET', '/api/tickets/', { auth: null }), 'Authentication credentials were not provided.');
    expect((await api.call('GET', '/api/tickets/?page_size=1')).status).toBe(200);
  });

  it(
    'a superuser makes tokens for others; non-staff users cannot manage tokens; a revoked key is refused',
    { timeout: 120_000 },
    async () => {
      // (A staff user's own-tokens-only rule needs a staff user, made with the CLI: cli.test.ts.)
      const plain = await api.createUser();
      const refused = await makeToken(plain.auth);
      expect(refused.status).toBe(403); // not staff

      const other = await makeToken(ADMIN_AUTH, { user: plain.username });
      expect(other.status, other.text).toBe(201);
      expect(other.body.user).toBe(plain.username);
      // The non-staff owner may authenticate with it (user_tickets is for any user), not manage tokens.
      expect((await api.call('GET', '/api/user_tickets/', { auth: tokenAuth(other.body.key) })).status).toBe(200);
      expect((await api.call('GET', '/api/tokens/', { auth: tokenAuth(other.body.key) })).status).toBe(403);

      const unknown = await makeToken(ADMIN_AUTH, { user: unique('ghost') });
      expect(unknown.status).toBe(400);
      expect(Object.keys(unknown.body)).toEqual(['user']);

      // Used, then revoked: refused at once (tokens are never cached).
      const spare = await makeToken(ADMIN_AUTH, { user: plain.username });
      expect((await api.call('GET', '/api/user_tickets/', { auth: tokenAuth(spare.body.key) })).status).toBe(200);
      const revoke = await api.call('DELETE', `/api/tokens/${spare.body.id}/`);
      expect(revoke.status).toBe(204);
      expect401(await api.call('GET', '/api/user_tickets/', { auth: tokenAuth(spare.body.key) }), 'Invalid token.');
      expect((await api.call('DELETE', `/api/tokens/${spare.body.id}/`)).status).toBe(404);
      const all = await api.call('GET', '/api/tokens/?page_size=100');
      expect(all.body.results.map((t: { id: number }) => t.id)).not.toContain(spare.body.id);
      expect(all.body.results.map((t: { id: number }) => t.id)).toContain(other.body.id);
    },
  );

  it(
    `a user holds at most ${MAX_TOKENS_PER_USER} tokens; a deactivation revokes them all`,
    { timeout: 120_000 },
    async () => {
      const plain = await api.createUser();
      const made: Reply[] = [];
      for (let i = 0; i < MAX_TOKENS_PER_USER; i += 10)
        made.push(
          ...(await Promise.all(Array.from({ length: 10 }, () => makeToken(ADMIN_AUTH, { user: plain.username })))),
        );
      expect(made.map((r) => r.status)).toEqual(Array(MAX_TOKENS_PER_USER).fill(201));
      const over = await makeToken(ADMIN_AUTH, { user: plain.username });
      expect(over.status).toBe(400);
      expect(over.body).toEqual({ non_field_errors: [tooManyTokens(plain.username)] });
      // Revoking one makes room for one.
      expect((await api.call('DELETE', `/api/tokens/${made[0]!.body.id}/`)).status).toBe(204);
      expect((await makeToken(ADMIN_AUTH, { user: plain.username })).status).toBe(201);

      const users = (await api.call('GET', '/api/users/?page_size=100')).body.results as {
        id: number;
        username: string;
      }[];
      const id = users.find((u) => u.username === plain.username)!.id;
      expect((await api.call('PATCH', `/api/users/${id}/`, { json: { is_active: false } })).status).toBe(200);
      const left = (await api.call('GET', '/api/tokens/?page_size=100')).body.results as { user: string }[];
      expect(left.filter((t) => t.user === plain.username)).toEqual([]);
    },
  );
});
