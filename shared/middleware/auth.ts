/**
 * HTTP Basic authentication with DRF's messages. Passwords are verified with scrypt in constant
 * time, with the same work for unknown usernames. A verified credential is remembered in memory
 * for CREDENTIAL_CACHE_MS, keyed by a SHA-256 of the header, so warm requests skip the hash and
 * the user read; a password change or deactivation therefore takes effect within that time.
 */
import { createHash } from 'node:crypto';
import { NotAuthenticated } from '../domain/errors';
import type { User } from '../domain/records';
import { decoyHash, verifyPassword } from '../domain/password';
import { findUserByUsername } from '../store/users';

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

/** The user the header authenticates; throws 401 with upstream's message otherwise. */
export async function authenticate(authorization: string | undefined): Promise<User> {
  const credentials = parseBasicAuthorization(authorization);
  if (!credentials) throw new NotAuthenticated();
  const key = cacheKey(authorization!);
  const hit = cache.get(key);
  if (hit && hit.expires > Date.now()) return hit.user;
  if (hit) cache.delete(key);

  const { username, password } = credentials;
  const usable = !username.includes('\0') && !password.includes('\0') && username.length <= 150;
  const user = usable ? await findUserByUsername(username) : undefined;
  const valid = await verifyPassword(password, user?.password_hash ?? (await decoyHash()));
  if (!user || !valid || !user.is_active) throw new NotAuthenticated(INVALID_CREDENTIALS);

  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(key, { user, expires: Date.now() + CREDENTIAL_CACHE_MS });
  return user;
}
