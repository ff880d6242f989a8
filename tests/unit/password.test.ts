import { describe, expect, it } from 'vitest';
import { SCRYPT_PARAMS, hashPassword, verifyPassword } from '../../shared/domain/password';

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
});
