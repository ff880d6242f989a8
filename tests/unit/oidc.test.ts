/** The OpenID Connect rules that need no issuer: settings, the header, Cognito mode, identity and staff. */
import { describe, expect, it } from 'vitest';
import {
  identityOf,
  modeRefusal,
  parseBearerAuthorization,
  parseOidcSettings,
  staffByGroups,
  verifiedEmail,
} from '../../shared/domain/oidc';

const BASE = { HELPDESK_OIDC_ISSUER: 'https://idp.example.com', HELPDESK_OIDC_AUDIENCE: 'api' };

describe('settings', () => {
  it('https, or http on loopback only; an audience; a known mode', () => {
    expect(parseOidcSettings(BASE)).toMatchObject({
      issuer: 'https://idp.example.com',
      mode: 'standard',
      groupsClaim: 'groups',
      createUsers: false,
      jwksRefetchMs: 60_000,
    });
    expect(parseOidcSettings({ ...BASE, HELPDESK_OIDC_ISSUER: 'http://127.0.0.1:8080' }).issuer).toBe(
      'http://127.0.0.1:8080',
    );
    expect(parseOidcSettings({ ...BASE, HELPDESK_OIDC_ISSUER: 'http://[::1]:8080' }).issuer).toBe('http://[::1]:8080');
    expect(() => parseOidcSettings({ ...BASE, HELPDESK_OIDC_ISSUER: 'http://idp.example.com' })).toThrow(
      'must be https',
    );
    expect(() => parseOidcSettings({ HELPDESK_OIDC_ISSUER: 'https://idp.example.com' })).toThrow('AUDIENCE is not set');
    expect(() => parseOidcSettings({ ...BASE, HELPDESK_OIDC_MODE: 'saml' })).toThrow('MODE "saml"');
    expect(() => parseOidcSettings({ ...BASE, HELPDESK_OIDC_CREATE_USERS: 'yes' })).toThrow('CREATE_USERS');
    expect(parseOidcSettings({ ...BASE, HELPDESK_OIDC_MODE: 'cognito' }).groupsClaim).toBe('cognito:groups');
  });
});

describe('the header', () => {
  it("is another scheme's, one JWT, or refused with a Bearer challenge", () => {
    expect(parseBearerAuthorization(undefined)).toBeUndefined();
    expect(parseBearerAuthorization('Basic abc')).toBeUndefined();
    expect(parseBearerAuthorization('bearer a.b.c')).toBe('a.b.c');
    expect(() => parseBearerAuthorization('Bearer a.b.c d')).toThrow('Expected one token');
    const refusal = (() => {
      try {
        parseBearerAuthorization('Bearer');
      } catch (error) {
        return error as { headers: Record<string, string> };
      }
    })();
    expect(refusal?.headers['WWW-Authenticate']).toMatch(/^Bearer realm="api", error="invalid_token"/);
  });
});

describe('claims', () => {
  const cognito = parseOidcSettings({ ...BASE, HELPDESK_OIDC_MODE: 'cognito', HELPDESK_OIDC_STAFF_GROUP: 'staff' });
  it('Cognito mode: an access token for our client only', () => {
    expect(modeRefusal({ token_use: 'access', client_id: 'api' }, cognito)).toBeUndefined();
    expect(modeRefusal({ token_use: 'id', aud: 'api' }, cognito)).toMatch(/not an access token/);
    expect(modeRefusal({ token_use: 'access', client_id: 'other' }, cognito)).toMatch(/another client/);
    expect(modeRefusal({}, parseOidcSettings(BASE))).toBeUndefined();
  });

  it("identity by iss and sub, or Entra's oid; a verified address only; staff by the groups claim", () => {
    expect(identityOf({ iss: 'i', sub: 's' })).toEqual({ issuer: 'i', subject: 's' });
    expect(identityOf({ iss: 'i', sub: 's', oid: 'o' })).toEqual({ issuer: 'i', subject: 'o' });
    expect(identityOf({ iss: 'i' })).toBeUndefined();
    expect(verifiedEmail({ email: 'a@b.c', email_verified: true })).toBe('a@b.c');
    expect(verifiedEmail({ email: 'a@b.c' })).toBeUndefined();
    expect(staffByGroups({ 'cognito:groups': ['staff'] }, cognito)).toBe(true);
    expect(staffByGroups({ 'cognito:groups': [] }, cognito)).toBe(false);
    expect(staffByGroups({}, cognito)).toBeUndefined();
    expect(staffByGroups({ groups: ['staff'] }, parseOidcSettings(BASE))).toBeUndefined();
  });
});
