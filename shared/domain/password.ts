/**
 * Password hashing: salted scrypt from node:crypto, verified in constant time, stored in Django's
 * own encoding (`scrypt$N$salt$r$p$hash`, django.contrib.auth.hashers.ScryptPasswordHasher), so that
 * a hash moves between django-helpdesk and this API unchanged in either direction. The parameters
 * are stored with each hash, so they can be raised later without invalidating existing passwords.
 *
 * Verified too, for users brought over from Django: `pbkdf2_sha256` and `pbkdf2_sha1` (Django's
 * defaults over the years), and this API's own earlier encoding (`scrypt$N$r$p$salt$key`, base64
 * salt and a 32-byte key of the NFKC-normalised password). A password verified against any hash but
 * the current one (`needsRehash`) is stored again in the current encoding at that sign-in, as Django
 * does (middleware/auth.ts).
 */
import {
  pbkdf2 as pbkdf2Callback,
  randomBytes,
  randomInt,
  scrypt as scryptCallback,
  timingSafeEqual,
  type ScryptOptions,
} from 'node:crypto';

/**
 * The shortest password a user may be given, by the API (POST /api/users/) and the CLI alike:
 * characters after trimming, as Django's MinimumLengthValidator (whose default is also 8).
 */
export const MIN_PASSWORD_LENGTH = 8;

/**
 * N = 2^14, r = 8, p = 2: 16 MiB and about 140 ms of one core per hash on the benchmark machine
 * (two passes of Django's default N = 2^14, p = 1). N = 2^15 would cost the same with p = 1, but
 * Django cannot verify it: Python's hashlib.scrypt refuses more than 32 MiB (checked with Python
 * 3.11: "memory limit exceeded"), and an exported hash must still sign its user in there. Verified
 * credentials are cached (middleware/auth.ts), so a user pays it once a minute per warm function.
 */
export const SCRYPT_PARAMS: ScryptParams = { N: 16384, r: 8, p: 2 };
/**
 * The cost of new hashes in the test suite (HELPDESK_PASSWORD_MIN_COST=1): about 1 ms a hash instead of 60-140, as
 * Django's test settings swap in a fast hasher and Rails' tests set SecurePassword.min_cost. Measured: the suite
 * hashed 541 passwords at SCRYPT_PARAMS, about 31 s of its CPU. Never on Lambda (usePasswordCostOf); any stored hash
 * verifies with the parameters it names, whichever cost made it.
 */
export const MIN_COST_SCRYPT_PARAMS: ScryptParams = { N: 1024, r: 8, p: 1 };
/** Django's derived key length for scrypt (dklen=64). */
const SCRYPT_KEY_LENGTH = 64;
/** Django's salts: 22 characters of [a-zA-Z0-9] (get_random_string), about 131 bits. */
const SALT_LENGTH = 22;
const SALT_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
/** Django marks a password that can never match with this prefix (set_unusable_password). */
const UNUSABLE_PREFIX = '!';

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

function scrypt(password: Buffer, salt: Buffer, params: ScryptParams, keyLength: number): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 128 * params.N * params.r * 2 + 128 * params.r * params.p };
  return new Promise((resolve, reject) =>
    scryptCallback(password, salt, keyLength, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

function pbkdf2(
  password: Buffer,
  salt: Buffer,
  iterations: number,
  digest: 'sha256' | 'sha1',
  keyLength: number,
): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    pbkdf2Callback(password, salt, iterations, keyLength, digest, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

function randomSalt(): string {
  return Array.from({ length: SALT_LENGTH }, () => SALT_CHARS[randomInt(SALT_CHARS.length)]).join('');
}

function encode({ N, r, p }: ScryptParams, salt: string, key: Buffer): string {
  return `scrypt$${N}$${salt}$${r}$${p}$${key.toString('base64')}`;
}

/** What new hashes (and the decoy) are made with in this process: SCRYPT_PARAMS unless usePasswordCostOf says. */
let newHashParams: ScryptParams = SCRYPT_PARAMS;

/**
 * HELPDESK_PASSWORD_MIN_COST=1 makes this process hash new passwords at MIN_COST_SCRYPT_PARAMS (the test suite's
 * runtimes and CLI runs). Only the local runtime and the CLI call it as they start, so a function on Lambda always
 * hashes at SCRYPT_PARAMS whatever its environment says.
 */
export function usePasswordCostOf(env: Record<string, string | undefined>): void {
  const minCost = env.HELPDESK_PASSWORD_MIN_COST?.trim();
  if (minCost && minCost !== '0' && minCost !== '1')
    throw new Error(`HELPDESK_PASSWORD_MIN_COST must be 1 or 0, not "${minCost}"`);
  newHashParams = minCost === '1' ? MIN_COST_SCRYPT_PARAMS : SCRYPT_PARAMS;
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomSalt();
  return encode(
    newHashParams,
    salt,
    await scrypt(Buffer.from(password, 'utf8'), Buffer.from(salt, 'utf8'), newHashParams, SCRYPT_KEY_LENGTH),
  );
}

/**
 * A stored hash that no password matches, verified against when the username is unknown, so both
 * cases cost the same: one scrypt with the parameters new hashes get. Its salt and key are random (a password
 * matches with a chance of 2^-512), so making it costs no hash: a hash made at module load took
 * ~100 ms of CPU from every cold start (on Lambda's fraction of a vCPU, from the first request).
 */
export function decoyHash(): string {
  return encode(newHashParams, randomSalt(), randomBytes(SCRYPT_KEY_LENGTH));
}

/** A stored hash read into what verifying it takes, or undefined when it is not one we verify. */
type Stored =
  | { kind: 'scrypt'; params: ScryptParams; salt: Buffer; key: Buffer; password: (p: string) => Buffer }
  | { kind: 'pbkdf2'; digest: 'sha256' | 'sha1'; iterations: number; salt: Buffer; key: Buffer };

const POSITIVE = /^[1-9][0-9]{0,9}$/;
/** Bounds that keep a stored hash from costing unbounded memory or time (Django's own are far inside them). */
const MAX_SCRYPT_N = 2 ** 20;
const MAX_PBKDF2_ITERATIONS = 10_000_000;

function scryptParams(n: string, r: string, p: string): ScryptParams | undefined {
  if (![n, r, p].every((v) => POSITIVE.test(v))) return undefined;
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  const powerOfTwo = params.N > 1 && (params.N & (params.N - 1)) === 0;
  return powerOfTwo && params.N <= MAX_SCRYPT_N && params.r <= 32 && params.p <= 16 ? params : undefined;
}

function parse(stored: string): Stored | undefined {
  const parts = stored.split('$');
  const [scheme] = parts;
  if (scheme === 'scrypt' && parts.length === 6) {
    const [, n, a, b, c, key] = parts as [string, string, string, string, string, string];
    if (!key) return undefined;
    // Django's field order is N, salt, r, p; ours was N, r, p, salt, where the salt is base64 of 16
    // bytes (24 characters ending in '='), never all digits as Django's p is: no hash reads both ways.
    if (POSITIVE.test(b) && POSITIVE.test(c)) {
      const params = scryptParams(n, b, c);
      return params && a
        ? {
            kind: 'scrypt',
            params,
            salt: Buffer.from(a, 'utf8'),
            key: Buffer.from(key, 'base64'),
            password: (p) => Buffer.from(p, 'utf8'),
          }
        : undefined;
    }
    const params = scryptParams(n, a, b);
    return params && c
      ? {
          kind: 'scrypt',
          params,
          salt: Buffer.from(c, 'base64'),
          key: Buffer.from(key, 'base64'),
          password: (p) => Buffer.from(p.normalize('NFKC'), 'utf8'),
        }
      : undefined;
  }
  if ((scheme === 'pbkdf2_sha256' || scheme === 'pbkdf2_sha1') && parts.length === 4) {
    const [, iterations, salt, key] = parts as [string, string, string, string];
    if (!POSITIVE.test(iterations) || Number(iterations) > MAX_PBKDF2_ITERATIONS || !salt || !key) return undefined;
    return {
      kind: 'pbkdf2',
      digest: scheme === 'pbkdf2_sha256' ? 'sha256' : 'sha1',
      iterations: Number(iterations),
      salt: Buffer.from(salt, 'utf8'),
      key: Buffer.from(key, 'base64'),
    };
  }
  return undefined;
}

/** Whether `password` is the one `stored` was made from; false for an unusable (`!…`) or unknown encoding. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  if (stored.startsWith(UNUSABLE_PREFIX)) return false;
  const hash = parse(stored);
  if (!hash || hash.key.length === 0) return false;
  const actual =
    hash.kind === 'scrypt'
      ? await scrypt(hash.password(password), hash.salt, hash.params, hash.key.length)
      : await pbkdf2(Buffer.from(password, 'utf8'), hash.salt, hash.iterations, hash.digest, hash.key.length);
  return actual.length === hash.key.length && timingSafeEqual(actual, hash.key);
}

/**
 * Whether a stored hash should be replaced by a fresh one once its password is verified: anything but
 * Django's scrypt encoding with the parameters new hashes get (pbkdf2 from Django, our earlier encoding, other
 * parameters). Unusable hashes never verify, so they never get here.
 */
export function needsRehash(stored: string): boolean {
  const hash = parse(stored);
  if (!hash || hash.kind !== 'scrypt') return true;
  const { N, r, p } = hash.params;
  const parts = stored.split('$');
  // Django's order is N, salt, r, p (parse above): r and p in the fourth and fifth fields.
  const djangoOrder = POSITIVE.test(parts[3]!) && POSITIVE.test(parts[4]!);
  return !djangoOrder || N !== newHashParams.N || r !== newHashParams.r || p !== newHashParams.p;
}
