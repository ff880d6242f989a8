/**
 * How repeated failed logins for one username are slowed and then refused (docs/security.md).
 *
 * Failures are counted per username (known or not, so the answers reveal nothing about which
 * usernames exist) in a window that opens at the first failure and lasts `windowSeconds`. From
 * `delayAfter` failures on, every further attempt waits `delayMs` before its password is checked;
 * from `lockAfter` failures on, attempts are answered 429 without any password work until the window
 * ends. A successful login clears the count, except during a lockout (which a correct guess must not
 * lift: a locked username is not checked at all). Pure rules: the store keeps the count
 * (store/login-attempts.ts) and the middleware applies the decision (middleware/auth.ts).
 */

export interface LoginThrottlePolicy {
  /** How long a window of failures lasts, from its first failure. */
  windowSeconds: number;
  /** Failures after which every attempt is delayed. */
  delayAfter: number;
  /** Failures after which attempts are refused (429) until the window ends. */
  lockAfter: number;
  /** The delay added to each attempt once `delayAfter` failures are counted. */
  delayMs: number;
}

export const DEFAULT_LOGIN_THROTTLE: LoginThrottlePolicy = { windowSeconds: 900, delayAfter: 5, lockAfter: 10, delayMs: 1000 };

/** The stored count of one username: `expiresAt` (epoch seconds) ends the window. */
export interface FailureRecord {
  failures: number;
  expiresAt: number;
}

export type LoginDecision =
  /** Refuse without checking the password; the window ends in `retryAfter` seconds. */
  | { kind: 'locked'; retryAfter: number }
  /** Check the password after `delayMs`; `failures` is the count in the open window (0 if none). */
  | { kind: 'proceed'; delayMs: number; failures: number };

/** The failures that still count at `nowMs`: none once the window has ended (TTL deletes lazily). */
export function activeFailures(record: FailureRecord | undefined, nowMs: number): number {
  if (!record || record.expiresAt * 1000 <= nowMs) return 0;
  return record.failures;
}

export function decideLogin(record: FailureRecord | undefined, nowMs: number, policy: LoginThrottlePolicy): LoginDecision {
  const failures = activeFailures(record, nowMs);
  if (failures >= policy.lockAfter) return { kind: 'locked', retryAfter: Math.max(1, Math.ceil(record!.expiresAt - nowMs / 1000)) };
  return { kind: 'proceed', delayMs: failures >= policy.delayAfter ? policy.delayMs : 0, failures };
}

/**
 * When a window opened by a failure at `nowMs` ends (epoch seconds): also the item's TTL. Rounded
 * down, so a window never lasts longer than `windowSeconds` and no Retry-After exceeds it.
 */
export function windowEnd(nowMs: number, policy: LoginThrottlePolicy): number {
  return Math.floor(nowMs / 1000) + policy.windowSeconds;
}

/** A successful login clears the count when there is one (never during a lockout: see above). */
export function clearsOnSuccess(decision: LoginDecision): boolean {
  return decision.kind === 'proceed' && decision.failures > 0;
}

const SETTINGS: Record<keyof LoginThrottlePolicy, { env: string; min: number }> = {
  windowSeconds: { env: 'HELPDESK_LOGIN_FAILURE_WINDOW', min: 1 },
  delayAfter: { env: 'HELPDESK_LOGIN_FAILURES_BEFORE_DELAY', min: 1 },
  lockAfter: { env: 'HELPDESK_LOGIN_FAILURES_BEFORE_LOCKOUT', min: 1 },
  delayMs: { env: 'HELPDESK_LOGIN_FAILURE_DELAY_MS', min: 0 },
};

/**
 * The policy from the environment (each value optional; defaults above). A value that is not a whole
 * number at least its minimum is a configuration error: refusing to start beats a silent default.
 */
export function loginThrottleFrom(env: Record<string, string | undefined>): LoginThrottlePolicy {
  const policy = { ...DEFAULT_LOGIN_THROTTLE };
  for (const [name, { env: variable, min }] of Object.entries(SETTINGS) as [keyof LoginThrottlePolicy, { env: string; min: number }][]) {
    const raw = env[variable];
    if (raw === undefined || raw === '') continue;
    if (!/^\d+$/.test(raw.trim()) || Number(raw) < min) throw new Error(`${variable} must be a whole number of at least ${min}, not "${raw}"`);
    policy[name] = Number(raw);
  }
  return policy;
}
