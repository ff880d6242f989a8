/**
 * Access tokens for an IMAP mailbox that signs in with OAuth 2.0 (SASL XOAUTH2, which imapflow
 * speaks given `auth: { user, accessToken }`), as upstream's `oauth` mailbox type:
 *
 * - Microsoft Entra ID, client credentials: the app's client secret, or a client assertion (a JWT
 *   signed with the certificate's key, RS256, `x5t` the certificate's SHA-1 thumbprint), for the
 *   scope `https://outlook.office365.com/.default` (the app holds `IMAP.AccessAsApp`).
 * - A Google service account with domain-wide delegation: a JWT signed with its key, `sub` the
 *   mailbox's user, for the scope `https://mail.google.com/` (RFC 7523's jwt-bearer grant).
 * - A Google user's refresh token (where the organisation forbids service-account keys).
 *
 * A token is kept until 5 minutes before it expires, then renewed; one refused by the IMAP server
 * is dropped at once. A token endpoint's refusal is a SignInRefused with its words, which the
 * poller records as a mail problem (alarmed) rather than failing the run.
 */
import { createHash, createPrivateKey, randomUUID, X509Certificate } from 'node:crypto';
import { SignJWT } from 'jose';
import { GMAIL_SCOPE, OUTLOOK_IMAP_SCOPE, type OAuthCredentials } from '../domain/imap-oauth';

/** How long before its expiry a token is renewed. */
export const RENEW_EARLY_MS = 5 * 60_000;
const REQUEST_TIMEOUT_MS = 15_000;

/** The token endpoint (or the IMAP server) refused the credentials: a setting to fix, not an outage. */
export class SignInRefused extends Error {}

export interface TokenSource {
  token(): Promise<string>;
  /** Forgets the token (the IMAP server refused it): the next use asks for a new one. */
  invalidate(): void;
}

export interface TokenSourceOptions {
  /** The clock (epoch ms): tests move it on to reach a renewal. */
  now?: () => number;
}

/** The certificate's SHA-1 thumbprint, base64url: the `x5t` Entra ID finds the app's certificate by. */
function thumbprint(pem: string): string {
  return createHash('sha1').update(new X509Certificate(pem).raw).digest('base64url');
}

async function assertion(credentials: OAuthCredentials, user: string, nowMs: number): Promise<Record<string, string>> {
  const iat = Math.floor(nowMs / 1000);
  if (credentials.kind === 'google-service-account') {
    const jwt = await new SignJWT({ scope: GMAIL_SCOPE })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...(credentials.keyId ? { kid: credentials.keyId } : {}) })
      .setIssuer(credentials.clientEmail)
      .setSubject(user)
      .setAudience(credentials.tokenUrl)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .sign(createPrivateKey(credentials.privateKey));
    return { grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: jwt };
  }
  if (credentials.kind === 'google-refresh-token') {
    return {
      grant_type: 'refresh_token',
      client_id: credentials.clientId,
      client_secret: credentials.clientSecret,
      refresh_token: credentials.refreshToken,
    };
  }
  const common = { grant_type: 'client_credentials', client_id: credentials.clientId, scope: OUTLOOK_IMAP_SCOPE };
  if (credentials.clientSecret) return { ...common, client_secret: credentials.clientSecret };
  const jwt = await new SignJWT({})
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', x5t: thumbprint(credentials.certificate!) })
    .setIssuer(credentials.clientId)
    .setSubject(credentials.clientId)
    .setAudience(credentials.tokenUrl)
    .setJti(randomUUID())
    .setIssuedAt(iat)
    .setNotBefore(iat)
    .setExpirationTime(iat + 600)
    .sign(createPrivateKey(credentials.privateKey!));
  return {
    ...common,
    client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    client_assertion: jwt,
  };
}

/** One token request; a refusal (4xx, or an answer without a token) is a SignInRefused with the endpoint's words. */
async function requestToken(
  credentials: OAuthCredentials,
  user: string,
  nowMs: number,
): Promise<{ token: string; expiresAt: number }> {
  const host = new URL(credentials.tokenUrl).host;
  const response = await fetch(credentials.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(await assertion(credentials, user, nowMs)),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (response.status >= 500) throw new Error(`the token endpoint ${host} answered ${response.status}`);
  if (!response.ok || typeof body.access_token !== 'string' || !body.access_token) {
    const said = [body.error, body.error_description].filter((s) => typeof s === 'string').join(': ');
    throw new SignInRefused(
      `the token endpoint ${host} refused ${credentials.kind} credentials for ${user}: ` +
        `${response.status}${said ? ` ${said}` : ' (no access_token)'}`,
    );
  }
  const lifetime = typeof body.expires_in === 'number' ? body.expires_in : Number(body.expires_in ?? 3600);
  return { token: body.access_token, expiresAt: nowMs + (Number.isFinite(lifetime) ? lifetime : 3600) * 1000 };
}

/** A cached, renewing source of access tokens for `user`'s mailbox. */
export function tokenSource(
  credentials: OAuthCredentials,
  user: string,
  options: TokenSourceOptions = {},
): TokenSource {
  const now = options.now ?? Date.now;
  let cached: { token: string; expiresAt: number } | undefined;
  let pending: Promise<string> | undefined;
  return {
    token() {
      if (cached && now() < cached.expiresAt - RENEW_EARLY_MS) return Promise.resolve(cached.token);
      return (pending ??= requestToken(credentials, user, now())
        .then((fresh) => {
          cached = fresh;
          return fresh.token;
        })
        .finally(() => {
          pending = undefined;
        }));
    },
    invalidate() {
      cached = undefined;
    },
  };
}
