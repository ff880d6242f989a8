/**
 * Failed-login throttling over HTTP (docs/security.md): per username, 1 s delays from 5 failures,
 * 429 from 10 until the window ends. On the shared runtime every test uses usernames of its own, so
 * the admin and the other files are never throttled. The rest of the policy is checked with smaller
 * numbers, so with fewer slow password checks, on a runtime of its own (auth-runtime.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { basic, createUser, unique } from './client';
import { attempt, expectThrottled, fail } from './throttle-helpers';

const INVALID = { detail: 'Invalid username/password.' };

describe.concurrent('with the default policy (shared runtime, usernames of its own)', () => {
  it(
    '10 failures lock the username: the right password then gets 429 with Retry-After, at once',
    { timeout: 180_000 },
    async () => {
      const user = await createUser();
      const replies = await fail(user.username, 10);
      for (const reply of replies) {
        expect(reply.status).toBe(401);
        expect(reply.body).toEqual(INVALID);
      }
      // From the 6th attempt on (5 failures counted) each one waits a second before the password check.
      for (const reply of replies.slice(5)) expect(reply.ms).toBeGreaterThanOrEqual(950);
      const locked = await attempt(user.auth);
      expectThrottled(locked, 900);
      // Refused before any password work or delay: faster than any delayed attempt.
      expect(locked.ms).toBeLessThan(Math.min(...replies.slice(5).map((r) => r.ms)));
      expectThrottled(await attempt(basic(user.username, 'wrong-again')), 900);
    },
  );

  it(
    'concurrent failures are all counted (atomic ADD): the next attempt is refused',
    { timeout: 180_000 },
    async () => {
      const username = unique('burst');
      const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => attempt(basic(username, `guess-${i}`))));
      expect(replies.map((r) => r.status)).toEqual(Array(10).fill(401));
      expectThrottled(await attempt(basic(username, 'one-more')), 900);
    },
  );
});
