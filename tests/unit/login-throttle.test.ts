/** The failed-login policy (shared/domain/login-throttle.ts) and its 429 answer. */
import { describe, expect, it } from 'vitest';
import { Throttled } from '../../shared/domain/errors';
import {
  DEFAULT_LOGIN_THROTTLE as POLICY,
  activeFailures,
  clearsOnSuccess,
  decideLogin,
  loginThrottleFrom,
  windowEnd,
} from '../../shared/domain/login-throttle';

const NOW = 1_800_000_000_000; // ms
const open = (failures: number, secondsLeft = 600) => ({ failures, expiresAt: NOW / 1000 + secondsLeft });

describe('decideLogin', () => {
  it('no record, or a window that has ended, counts nothing', () => {
    expect(decideLogin(undefined, NOW, POLICY)).toEqual({ kind: 'proceed', delayMs: 0, failures: 0 });
    expect(decideLogin({ failures: 50, expiresAt: NOW / 1000 }, NOW, POLICY)).toEqual({ kind: 'proceed', delayMs: 0, failures: 0 });
    expect(activeFailures({ failures: 50, expiresAt: NOW / 1000 - 1 }, NOW)).toBe(0);
  });

  it('fewer than 5 failures: no delay', () => {
    for (const n of [1, 2, 3, 4]) expect(decideLogin(open(n), NOW, POLICY)).toEqual({ kind: 'proceed', delayMs: 0, failures: n });
  });

  it('from 5 failures: each attempt waits 1 s', () => {
    for (const n of [5, 6, 9]) expect(decideLogin(open(n), NOW, POLICY)).toEqual({ kind: 'proceed', delayMs: 1000, failures: n });
  });

  it('from 10 failures: locked until the window ends, whole seconds rounded up', () => {
    expect(decideLogin(open(10, 600), NOW, POLICY)).toEqual({ kind: 'locked', retryAfter: 600 });
    expect(decideLogin(open(42, 0.2), NOW, POLICY)).toEqual({ kind: 'locked', retryAfter: 1 });
    expect(decideLogin({ failures: 10, expiresAt: NOW / 1000 + 899.5 }, NOW, POLICY)).toEqual({ kind: 'locked', retryAfter: 900 });
  });

  it('a success clears the count only when there is one and no lockout', () => {
    expect(clearsOnSuccess(decideLogin(undefined, NOW, POLICY))).toBe(false);
    expect(clearsOnSuccess(decideLogin(open(3), NOW, POLICY))).toBe(true);
    expect(clearsOnSuccess(decideLogin(open(9), NOW, POLICY))).toBe(true);
    expect(clearsOnSuccess(decideLogin(open(10), NOW, POLICY))).toBe(false);
  });

  it('a window lasts 15 minutes from the failure that opens it, never longer', () => {
    expect(windowEnd(NOW, POLICY)).toBe(NOW / 1000 + 900);
    expect(windowEnd(NOW + 999, POLICY)).toBe(NOW / 1000 + 900);
  });

  it('the Retry-After of a lockout never exceeds the window, whatever the millisecond', () => {
    for (const opened of [NOW, NOW + 1, NOW + 500, NOW + 999]) {
      for (const checked of [opened, opened + 1, opened + 50, opened + 999]) {
        const decision = decideLogin({ failures: 10, expiresAt: windowEnd(opened, POLICY) }, checked, POLICY);
        expect(decision, `opened ${opened - NOW}, checked ${checked - NOW}`).toEqual({ kind: 'locked', retryAfter: expect.any(Number) });
        const { retryAfter } = decision as { retryAfter: number };
        expect(retryAfter).toBeGreaterThanOrEqual(899);
        expect(retryAfter).toBeLessThanOrEqual(POLICY.windowSeconds);
      }
    }
  });
});

describe('loginThrottleFrom', () => {
  it('defaults: 15-minute window, delay after 5, lockout after 10, 1 s delay', () => {
    expect(loginThrottleFrom({})).toEqual({ windowSeconds: 900, delayAfter: 5, lockAfter: 10, delayMs: 1000 });
  });

  it('reads each HELPDESK_LOGIN_* variable', () => {
    expect(
      loginThrottleFrom({
        HELPDESK_LOGIN_FAILURE_WINDOW: '60',
        HELPDESK_LOGIN_FAILURES_BEFORE_DELAY: '2',
        HELPDESK_LOGIN_FAILURES_BEFORE_LOCKOUT: '3',
        HELPDESK_LOGIN_FAILURE_DELAY_MS: '0',
      }),
    ).toEqual({ windowSeconds: 60, delayAfter: 2, lockAfter: 3, delayMs: 0 });
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
