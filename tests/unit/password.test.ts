import { describe, expect, it } from 'vitest';
import { SCRYPT_PARAMS, decoyHash, hashPassword, verifyPassword } from '../../shared/domain/password';

describe('password hashing', () => {
  it('round-trips and refuses wrong passwords; salts differ', async () => {
    const [a, b] = await Promise.all([hashPassword('new-pass-123'), hashPassword('new-pass-123')]);
    expect(a).toMatch(new RegExp(`^scrypt\\$${SCRYPT_PARAMS.N}\\$${SCRYPT_PARAMS.r}\\$${SCRYPT_PARAMS.p}\\$[A-Za-z0-9+/=]+\\$[A-Za-z0-9+/=]+$`));
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

  it('refuses malformed stored hashes without hashing', async () => {
    expect(await verifyPassword('x', '')).toBe(false);
    expect(await verifyPassword('x', 'pbkdf2_sha256$1$salt$hash')).toBe(false);
    expect(await verifyPassword('x', 'scrypt$32768$8$1$$')).toBe(false);
  });

  it('the decoy for unknown usernames is a stored hash of the same parameters, made without hashing, that no password matches', async () => {
    const real = await hashPassword('new-pass-123');
    const decoy = decoyHash();
    expect(decoy).not.toBe(decoyHash());
    // The same shape as a real hash: scheme, parameters, salt and key of the same lengths, so verifying costs the same.
    const shape = (h: string) => h.split('$').map((part, i) => (i < 4 ? part : Buffer.from(part, 'base64').length));
    expect(shape(decoy)).toEqual(shape(real));
    expect(await verifyPassword('new-pass-123', decoy)).toBe(false);
    expect(await verifyPassword('', decoy)).toBe(false);
  });
});
