/**
 * Guessing and lockout by source address (issue 13, holes 2 to 4), over HTTP from several loopback
 * addresses (the client socket bound to 127.0.0.x: the address the server sees): attempts are
 * counted atomically before the password check, so concurrent guesses get no more than the limit;
 * a username is locked only for the source that guessed at it, so its owner logs in from elsewhere;
 * one source failing across many usernames (password spraying) is refused; API tokens are never
 * locked by password guessing. On a runtime of its own with the default limits but 20 failures per
 * source (the default is 50), so that spraying takes fewer requests.
 */
import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { basic, unique } from './client';
import type { Json } from '../json';
import { useOwnRuntime } from './own-runtime';

const own = useOwnRuntime({
  HELPDESK_AUTHENTICATION_CLASSES: 'basic,token',
  HELPDESK_LOGIN_FAILURES_PER_SOURCE: '20',
  HELPDESK_LOGIN_FAILURE_DELAY_MS: '0',
});

/** GET /api/user_tickets/ with `auth`, from loopback address `from` (127.0.0.x). */
function from(address: string, auth: string): Promise<{ status: number; body: Json }> {
  const url = new URL('/api/user_tickets/', own.runtime.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        localAddress: address,
        headers: { authorization: auth },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const statuses = (replies: { status: number }[]) =>
  replies.reduce<Record<number, number>>((all, r) => ({ ...all, [r.status]: (all[r.status] ?? 0) + 1 }), {});

describe('login attempts by source', () => {
  it(
    '40 concurrent wrong guesses from one source: no more than the limit (10) are judged, the rest get 429',
    { timeout: 120_000 },
    async () => {
      const user = await own.api.createUser();
      const replies = await Promise.all(
        Array.from({ length: 40 }, (_, i) => from('127.0.0.2', basic(user.username, `guess-${i}`))),
      );
      const counted = statuses(replies);
      expect(counted[401]).toBeLessThanOrEqual(10);
      expect(counted[401]! + counted[429]!).toBe(40);
      // Its owner, from another address, logs in as usual.
      expect((await from('127.0.0.3', user.auth)).status).toBe(200);
    },
  );

  it(
    'one source trying a password across many usernames (spraying) is refused from the 20th failure, for every ' +
      'username',
    { timeout: 120_000 },
    async () => {
      const owner = await own.api.createUser();
      const run = unique('spray');
      const replies: { status: number }[] = [];
      for (let i = 0; i < 200 && !replies.some((r) => r.status === 429); i++)
        replies.push(await from('127.0.0.4', basic(`${run}-${i}`, 'Summer2026!')));
      expect(statuses(replies)).toEqual({ 401: 20, 429: 1 });
      expect((await from('127.0.0.4', owner.auth)).status).toBe(429);
      expect((await from('127.0.0.5', owner.auth)).status).toBe(200);
    },
  );

  it('API tokens are never locked by password guessing', { timeout: 120_000 }, async () => {
    const user = await own.api.createUser();
    const token = await own.api.call('POST', '/api/tokens/', { json: {}, auth: user.auth });
    // Only staff may hold tokens: use the admin's when the user may not.
    const key =
      token.status === 201
        ? (token.body.key as string)
        : ((await own.api.call('POST', '/api/tokens/', { json: {} })).body.key as string);
    const username = token.status === 201 ? user.username : 'admin';
    for (let i = 0; i < 12; i++) await from('127.0.0.6', basic(username, `wrong-${i}`));
    expect((await from('127.0.0.6', basic(username, 'still-wrong'))).status).toBe(429);
    expect((await from('127.0.0.6', `Token ${key}`)).status).toBe(200);
  });
});
