/**
 * OpenID Connect bearer tokens against a real OpenID Connect issuer on loopback (oauth2-mock-server:
 * discovery document, JWKS, RS256 keys it signs with), on a runtime of its own with
 * HELPDESK_AUTHENTICATION_CLASSES=basic,oidc. Every refusal is 401 `{"detail"}` with a
 * `WWW-Authenticate: Bearer error="invalid_token"` header saying why.
 */
import { createHmac, createPublicKey, generateKeyPairSync, type JsonWebKey } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { OAuth2Server } from 'oauth2-mock-server';
import { SignJWT, type JWK } from 'jose';
import { unique, type Reply } from './client';
import { useOwnRuntime } from './own-runtime';
import { onSharedEngines } from './shared-engines';
import { spawnApiRuntime } from './spawn-runtime';

const AUDIENCE = 'helpdesk-api';
const issuerServer = new OAuth2Server();
await issuerServer.issuer.keys.generate('RS256', { kid: 'first' });
await issuerServer.start(0, '127.0.0.1');
const ISSUER = issuerServer.issuer.url!;
afterAll(() => issuerServer.stop());

const own = useOwnRuntime({
  HELPDESK_AUTHENTICATION_CLASSES: 'basic,oidc',
  HELPDESK_OIDC_ISSUER: ISSUER,
  HELPDESK_OIDC_AUDIENCE: AUDIENCE,
  HELPDESK_OIDC_CREATE_USERS: 'true',
  HELPDESK_OIDC_STAFF_GROUP: 'helpdesk-staff',
  // An unknown kid may fetch the JWKS again a second after the last fetch (60 s in production).
  HELPDESK_OIDC_JWKS_REFETCH_SECONDS: '1',
});

const now = () => Math.floor(Date.now() / 1000);

/** A token from the issuer: its own `iss`, `iat`, `exp`, signed with `kid`'s key; `claims` added or replaced. */
function token(claims: Record<string, unknown>, kid = 'first'): Promise<string> {
  return issuerServer.issuer.buildToken({
    kid,
    scopesOrTransform: (_header, payload) => Object.assign(payload, { aud: AUDIENCE, sub: unique('sub'), ...claims }),
  });
}

const me = (jwt: string) => own.api.call('GET', '/api/users/me/', { auth: `Bearer ${jwt}` });

function expectRefused(reply: Reply, detail: string): void {
  expect(reply.status, reply.text).toBe(401);
  expect(reply.body).toEqual({ detail });
  expect(reply.headers.get('www-authenticate')).toBe(
    `Bearer realm="api", error="invalid_token", error_description="${detail}"`,
  );
}

const b64url = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

describe('a valid token', () => {
  it(
    'signs in a new user (created, staff by the groups claim) and the same user again by (iss, sub)',
    { timeout: 120_000 },
    async () => {
      const sub = unique('staff');
      const first = await me(
        await token({
          sub,
          preferred_username: sub,
          email: `${sub}@corp.example`,
          email_verified: true,
          groups: ['helpdesk-staff'],
        }),
      );
      expect(first.status, first.text).toBe(200);
      expect(first.body).toMatchObject({
        username: sub,
        email: `${sub}@corp.example`,
        is_staff: true,
        is_superuser: false,
        is_active: true,
      });
      // Staff: the staff routes open to the token.
      const tickets = await own.api.call('GET', '/api/tickets/?page_size=1', {
        auth: `Bearer ${await token({ sub })}`,
      });
      expect(tickets.status).toBe(200);
      // Bound by issuer and subject: a later token with another address is the same user.
      const again = await me(await token({ sub, email: 'someone.else@corp.example', email_verified: true }));
      expect(again.body.id).toBe(first.body.id);
      // Out of the staff group: no longer staff (a token without a groups claim leaves the flag alone).
      const demoted = await me(await token({ sub, groups: ['other'] }));
      expect(demoted.body.is_staff).toBe(false);
      expect(
        (await own.api.call('GET', '/api/tickets/', { auth: `Bearer ${await token({ sub, groups: [] })}` })).status,
      ).toBe(403);
    },
  );

  it(
    'a first sign-in links the one user with the verified address (any case), never by an unverified one',
    { timeout: 60_000 },
    async () => {
      const existing = await own.api.createUser({ email: `${unique('Ann')}@Example.com` });
      const unverified = await me(await token({ email: existing.email, email_verified: false }));
      expect(unverified.status).toBe(200);
      expect(unverified.body.username).not.toBe(existing.username); // a new user, not the existing one
      const sub = unique('ann');
      const linked = await me(await token({ sub, email: existing.email.toLowerCase(), email_verified: true }));
      expect(linked.status, linked.text).toBe(200);
      expect(linked.body.username).toBe(existing.username);
      expect((await me(await token({ sub }))).body.username).toBe(existing.username);
    },
  );

  it('a verified address two users share is refused, not guessed', { timeout: 60_000 }, async () => {
    const email = `${unique('Lee')}@Example.com`;
    await own.api.createUser({ email });
    await own.api.createUser({ email: email.toLowerCase() });
    expectRefused(
      await me(await token({ sub: unique('lee'), email, email_verified: true })),
      'More than one user has this e-mail address; an operator must link one.',
    );
  });

  it('Entra ID: the `oid` claim, not the per-app `sub`, names the user', { timeout: 60_000 }, async () => {
    const oid = unique('oid');
    const one = await me(await token({ oid, sub: unique('app1') }));
    const two = await me(await token({ oid, sub: unique('app2') }));
    expect(one.status).toBe(200);
    expect(two.body.id).toBe(one.body.id);
  });

  it('exp and nbf have 60 s of skew', { timeout: 60_000 }, async () => {
    expect((await me(await token({ exp: now() - 30 }))).status).toBe(200);
    expect((await me(await token({ nbf: now() + 30 }))).status).toBe(200);
    expectRefused(await me(await token({ nbf: now() + 300 })), 'Token is not valid yet.');
  });
});

describe('refused tokens', () => {
  it('expired, wrong audience, wrong issuer, tampered', { timeout: 60_000 }, async () => {
    expectRefused(await me(await token({ exp: now() - 120 })), 'Token has expired.');
    expectRefused(await me(await token({ aud: 'another-api' })), 'Token was issued for another audience.');
    expectRefused(await me(await token({ iss: 'http://127.0.0.1:1/evil' })), 'Token was issued by another issuer.');
    const [header, payload, signature] = (await token({ groups: [] })).split('.');
    const raised = b64url({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), groups: ['helpdesk-staff'] });
    expectRefused(await me(`${header}.${raised}.${signature}`), 'Token signature is invalid.');
  });

  it('alg none, and HS256 signed with the public key', { timeout: 60_000 }, async () => {
    const claims = { iss: ISSUER, aud: AUDIENCE, sub: unique('none'), iat: now(), exp: now() + 600 };
    expectRefused(
      await me(`${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}.`),
      'Token algorithm is not allowed.',
    );
    const jwks = (await (await fetch(`${ISSUER}/jwks`)).json()) as { keys: JWK[] };
    const pem = createPublicKey({ key: jwks.keys.find((k) => k.kid === 'first') as JsonWebKey, format: 'jwk' }).export({
      type: 'spki',
      format: 'pem',
    });
    const unsigned = `${b64url({ alg: 'HS256', typ: 'JWT', kid: 'first' })}.${b64url(claims)}`;
    const mac = createHmac('sha256', pem).update(unsigned).digest('base64url');
    expectRefused(await me(`${unsigned}.${mac}`), 'Token algorithm is not allowed.');
    // Malformed headers are refused before any verification.
    expectRefused(await me('not-a-jwt'), 'Invalid bearer header. The token is not a JWT.');
  });

  it(
    'a key the issuer does not publish is unknown; a rotated-in key is fetched again and accepted',
    { timeout: 60_000 },
    async () => {
      expect((await me(await token({}))).status).toBe(200); // the JWKS with `first` is cached now
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const forged = await new SignJWT({ sub: unique('ghost') })
        .setProtectedHeader({ alg: 'RS256', kid: 'ghost' })
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey);
      expectRefused(await me(forged), 'Token was signed with an unknown key.');

      await issuerServer.issuer.keys.generate('RS256', { kid: 'second' });
      const rotated = await token({}, 'second');
      // Fetched again once the refetch interval (1 s here) has passed since the last fetch.
      await expect.poll(async () => (await me(rotated)).status, { timeout: 15_000, interval: 300 }).toBe(200);
    },
  );

  it(
    'a deactivated user is refused at once; without credentials the challenge names Basic, the first class',
    { timeout: 60_000 },
    async () => {
      const sub = unique('leaver');
      const signedIn = await me(await token({ sub }));
      expect(signedIn.status).toBe(200);
      const off = await own.api.call('PATCH', `/api/users/${signedIn.body.id}/`, { json: { is_active: false } });
      expect(off.status).toBe(200);
      expectRefused(await me(await token({ sub })), 'User inactive or deleted.');
      const none = await own.api.call('GET', '/api/users/me/', { auth: null });
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toBe('Basic realm="api"');
    },
  );
});

describe('settings', () => {
  /** The runtime's failure to start, or undefined when it started. */
  const startFailure = (env: Record<string, string>) =>
    spawnApiRuntime({ ...onSharedEngines(), ...env }).then(
      async (runtime) => {
        await runtime.stop();
        return undefined;
      },
      (error: Error) => error.message,
    );

  it.each([
    [
      { HELPDESK_AUTHENTICATION_CLASSES: 'basic,bogus' },
      'HELPDESK_AUTHENTICATION_CLASSES: unknown class "bogus" (known: basic, token, oidc)',
    ],
    [{ HELPDESK_AUTHENTICATION_CLASSES: 'oidc' }, 'HELPDESK_OIDC_ISSUER is not set'],
    [
      {
        HELPDESK_AUTHENTICATION_CLASSES: 'oidc',
        HELPDESK_OIDC_ISSUER: 'http://idp.example.com',
        HELPDESK_OIDC_AUDIENCE: 'x',
      },
      'HELPDESK_OIDC_ISSUER "http://idp.example.com" must be https (http only on a loopback address)',
    ],
  ])('refuses to start with %o, saying why', { timeout: 120_000 }, async (env, message) => {
    expect(await startFailure(env)).toContain(message);
  });
});
