/**
 * HTTP Basic authentication with DRF's messages. Passwords are verified with scrypt in constant
 * time, with the same work for unknown usernames. A verified credential is remembered in memory
 * for CREDENTIAL_CACHE_MS, keyed by a SHA-256 of the header, so warm requests skip the hash and
 * the user read; a password change or deactivation therefore takes effect within that time.
 *
 * Failed logins are throttled per username (domain/login-throttle.ts): the user item and the
 * failure count are read in one Query, a locked username is refused (429) before any password
 * work, and each failure costs one write. A request without credentials, a malformed header and a
 * cached credential cost no request at all.
 */
import { createHash } from 'node:crypto';
import { NotAuthenticated, Throttled } from '../domain/errors';
import type { User } from '../domain/records';
import { decoyHash, verifyPassword } from '../domain/password';
import { clearsOnSuccess, decideLogin, windowEnd } from '../domain/login-throttle';
import { config } from '../config';
import { clearLoginFailures, readLogin, recordLoginFailure } from '../store/login-attempts';

export const CREDENTIAL_CACHE_MS = 60_000;
const CACHE_LIMIT = 1000;

const INVALID_CREDENTIALS = 'Invalid username/password.';

export type Credentials = { username: string; password: string };

/** Reads `Authorization: Basic ...`; undefined when the header is absent or another scheme. */
export function parseBasicAuthorization(value: string | undefined): Credentials | undefined {
  if (!value) return undefined;
  const parts = value.trim().split(/\s+/);
  if (parts[0]!.toLowerCase() !== 'basic') return undefined;
  if (parts.length === 1) throw new NotAuthenticated('Invalid basic header. No credentials provided.');
  if (parts.length > 2) throw new NotAuthenticated('Invalid basic header. Credentials string should not contain spaces.');
  const encoded = parts[1]!;
  const malformed = () => new NotAuthenticated('Invalid basic header. Credentials not correctly base64 encoded.');
  // Padding is required, as Python's b64decode requires it ("Incorrect padding").
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded) || encoded.length % 4 !== 0) throw malformed();
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw malformed();
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

const cache = new Map<string, { user: User; expires: number }>();

function cacheKey(header: string): string {
  return createHash('sha256').update(header).digest('base64');
}

/** Test and CLI hook: forget every remembered credential. */
export function clearCredentialCache(): void {
  cache.clear();
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A username no account can have (empty, too long, with NUL): no lookup and no count, but the same
 * password work as any other failure.
 */
function impossible({ username, password }: Credentials): boolean {
  return username === '' || username.length > 150 || username.includes('\0') || password.includes('\0');
}

/** Checks a Basic credential against the store, with the failed-login throttle. */
async function verifyBasic(credentials: Credentials): Promise<User> {
  const { username, password } = credentials;
  if (impossible(credentials)) {
    await verifyPassword(password, await decoyHash());
    throw new NotAuthenticated(INVALID_CREDENTIALS);
  }
  const policy = config.loginThrottle;
  const now = Date.now();
  const { user, failures } = await readLogin(username);
  const decision = decideLogin(failures, now, policy);
  if (decision.kind === 'locked') throw new Throttled(decision.retryAfter);
  if (decision.delayMs) await sleep(decision.delayMs);
  const valid = await verifyPassword(password, user?.password_hash ?? (await decoyHash()));
  if (!user || !valid || !user.is_active) {
    await recordLoginFailure(username, now, windowEnd(now, policy));
    throw new NotAuthenticated(INVALID_CREDENTIALS);
  }
  if (clearsOnSuccess(decision)) await clearLoginFailures(username, policy.lockAfter);
  return user;
}

/** The user the header authenticates; throws 401 with upstream's message (or 429) otherwise. */
export async function authenticate(authorization: string | undefined): Promise<User> {
  const credentials = parseBasicAuthorization(authorization);
  if (!credentials) throw new NotAuthenticated();
  const key = cacheKey(authorization!);
  const hit = cache.get(key);
  if (hit && hit.expires > Date.now()) return hit.user;
  if (hit) cache.delete(key);

  const user = await verifyBasic(credentials);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(key, { user, expires: Date.now() + CREDENTIAL_CACHE_MS });
  return user;
}
