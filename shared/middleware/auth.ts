/**
 * HTTP Basic authentication with DRF's messages. Passwords are verified with scrypt in constant
 * time, with the same work for unknown usernames. A verified credential is remembered in memory
 * for CREDENTIAL_CACHE_MS, keyed by a SHA-256 of the header, so warm requests skip the hash; the
 * user record it holds is read again once it is USER_RECORD_CACHE_MS old, so a role change,
 * deactivation or password change takes effect within that time.
 *
 * API tokens (`Authorization: Token <key>`, DRF's TokenAuthentication) when
 * HELPDESK_AUTHENTICATION_CLASSES lists `token`: found by the SHA-256 of the key, then the owner
 * read. Tokens are not cached (there is no slow hash to save), so a revocation or deactivation
 * takes effect at once, as in DRF.
 *
 * OpenID Connect bearer tokens (`Authorization: Bearer <JWT>`) when it lists `oidc`: middleware/oidc.ts.
 *
 * Failed logins are throttled per username and source, and per source (domain/login-throttle.ts):
 * the user read and the two attempt counts go out together, a full count is refused (429) before
 * any password work, and a success gives its attempts back (two more writes, once per credential per
 * warm function). A request without credentials, a malformed header and a cached credential cost no
 * request at all.
 */
import { createHash } from 'node:crypto';
import { BASIC_CHALLENGE, NotAuthenticated, Throttled } from '../domain/errors';
import type { User } from '../domain/records';
import { decoyHash, hashPassword, needsRehash, verifyPassword } from '../domain/password';
import { delayFor, retryAfter, windowEnd } from '../domain/login-throttle';
import { config } from '../config';
import { logger } from '../observability';
import {
  TOKEN_CHALLENGE,
  TOKEN_MESSAGES,
  hashTokenKey,
  parseTokenAuthorization,
  type AuthenticationClass,
} from '../domain/tokens';
import { clearAttempts, returnAttempt, takeAttempt } from '../store/login-attempts';
import { keys } from '../store/keys';
import { findTokenByKeyHash } from '../store/tokens';
import { findUserByUsername, onUserSaved, replacePasswordHash } from '../store/users';
import { BEARER_CHALLENGE, InvalidBearer, parseBearerAuthorization } from '../domain/oidc';

export const CREDENTIAL_CACHE_MS = 60_000;
/**
 * How old the cached user record may be: a role change or a deactivation takes effect within this
 * time (one GetItem per credential per warm function when it runs out), while the password hash is
 * skipped for the whole CREDENTIAL_CACHE_MS unless the stored hash changed.
 */
export const USER_RECORD_CACHE_MS = 5_000;
const CACHE_LIMIT = 1000;

const INVALID_CREDENTIALS = 'Invalid username/password.';

export type Credentials = { username: string; password: string };

/** Reads `Authorization: Basic ...`; undefined when the header is absent or another scheme. */
export function parseBasicAuthorization(value: string | undefined): Credentials | undefined {
  if (!value) return undefined;
  const parts = value.trim().split(/\s+/);
  if (parts[0]!.toLowerCase() !== 'basic') return undefined;
  if (parts.length === 1) throw new NotAuthenticated('Invalid basic header. No credentials provided.');
  if (parts.length > 2)
    throw new NotAuthenticated('Invalid basic header. Credentials string should not contain spaces.');
  const encoded = parts[1]!;
  const malformed = () => new NotAuthenticated('Invalid basic header. Credentials not correctly base64 encoded.');
  // Padding is required, as Python's b64decode requires it ("Incorrect padding").
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded) || encoded.length % 4 !== 0) throw malformed();
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw malformed();
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

const cache = new Map<string, { user: User; expires: number; freshUntil: number }>();
/**
 * Verifications under way, by credential: concurrent requests with the same credential (a burst
 * from one client, or every request of a cold local runtime) share one password hash and one read
 * rather than hashing once each (1,000 at once cost a minute of CPU here).
 */
const verifying = new Map<string, Promise<User>>();

function cacheKey(header: string): string {
  return createHash('sha256').update(header).digest('base64');
}

/** A user saved by this process (a deactivation, a password or role change) is verified afresh here at once. */
onUserSaved((username) => {
  for (const [key, entry] of cache) if (entry.user.username === username) cache.delete(key);
});

/** Test and CLI hook: forget every remembered credential. */
export function clearCredentialCache(): void {
  cache.clear();
  verifying.clear();
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A username no account can have (empty, too long, with NUL): no lookup and no count, but the same
 * password work as any other failure.
 */
function impossible({ username, password }: Credentials): boolean {
  return username === '' || username.length > 150 || username.includes('\0') || password.includes('\0');
}

/** Made as the module loads (no hashing: password.ts), so that an unknown username costs as a known one. */
const DECOY_HASH = decoyHash();

/**
 * Checks a Basic credential against the store, with the failed-login throttle: the attempt is
 * counted for the username from this source and for the source (both atomically, before any password
 * work; either full answers 429), then the password is checked; a success gives both back.
 */
async function verifyBasic(credentials: Credentials, source: string): Promise<User> {
  const { username, password } = credentials;
  const policy = config.loginThrottle;
  const now = Date.now();
  const ends = windowEnd(now, policy);
  const sourceKey = keys.sourceLoginAttempts(source);
  if (impossible(credentials)) {
    const fromSource = await takeAttempt(sourceKey, policy.sourceLockAfter, now, ends);
    if (!fromSource.taken) throw new Throttled(retryAfter(fromSource.expiresAt, now));
    await verifyPassword(password, DECOY_HASH);
    throw new NotAuthenticated(INVALID_CREDENTIALS);
  }
  const pairKey = keys.loginAttempts(username, source);
  const [read, pairTaken, sourceTaken] = await Promise.allSettled([
    findUserByUsername(username),
    takeAttempt(pairKey, policy.lockAfter, now, ends),
    takeAttempt(sourceKey, policy.sourceLockAfter, now, ends),
  ]);
  const pair = pairTaken.status === 'fulfilled' ? pairTaken.value : undefined;
  const fromSource = sourceTaken.status === 'fulfilled' ? sourceTaken.value : undefined;
  if (read.status === 'rejected' || !pair?.taken || !fromSource?.taken) {
    // Not judged (a full count, or a read that failed): the attempts that were counted go back.
    await Promise.all([pair?.taken && returnAttempt(pairKey, now), fromSource?.taken && returnAttempt(sourceKey, now)]);
    for (const outcome of [read, pairTaken, sourceTaken]) if (outcome.status === 'rejected') throw outcome.reason;
    throw new Throttled(
      retryAfter(
        pair!.taken ? (fromSource as { expiresAt: number }).expiresAt : (pair as { expiresAt: number }).expiresAt,
        now,
      ),
    );
  }
  const user = read.value;
  const delay = delayFor(pair.before, policy);
  if (delay) await sleep(delay);
  const valid = await verifyPassword(password, user?.password_hash ?? DECOY_HASH);
  if (!user || !valid || !user.is_active) throw new NotAuthenticated(INVALID_CREDENTIALS);
  const [rehashed] = await Promise.all([rehash(user, password), clearAttempts(pairKey), returnAttempt(sourceKey, now)]);
  return rehashed;
}

/**
 * A verified password whose stored hash is not the current encoding (Django's pbkdf2 of an imported user, our
 * earlier scrypt) is stored again in it, as Django's `check_password` does: once per user, so the sign-ins that
 * need none pay nothing. Conditional on the old hash, so concurrent sign-ins write once; a failed write costs the
 * sign-in nothing (the next one tries again).
 */
async function rehash(user: User, password: string): Promise<User> {
  if (!needsRehash(user.password_hash)) return user;
  try {
    const next = await hashPassword(password);
    return (await replacePasswordHash(user.username, user.password_hash, next))
      ? { ...user, password_hash: next }
      : user;
  } catch (error) {
    logger.warn('password not rehashed', { error: String(error) });
    return user;
  }
}

/** Checks a Token key: one GetItem of the token, one of its user; DRF's messages. */
async function verifyToken(key: string): Promise<User> {
  const token = await findTokenByKeyHash(hashTokenKey(key));
  if (!token) throw new NotAuthenticated(TOKEN_MESSAGES.invalid);
  const user = await findUserByUsername(token.user);
  if (!user?.is_active) throw new NotAuthenticated(TOKEN_MESSAGES.inactive);
  return user;
}

/** A scheme answers undefined when the header is not its own (DRF: authenticate() returns None). */
interface Scheme {
  challenge: string;
  /** Whether a verified credential is remembered for CREDENTIAL_CACHE_MS (worth it only for a slow hash). */
  cached: boolean;
  parse(header: string | undefined, source: string): (() => Promise<User>) | undefined;
}

const SCHEMES: Record<AuthenticationClass, Scheme> = {
  basic: {
    challenge: BASIC_CHALLENGE,
    cached: true,
    parse: (header, source) => {
      const credentials = parseBasicAuthorization(header);
      return credentials && (() => verifyBasic(credentials, source));
    },
  },
  token: {
    challenge: TOKEN_CHALLENGE,
    cached: false,
    parse: (header) => {
      const key = parseTokenAuthorization(header);
      return key === undefined ? undefined : () => verifyToken(key);
    },
  },
  oidc: {
    challenge: BEARER_CHALLENGE,
    // Not cached: a signature check is cheap, and a deactivation then holds at once.
    cached: false,
    parse: (header) => {
      const jwt = parseBearerAuthorization(header);
      return jwt === undefined ? undefined : async () => (await oidcVerifier()).verifyBearer(jwt);
    },
  },
};

/**
 * OpenID Connect's verification (jose, 14 to 38 KiB of a route's bundle) is loaded at the first bearer token, and
 * is in a function's bundle only where the environment's classes name `oidc`: the others' bundles define this
 * `false` (infra/bundling.ts) and esbuild drops the import. Unbundled (the local runtime, tests) it is always there.
 */
// It must stay this expression: esbuild's define replaces it (infra/bundling.ts).
// eslint-disable-next-line no-restricted-properties -- a build-time constant (esbuild's define), not a setting
const loadOidc = process.env.HELPDESK_OIDC_BUNDLED === 'false' ? undefined : () => import('./oidc');

function oidcVerifier(): Promise<typeof import('./oidc')> {
  if (!loadOidc)
    throw new Error('oidc is an authentication class here, but this function was bundled without it: deploy again');
  return loadOidc();
}

/**
 * The user the header authenticates, trying HELPDESK_AUTHENTICATION_CLASSES in order as DRF does:
 * the first scheme that recognises the header decides. Throws 401 with DRF's messages (or 429),
 * whose `WWW-Authenticate` names the first configured scheme.
 */
export async function authenticate(authorization: string | undefined, source = 'unknown'): Promise<User> {
  const classes = config.authenticationClasses;
  const challenge = SCHEMES[classes[0]!].challenge;
  try {
    let verify: (() => Promise<User>) | undefined;
    let scheme: Scheme | undefined;
    for (const name of classes) if ((verify = (scheme = SCHEMES[name]).parse(authorization, source))) break;
    if (!verify) throw new NotAuthenticated();
    if (!scheme!.cached) return await verify();
    const key = cacheKey(authorization!);
    const now = Date.now();
    const hit = cache.get(key);
    if (hit && hit.expires > now) {
      if (hit.freshUntil > now) return hit.user;
      // The password was verified; the record may have changed (role, activation, password).
      const user = await findUserByUsername(hit.user.username);
      if (user?.is_active && user.password_hash === hit.user.password_hash) {
        cache.set(key, { ...hit, user, freshUntil: now + USER_RECORD_CACHE_MS });
        return user;
      }
    }
    if (hit) cache.delete(key);

    let pending = verifying.get(key);
    if (!pending) {
      verifying.set(key, (pending = verify()));
      void pending.then(
        () => verifying.delete(key),
        () => verifying.delete(key),
      );
    }
    const user = await pending;
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
    cache.set(key, { user, expires: Date.now() + CREDENTIAL_CACHE_MS, freshUntil: Date.now() + USER_RECORD_CACHE_MS });
    return user;
  } catch (error) {
    // A bearer token refused says why in its own challenge (RFC 6750); any other 401 names the first class.
    if (error instanceof NotAuthenticated && !(error instanceof InvalidBearer))
      throw new NotAuthenticated(error.detail, challenge);
    throw error;
  }
}
