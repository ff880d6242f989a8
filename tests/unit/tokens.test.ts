/** API token rules (shared/domain/tokens.ts): DRF's header parsing, keys, owners, configured classes. */
import { describe, expect, it } from 'vitest';
import { NotAuthenticated, PermissionDenied, ValidationError } from '../../shared/domain/errors';
import type { User } from '../../shared/domain/records';
import {
  hashTokenKey,
  mayManageToken,
  newTokenKey,
  parseAuthenticationClasses,
  parseTokenAuthorization,
  tokenOwner,
} from '../../shared/domain/tokens';

function refused(header: string): string {
  try {
    parseTokenAuthorization(header);
  } catch (error) {
    expect(error).toBeInstanceOf(NotAuthenticated);
    return (error as NotAuthenticated).detail;
  }
  throw new Error(`accepted: ${header}`);
}

describe('parseTokenAuthorization', () => {
  it('reads "Token <key>", the scheme in any case', () => {
    expect(parseTokenAuthorization('Token abc123')).toBe('abc123');
    expect(parseTokenAuthorization('token   abc123 ')).toBe('abc123');
  });

  it('leaves other schemes and no header to the next class', () => {
    for (const header of [undefined, '', 'Basic YTpi', 'Bearer x', 'Tokens abc'])
      expect(parseTokenAuthorization(header)).toBeUndefined();
  });

  it("answers DRF's messages for a malformed Token header", () => {
    expect(refused('Token')).toBe('Invalid token header. No credentials provided.');
    expect(refused('Token a b')).toBe('Invalid token header. Token string should not contain spaces.');
    expect(refused('Token ké')).toBe('Invalid token header. Token string should not contain invalid characters.');
  });
});

describe('keys', () => {
  it('are 256 random bits in hex, never twice the same, stored as a SHA-256', () => {
    const a = newTokenKey();
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(newTokenKey()).not.toBe(a);
    expect(hashTokenKey(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashTokenKey(a)).not.toContain(a.slice(0, 8));
    expect(hashTokenKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('owners', () => {
  const staff = { username: 'ann', is_staff: true, is_superuser: false } as User;
  const root = { username: 'root', is_staff: true, is_superuser: true } as User;
  const body = (data: Record<string, unknown>) => ({ kind: 'json' as const, data, files: [] });

  it('a staff user makes tokens for itself only', () => {
    expect(tokenOwner(staff, body({}))).toBe('ann');
    expect(tokenOwner(staff, body({ user: 'ann' }))).toBe('ann');
    expect(() => tokenOwner(staff, body({ user: 'bob' }))).toThrow(PermissionDenied);
  });

  it('a superuser for anyone', () => {
    expect(tokenOwner(root, body({ user: 'bob' }))).toBe('bob');
    expect(tokenOwner(root, body({}))).toBe('root');
  });

  it('refuses a user that is not a string', () => {
    expect(() => tokenOwner(root, body({ user: ['x'] }))).toThrow(ValidationError);
  });

  it('manages: own tokens for staff, all for superusers', () => {
    expect(mayManageToken(staff, { user: 'ann' })).toBe(true);
    expect(mayManageToken(staff, { user: 'bob' })).toBe(false);
    expect(mayManageToken(root, { user: 'bob' })).toBe(true);
  });
});

describe('parseAuthenticationClasses', () => {
  it('defaults to basic', () => {
    expect(parseAuthenticationClasses(undefined)).toEqual(['basic']);
    expect(parseAuthenticationClasses(' ')).toEqual(['basic']);
  });

  it('keeps the order given, any case, with spaces', () => {
    expect(parseAuthenticationClasses('basic,token')).toEqual(['basic', 'token']);
    expect(parseAuthenticationClasses(' Token , BASIC ')).toEqual(['token', 'basic']);
    expect(parseAuthenticationClasses('token')).toEqual(['token']);
  });

  it('refuses unknown and repeated classes', () => {
    expect(() => parseAuthenticationClasses('basic,session')).toThrow('unknown class "session"');
    expect(() => parseAuthenticationClasses('basic,,token')).toThrow('unknown class ""');
    expect(() => parseAuthenticationClasses('token,token')).toThrow('twice');
  });
});
