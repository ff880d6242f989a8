/** The failed-login policy (shared/domain/login-throttle.ts) and its 429 answer. */
import { describe, expect, it } from 'vitest';
import { Throttled } from '../../shared/domain/errors';
import {
  DEFAULT_LOGIN_THROTTLE as POLICY,
  delayFor,
  loginThrottleFrom,
  retryAfter,
  windowEnd,
} from '../../shared/domain/login-throttle';

const NOW = 1_800_000_000_000; // ms

describe('the failed-login policy', () => {
  it('fewer than 5 failures counted: no delay; from 5: each attempt waits 1 s', () => {
    for (const n of [0, 1, 4]) expect(delayFor(n, POLICY)).toBe(0);
    for (const n of [5, 6, 9]) expect(delayFor(n, POLICY)).toBe(1000);
  });

  it('a locked window is refused until it ends, whole seconds rounded up', () => {
    expect(retryAfter(NOW / 1000 + 600, NOW)).toBe(600);
    expect(retryAfter(NOW / 1000 + 0.2, NOW)).toBe(1);
    expect(retryAfter(NOW / 1000 + 899.5, NOW)).toBe(900);
    expect(retryAfter(NOW / 1000 - 5, NOW)).toBe(1);
  });

  it('a window lasts 15 minutes from the failure that opens it, never longer', () => {
    expect(windowEnd(NOW, POLICY)).toBe(NOW / 1000 + 900);
    expect(windowEnd(NOW + 999, POLICY)).toBe(NOW / 1000 + 900);
  });

  it('the Retry-After of a lockout never exceeds the window, whatever the millisecond', () => {
    for (const opened of [NOW, NOW + 1, NOW + 500, NOW + 999]) {
      for (const checked of [opened, opened + 1, opened + 50, opened + 999]) {
        const wait = retryAfter(windowEnd(opened, POLICY), checked);
        expect(wait, `opened ${opened - NOW}, checked ${checked - NOW}`).toBeGreaterThanOrEqual(899);
        expect(wait).toBeLessThanOrEqual(POLICY.windowSeconds);
      }
    }
  });
});

describe('loginThrottleFrom', () => {
  it('defaults: 15-minute window, delay after 5, lockout after 10, 1 s delay, 50 failures per source', () => {
    expect(loginThrottleFrom({})).toEqual({
      windowSeconds: 900,
      delayAfter: 5,
      lockAfter: 10,
      delayMs: 1000,
      sourceLockAfter: 50,
    });
  });

  it('reads each HELPDESK_LOGIN_* variable', () => {
    expect(
      loginThrottleFrom({
        HELPDESK_LOGIN_FAILURE_WINDOW: '60',
        HELPDESK_LOGIN_FAILURES_BEFORE_DELAY: '2',
        HELPDESK_LOGIN_FAILURES_BEFORE_LOCKOUT: '3',
        HELPDESK_LOGIN_FAILURE_DELAY_MS: '0',
        HELPDESK_LOGIN_FAILURES_PER_SOURCE: '7',
      }),
    ).toEqual({ windowSeconds: 60, delayAfter: 2, lockAfter: 3, delayMs: 0, sourceLockAfter: 7 });
  });

  it('refuses values that are not whole numbers at least their minimum', () => {
    for (const [name, value] of [
      ['HELPDESK_LOGIN_FAILURE_WINDOW', '0'],
      ['HELPDESK_LOGIN_FAILURE_WINDOW', '1.5'],
      ['HELPDESK_LOGIN_FAILURES_BEFORE_LOCKOUT', '-1'],
      ['HELPDESK_LOGIN_FAILURE_DELAY_MS', 'soon'],
    ]) {
      expect(() => loginThrottleFrom({ [name!]: value }), `${name}=${value}`).toThrow(name!);
    }
  });
});

describe('the 429 answer', () => {
  it("has DRF's Throttled message and Retry-After", () => {
    const e = new Throttled(600);
    expect(e.status).toBe(429);
    expect(e.body).toEqual({ detail: 'Request was throttled. Expected available in 600 seconds.' });
    expect(e.headers).toEqual({ 'Retry-After': '600' });
  });

  it('rounds up, and says "second" for one', () => {
    expect(new Throttled(0.3).body).toEqual({ detail: 'Request was throttled. Expected available in 1 second.' });
    expect(new Throttled(1.2).headers).toEqual({ 'Retry-After': '2' });
  });
});
