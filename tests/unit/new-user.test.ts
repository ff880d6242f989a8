import { describe, expect, it } from 'vitest';
import { verifyPassword } from '../../shared/domain/password';
import { newUserRecord } from '../../shared/domain/user';

describe('newUserRecord', () => {
  it(
    'makes an active user joined now, its password hashed, with the role asked ' + 'for (a plain user by default)',
    async () => {
      const before = Date.now();
      const user = await newUserRecord(
        { username: 'ann', email: 'ann@example.com', first_name: 'Ann' },
        'a-long-password',
      );
      expect(user).toMatchObject({
        username: 'ann',
        email: 'ann@example.com',
        first_name: 'Ann',
        last_name: '',
        is_active: true,
        is_staff: false,
        is_superuser: false,
      });
      expect(user.password_hash).not.toContain('a-long-password');
      expect(await verifyPassword('a-long-password', user.password_hash)).toBe(true);
      expect(Date.parse(user.date_joined)).toBeGreaterThanOrEqual(before - 1000);
      expect(await newUserRecord({ username: 's', email: '' }, 'a-long-password', 'staff')).toMatchObject({
        is_staff: true,
        is_superuser: false,
      });
      expect(await newUserRecord({ username: 'r', email: '' }, 'a-long-password', 'superuser')).toMatchObject({
        is_staff: true,
        is_superuser: true,
      });
    },
  );
});
