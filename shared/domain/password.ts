/**
 * Password hashing: salted scrypt from node:crypto, verified in constant time. The parameters are
 * stored with each hash so they can be raised later without invalidating existing passwords.
 */
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * The shortest password a user may be given, by the API (POST /api/users/) and the CLI alike:
 * characters after trimming, as Django's MinimumLengthValidator (whose default is also 8).
 */
export const MIN_PASSWORD_LENGTH = 8;

/**
 * N = 2^15, r = 8, p = 1: 32 MiB and about 140 ms of one core per hash on the benchmark machine.
 * Verified credentials are cached (middleware/auth.ts), so a user pays it once a minute per warm
 * function, not per request.
 */
export const SCRYPT_PARAMS = { N: 32768, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;

function scrypt(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 128 * params.N * params.r * 2 };
  return new Promise((resolve, reject) =>
    scryptCallback(password.normalize('NFKC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, SCRYPT_PARAMS);
  const { N, r, p } = SCRYPT_PARAMS;
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/**
 * A stored hash that no password matches, verified against when the username is unknown, so both
 * cases cost the same: one scrypt with SCRYPT_PARAMS. Its salt and key are random bytes (a password
 * matches with a chance of 2^-256), so making it costs no hash: a hash made at module load took
 * ~100 ms of CPU from every cold start (on Lambda's fraction of a vCPU, from the first request).
 */
export function decoyHash(): string {
  const { N, r, p } = SCRYPT_PARAMS;
  return `scrypt$${N}$${r}$${p}$${randomBytes(16).toString('base64')}$${randomBytes(KEY_LENGTH).toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64');
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), { N: Number(n), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
