/**
 * OpenID Connect bearer tokens, verified with jose (no hand-written crypto), the same code locally and
 * on AWS. The issuer's discovery document is read once per process; its JWKS is cached by jose and
 * fetched again for an unknown `kid` at most once per HELPDESK_OIDC_JWKS_REFETCH_SECONDS (60 s).
 *
 * A verified token names a user by its issuer and subject (`oid` for Entra ID), bound once
 * (store/identities.ts): one GetItem of the binding and one of the user per request, no cache, so a
 * deactivation holds at once. A first sign-in binds the one user whose address equals the token's
 * verified `email` (any case), or creates a user when HELPDESK_OIDC_CREATE_USERS=true.
 */
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import { ServiceUnavailable } from '../domain/errors';
import {
  CLOCK_SKEW_SECONDS,
  OIDC_ALGORITHMS,
  UNUSABLE_PASSWORD,
  identityOf,
  invalidBearer,
  modeRefusal,
  staffByGroups,
  usernameFor,
  verifiedEmail,
  withStaffFromGroups,
  type OidcSettings,
} from '../domain/oidc';
import { storedDateTime } from '../domain/datetime';
import { isLoopback } from '../domain/mail-in-imap';
import type { User } from '../domain/records';
import { config } from '../config';
import { logger } from '../observability';
import { bindIdentity, boundUsername } from '../store/identities';
import { DuplicateUsername, createUser, findUserByUsername, listUsers, saveUser } from '../store/users';

type KeySet = ReturnType<typeof createRemoteJWKSet>;

const DISCOVERY_TIMEOUT_MS = 5_000;
let keySet: Promise<KeySet> | undefined;

/** Reads the discovery document (its `issuer` must be ours exactly) and makes the cached JWKS of its `jwks_uri`. */
async function discover(settings: OidcSettings): Promise<KeySet> {
  const url = `${settings.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
  let document: { issuer?: unknown; jwks_uri?: unknown };
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS), redirect: 'error' });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    document = (await response.json()) as typeof document;
  } catch (error) {
    logger.warn('OIDC discovery failed', { url, error: error instanceof Error ? error.message : String(error) });
    throw new ServiceUnavailable();
  }
  if (document.issuer !== settings.issuer || typeof document.jwks_uri !== 'string') {
    logger.error('OIDC discovery document does not name this issuer, or has no jwks_uri', {
      url,
      issuer: String(document.issuer),
    });
    throw new ServiceUnavailable();
  }
  const jwksUri = new URL(document.jwks_uri);
  if (jwksUri.protocol !== 'https:' && !(jwksUri.protocol === 'http:' && isLoopback(jwksUri.hostname))) {
    logger.error('OIDC jwks_uri is not https', { jwksUri: jwksUri.href });
    throw new ServiceUnavailable();
  }
  return createRemoteJWKSet(jwksUri, {
    cooldownDuration: settings.jwksRefetchMs,
    timeoutDuration: DISCOVERY_TIMEOUT_MS,
  });
}

function keysOf(settings: OidcSettings): Promise<KeySet> {
  if (!keySet) {
    const pending = (keySet = discover(settings));
    // A failed discovery is not kept: the next request tries again.
    pending.catch(() => keySet === pending && (keySet = undefined));
  }
  return keySet;
}

/** jose's failures as the 401's description (never the token's content). */
function refusal(error: unknown): Error {
  if (error instanceof errors.JWTExpired) return invalidBearer('Token has expired.');
  if (error instanceof errors.JWTClaimValidationFailed) {
    const what: Record<string, string> = {
      aud: 'Token was issued for another audience.',
      iss: 'Token was issued by another issuer.',
      nbf: 'Token is not valid yet.',
    };
    return invalidBearer(what[error.claim] ?? `Token claim ${error.claim} is missing or invalid.`);
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return invalidBearer('Token algorithm is not allowed.');
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys)
    return invalidBearer('Token was signed with an unknown key.');
  if (error instanceof errors.JWSSignatureVerificationFailed) return invalidBearer('Token signature is invalid.');
  if (error instanceof errors.JWKSTimeout) return new ServiceUnavailable();
  if (error instanceof errors.JOSEError) return invalidBearer('Token is malformed.');
  return error as Error;
}

/** The user a first sign-in binds: the one with the verified address, or (when allowed) a new one. */
async function firstSignIn(claims: JWTPayload, issuer: string, subject: string, settings: OidcSettings): Promise<User> {
  const email = verifiedEmail(claims);
  if (email) {
    const matches = (await listUsers()).filter((u) => u.email.toLowerCase() === email.toLowerCase());
    if (matches.length === 1) {
      const bound = await bindIdentity(issuer, subject, matches[0]!.username);
      const user = await findUserByUsername(bound);
      if (user) return user;
    }
    if (matches.length > 1)
      throw invalidBearer('More than one user has this e-mail address; an operator must link one.');
  }
  if (!settings.createUsers) throw invalidBearer('No user is linked to this identity.');
  const base = usernameFor(claims, subject);
  for (let attempt = 0; ; attempt++) {
    const username = attempt === 0 ? base : `${base.slice(0, 140)}-${attempt + 1}`;
    try {
      const created = await createUser({
        username,
        first_name: typeof claims.given_name === 'string' ? claims.given_name.slice(0, 150) : '',
        last_name: typeof claims.family_name === 'string' ? claims.family_name.slice(0, 150) : '',
        email: email ?? '',
        is_staff: staffByGroups(claims, settings) ?? false,
        is_superuser: false,
        is_active: true,
        password_hash: UNUSABLE_PASSWORD,
        date_joined: storedDateTime(new Date()),
      });
      const bound = await bindIdentity(issuer, subject, created.username);
      return bound === created.username ? created : ((await findUserByUsername(bound)) ?? created);
    } catch (error) {
      if (!(error instanceof DuplicateUsername) || attempt >= 9) throw error;
    }
  }
}

/** Verifies a bearer JWT and answers its user; 401 (InvalidBearer) with the reason otherwise. */
export async function verifyBearer(jwt: string): Promise<User> {
  const settings = config.oidc;
  const keys = await keysOf(settings);
  let claims: JWTPayload;
  try {
    ({ payload: claims } = await jwtVerify(jwt, keys, {
      issuer: settings.issuer,
      ...(settings.mode === 'standard' ? { audience: settings.audience } : {}),
      algorithms: OIDC_ALGORITHMS,
      clockTolerance: CLOCK_SKEW_SECONDS,
      requiredClaims: ['exp'],
    }));
  } catch (error) {
    throw refusal(error);
  }
  const refused = modeRefusal(claims, settings);
  if (refused) throw invalidBearer(refused);
  const identity = identityOf(claims);
  if (!identity) throw invalidBearer('Token names no subject.');
  const username = await boundUsername(identity.issuer, identity.subject);
  let user =
    (username && (await findUserByUsername(username))) ||
    (await firstSignIn(claims, identity.issuer, identity.subject, settings));
  if (!user.is_active) throw invalidBearer('User inactive or deleted.');
  const changed = withStaffFromGroups(user, staffByGroups(claims, settings));
  if (changed) await saveUser((user = changed));
  return user;
}

/** Test hook: forget the discovered key set (a test that restarts its issuer). */
export function forgetOidcKeys(): void {
  keySet = undefined;
}
