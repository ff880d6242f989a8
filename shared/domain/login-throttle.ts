/**
 * How repeated failed logins are slowed and then refused (docs/security.md).
 *
 * Failures are counted per username *and* source address (known usernames or not, so the answers
 * reveal nothing about which exist), and per source address across usernames, each in a window that
 * opens at the first failure and lasts `windowSeconds`. Someone guessing at a username locks only
 * themselves out: its owner, from another address, logs in as usual. From `delayAfter` failures of
 * a username from a source on, every further attempt waits `delayMs` before its password is checked;
 * from `lockAfter` failures on, attempts are answered 429 without any password work until the window
 * ends. A source that fails `sourceLockAfter` times across usernames (password spraying) is
 * answered 429 for every username until its window ends. An attempt is counted before its password
 * is checked (atomically: concurrent guesses never pass the limit) and given back when it succeeds,
 * which also clears the username's count from that source. API tokens are never throttled by this.
 * Pure rules: the store keeps the counts (store/login-attempts.ts) and the middleware applies them
 * (middleware/auth.ts); which source a request is from is client-address.ts's rule.
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
  /** Failures from one source address, across usernames, after which it is refused (429) until its window ends. */
  sourceLockAfter: number;
}

export const DEFAULT_LOGIN_THROTTLE: LoginThrottlePolicy = {
  windowSeconds: 900,
  delayAfter: 5,
  lockAfter: 10,
  delayMs: 1000,
  sourceLockAfter: 50,
};

/** Seconds until a locked window ends (at least 1), for Retry-After. */
export function retryAfter(expiresAt: number, nowMs: number): number {
  return Math.max(1, Math.ceil(expiresAt - nowMs / 1000));
}

/** The delay before checking a password when `failures` were already counted for its username and source. */
export function delayFor(failures: number, policy: LoginThrottlePolicy): number {
  return failures >= policy.delayAfter ? policy.delayMs : 0;
}

/**
 * When a window opened by a failure at `nowMs` ends (epoch seconds): also the item's TTL. Rounded
 * down, so a window never lasts longer than `windowSeconds` and no Retry-After exceeds it.
 */
export function windowEnd(nowMs: number, policy: LoginThrottlePolicy): number {
  return Math.floor(nowMs / 1000) + policy.windowSeconds;
}

const SETTINGS: Record<keyof LoginThrottlePolicy, { env: string; min: number }> = {
  windowSeconds: { env: 'HELPDESK_LOGIN_FAILURE_WINDOW', min: 1 },
  delayAfter: { env: 'HELPDESK_LOGIN_FAILURES_BEFORE_DELAY', min: 1 },
  lockAfter: { env: 'HELPDESK_LOGIN_FAILURES_BEFORE_LOCKOUT', min: 1 },
  delayMs: { env: 'HELPDESK_LOGIN_FAILURE_DELAY_MS', min: 0 },
  sourceLockAfter: { env: 'HELPDESK_LOGIN_FAILURES_PER_SOURCE', min: 1 },
};

/**
 * The policy from the environment (each value optional; defaults above). A value that is not a whole
 * number at least its minimum is a configuration error: refusing to start beats a silent default.
 */
export function loginThrottleFrom(env: Record<string, string | undefined>): LoginThrottlePolicy {
  const policy = { ...DEFAULT_LOGIN_THROTTLE };
  for (const [name, { env: variable, min }] of Object.entries(SETTINGS) as [
    keyof LoginThrottlePolicy,
    { env: string; min: number },
  ][]) {
    const raw = env[variable];
    if (raw === undefined || raw === '') continue;
    if (!/^\d+$/.test(raw.trim()) || Number(raw) < min)
      throw new Error(`${variable} must be a whole number of at least ${min}, not "${raw}"`);
    policy[name] = Number(raw);
  }
  return policy;
}
