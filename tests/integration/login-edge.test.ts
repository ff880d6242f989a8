/**
 * The failed-login throttle behind the edge (shared/domain/client-address.ts): every request reaches
 * the API from CloudFront's addresses, so a request that proves it came through the edge (its origin
 * secret) is counted by the viewer CloudFront names in CloudFront-Viewer-Address, and one that does
 * not (a runtime without an edge, where anyone may send the header) by its own connection, whatever
 * it claims. Two runtimes of their own, both with small limits (3 failures lock a username for a
 * source, 6 lock a source) and no delay; every request here comes from the same loopback address,
 * as every request through the edge comes from CloudFront's.
 */
import { describe, expect, it } from 'vitest';
import { basic, unique } from './client';
import { useOwnRuntime } from './own-runtime';

const SECRET = 'edge-secret-for-login-tests-0123456789abcdef';
const LIMITS = {
  HELPDESK_LOGIN_FAILURES_BEFORE_LOCKOUT: '3',
  HELPDESK_LOGIN_FAILURES_PER_SOURCE: '6',
  HELPDESK_LOGIN_FAILURE_DELAY_MS: '0',
};
const edge = useOwnRuntime({ ...LIMITS, HELPDESK_ORIGIN_SECRET: SECRET });
const direct = useOwnRuntime(LIMITS);

/** The status of GET /api/user_tickets/ with `auth`, as CloudFront would forward it for `viewer` ("ip:port"). */
async function viaEdge(viewer: string, auth: string): Promise<number> {
  return (
    await edge.api.call('GET', '/api/user_tickets/', {
      auth,
      headers: { 'X-Origin-Verify': SECRET, 'CloudFront-Viewer-Address': viewer },
    })
  ).status;
}

/** A user made by the admin through the edge: its username and Basic header. */
async function edgeUser(): Promise<{ username: string; auth: string }> {
  const username = unique('viewer');
  const json = {
    first_name: 'First',
    last_name: 'Last',
    username,
    email: `${username}@example.com`,
    password: 'a-password-1',
  };
  const reply = await edge.api.call('POST', '/api/users/', { json, headers: { 'X-Origin-Verify': SECRET } });
  expect(reply.status, reply.text).toBe(201);
  return { username, auth: basic(username, json.password) };
}

async function sequence(send: (i: number) => Promise<number>, times: number): Promise<number[]> {
  const statuses = [];
  for (let i = 0; i < times; i++) statuses.push(await send(i));
  return statuses;
}

describe('through the edge (the origin secret sent)', () => {
  it(
    'a username guessed at by one viewer is locked for that viewer only: its owner, behind the same edge ' +
      'address, logs in',
    { timeout: 60_000 },
    async () => {
      const user = await edgeUser();
      expect(await sequence((i) => viaEdge('198.51.100.10:40000', basic(user.username, `wrong-${i}`)), 4)).toEqual([
        401, 401, 401, 429,
      ]);
      expect(await viaEdge('198.51.100.10:40001', user.auth)).toBe(429);
      expect(await viaEdge('203.0.113.20:51000', user.auth)).toBe(200);
    },
  );

  it(
    'a viewer spraying across usernames is refused for every username, and no one else is',
    { timeout: 60_000 },
    async () => {
      const owner = await edgeUser();
      const run = unique('spray');
      expect(await sequence((i) => viaEdge('198.51.100.30:1234', basic(`${run}-${i}`, 'Summer2026!')), 7)).toEqual([
        401, 401, 401, 401, 401, 401, 429,
      ]);
      expect(await viaEdge('198.51.100.30:1234', owner.auth)).toBe(429);
      expect(await viaEdge('198.51.100.31:1234', owner.auth)).toBe(200);
    },
  );

  it(
    'an IPv6 viewer is counted by its /64: another address of it stays locked, another network does not',
    { timeout: 60_000 },
    async () => {
      const user = await edgeUser();
      expect(
        await sequence((i) => viaEdge(`2001:db8:1:2::${i + 1}:443`, basic(user.username, `wrong-${i}`)), 3),
      ).toEqual([401, 401, 401]);
      expect(await viaEdge('2001:db8:1:2:ffff::9:443', user.auth)).toBe(429);
      expect(await viaEdge('2001:db8:1:3::1:443', user.auth)).toBe(200);
    },
  );

  it('a request without the secret is refused before any login, whatever viewer it names', async () => {
    const user = await edgeUser();
    const reply = await edge.api.call('GET', '/api/user_tickets/', {
      auth: user.auth,
      headers: { 'CloudFront-Viewer-Address': '192.0.2.1:443' },
    });
    expect(reply.status).toBe(403);
  });
});

describe('without the edge (no origin secret), CloudFront-Viewer-Address is anyone’s to send', () => {
  it(
    'so failures are counted by the connection: forging a new viewer per guess escapes nothing',
    { timeout: 60_000 },
    async () => {
      const user = await direct.api.createUser();
      const forged = (i: number) => ({ 'CloudFront-Viewer-Address': `192.0.2.${i + 1}:443` });
      const statuses = await sequence(
        async (i) =>
          (
            await direct.api.call('GET', '/api/user_tickets/', {
              auth: basic(user.username, `wrong-${i}`),
              headers: forged(i),
            })
          ).status,
        4,
      );
      expect(statuses).toEqual([401, 401, 401, 429]);
      expect(
        (await direct.api.call('GET', '/api/user_tickets/', { auth: user.auth, headers: forged(99) })).status,
      ).toBe(429);
    },
  );
});
