import { afterEach, describe, expect, it } from 'vitest';
import {
  MIN_COST_SCRYPT_PARAMS,
  SCRYPT_PARAMS,
  decoyHash,
  hashPassword,
  needsRehash,
  usePasswordCostOf,
  verifyPassword,
} from '../../shared/domain/password';

/**
 * Made by Django itself (3.2.25, Debian's python3-django: PBKDF2PasswordHasher and
 * PBKDF2SHA1PasswordHasher `encode(password, salt, 260000)`), and for scrypt by Python's
 * hashlib.scrypt with ScryptPasswordHasher.encode's formula (Django 4.0+; dklen 64, UTF-8 bytes of
 * the password and of the salt string), for the password 'pässwörd-123'.
 */
const DJANGO = {
  pbkdf2_sha256: 'pbkdf2_sha256$260000$seasalt2024abcdefghijk$ZltSstUrhKVVEZ0mftricXsIdbRrVhIEoxkeyUg/FSQ=',
  pbkdf2_sha1: 'pbkdf2_sha1$260000$seasalt2024abcdefghijk$hHOBidmzfSXAIfU5jcLzc16/Exw=',
  scrypt:
    'scrypt$16384$Qx3PZk8yVw0LmN5rT2bHcJ$8$1$' +
    'QWdRdJnca3wA7tRpRxp2GCiuNuHFDVZsa0lk1zK3ODTC/DSOhbTEfBQbDTFeME2TdL/fGA8rQwAWiEezCC1jSg==',
};
const DJANGO_PASSWORD = 'pässwörd-123';

describe('password hashing', () => {
  it("round-trips in Django's scrypt encoding and refuses wrong passwords; salts differ", async () => {
    const [a, b] = await Promise.all([hashPassword('new-pass-123'), hashPassword('new-pass-123')]);
    const { N, r, p } = SCRYPT_PARAMS;
    expect(a).toMatch(new RegExp(`^scrypt\\$${N}\\$[A-Za-z0-9]{22}\\$${r}\\$${p}\\$[A-Za-z0-9+/]{86}==$`));
    expect(a).not.toBe(b);
    expect(a).not.toContain('new-pass-123');
    const [ok, wrong, empty, otherSalt] = await Promise.all([
      verifyPassword('new-pass-123', a),
      verifyPassword('new-pass-124', a),
      verifyPassword('', a),
      verifyPassword('new-pass-123', b),
    ]);
    expect(ok).toBe(true);
    expect(wrong).toBe(false);
    expect(empty).toBe(false);
    expect(otherSalt).toBe(true);
  });

  it("verifies Django's own hashes (pbkdf2_sha256, pbkdf2_sha1, scrypt) ", async () => {
    for (const [algorithm, stored] of Object.entries(DJANGO)) {
      expect(await verifyPassword(DJANGO_PASSWORD, stored), algorithm).toBe(true);
      expect(await verifyPassword('passwörd-123', stored), algorithm).toBe(false);
      // Django hashes the UTF-8 bytes as given: the NFD spelling of the same word is another password.
      expect(await verifyPassword(DJANGO_PASSWORD.normalize('NFD'), stored), algorithm).toBe(false);
    }
  });

  it('still verifies hashes stored in the earlier encoding (scrypt$N$r$p$salt$key, NFKC)', async () => {
    // The earlier encoding (N = 2^15, r = 8, p = 1, 16-byte salt, 32-byte key) of 'new-pass-123', which the earlier
    // verifyPassword accepts.
    const earlier = 'scrypt$32768$8$1$3Bn4W7oP0Q8c0uN1k2bK9A==$YNcNLRCvSJagKkvI0eCymblct8zctqE7JCenV8E/OwM=';
    expect(await verifyPassword('new-pass-123', earlier)).toBe(true);
    expect(await verifyPassword('new-pass-124', earlier)).toBe(false);
  });

  it('refuses unusable, unknown and malformed stored hashes', async () => {
    for (const stored of [
      '',
      '!',
      '!aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5bC7d',
      'md5$salt$0123456789abcdef0123456789abcdef',
      'argon2$argon2id$v=19$m=102400,t=2,p=8$c2FsdA$aGFzaA',
      'scrypt$32768$8$1$$',
      'scrypt$3$salt$8$1$aGFzaA==',
      `scrypt$${2 ** 30}$salt$8$1$aGFzaA==`,
      'pbkdf2_sha256$0$salt$aGFzaA==',
      'pbkdf2_sha256$99999999999$salt$aGFzaA==',
      'pbkdf2_sha512$1000$salt$aGFzaA==',
    ])
      expect(await verifyPassword('x', stored), stored).toBe(false);
  });

  it(
    'the decoy for unknown usernames is a stored hash of the same parameters, made without hashing, that no ' +
      'password matches',
    async () => {
      const real = await hashPassword('new-pass-123');
      const decoy = decoyHash();
      expect(decoy).not.toBe(decoyHash());
      // The same shape as a real hash: scheme, parameters, salt and key of the same lengths, so verifying costs the
      // same.
      const shape = (h: string) =>
        h.split('$').map((part, i) => (i === 5 ? Buffer.from(part, 'base64').length : i === 2 ? part.length : part));
      expect(shape(decoy)).toEqual(shape(real));
      expect(await verifyPassword('new-pass-123', decoy)).toBe(false);
      expect(await verifyPassword('', decoy)).toBe(false);
    },
  );

  const REHASHED =
    'asks for a new hash for anything but our current scrypt (Django pbkdf2 and scrypt, the earlier encoding)';
  it(REHASHED, async () => {
    expect(needsRehash(await hashPassword('new-pass-123'))).toBe(false);
    expect(needsRehash(decoyHash())).toBe(false);
    for (const stored of Object.values(DJANGO)) expect(needsRehash(stored), stored).toBe(true);
    expect(needsRehash('scrypt$32768$8$1$3Bn4W7oP0Q8c0uN1k2bK9A==$YNcNLRCvSJagKkvI0eCymblct8zctqE7JCenV8E/OwM=')).toBe(
      true,
    );
  });
});

describe("the test suite's hashing cost (HELPDESK_PASSWORD_MIN_COST)", () => {
  afterEach(() => usePasswordCostOf({}));

  it('is the deployed cost unless the local runtime or the CLI sets 1; another value throws', async () => {
    const costOfNew = async () => (await hashPassword('new-pass-123')).split('$').slice(1, 5);
    const { N, r, p } = MIN_COST_SCRYPT_PARAMS;
    usePasswordCostOf({ HELPDESK_PASSWORD_MIN_COST: '1' });
    const cheap = await hashPassword('new-pass-123');
    expect(cheap).toMatch(new RegExp(`^scrypt\\$${N}\\$[A-Za-z0-9]{22}\\$${r}\\$${p}\\$`));
    expect(await verifyPassword('new-pass-123', cheap)).toBe(true);
    expect(needsRehash(cheap)).toBe(false);
    expect(needsRehash(decoyHash())).toBe(false);
    usePasswordCostOf({ HELPDESK_PASSWORD_MIN_COST: '0' });
    // Back at the deployed cost, which upgrades such a hash at its next sign-in.
    expect(needsRehash(cheap)).toBe(true);
    expect(await costOfNew()).toEqual(['16384', expect.any(String), '8', '2']);
    expect(() => usePasswordCostOf({ HELPDESK_PASSWORD_MIN_COST: 'yes' })).toThrow(/must be 1 or 0/);
    expect(SCRYPT_PARAMS).toEqual({ N: 16384, r: 8, p: 2 });
  });
});
