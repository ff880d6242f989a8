/**
 * OpenID Connect bearer tokens (HELPDESK_AUTHENTICATION_CLASSES `oidc`): the settings, the header,
 * and the rules applied to a token's claims once its signature, issuer, audience and times have been
 * verified (middleware/oidc.ts, with jose). Pure: no network, no store.
 */
import { NotAuthenticated } from './errors';
import { isLoopback } from './mail-in-imap';
import type { User } from './records';

/** Standard OIDC (`aud` holds the audience) or Cognito access tokens (`client_id`, `token_use`). */
export type OidcMode = 'standard' | 'cognito';

export interface OidcSettings {
  /** The issuer exactly as tokens name it (`iss`) and as its discovery document states. */
  issuer: string;
  /** The audience (`aud`), or in Cognito mode the app client id (`client_id`). */
  audience: string;
  mode: OidcMode;
  /** Create a user on a first sign-in that links to none (HELPDESK_OIDC_CREATE_USERS=true). */
  createUsers: boolean;
  /** The claim listing the user's groups (default `groups`; Cognito: `cognito:groups`). */
  groupsClaim: string;
  /** Members of this group are staff (and others not, superusers aside); unset: staff is not managed. */
  staffGroup: string | undefined;
  /** How long after a JWKS fetch an unknown `kid` may fetch it again (default 60 s). */
  jwksRefetchMs: number;
}

/** Asymmetric JWS algorithms only: `none` and HMAC (whose key would be the public key) are refused. */
export const OIDC_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

/** Seconds of clock skew allowed on `exp` and `nbf`. */
export const CLOCK_SKEW_SECONDS = 60;

type Env = Record<string, string | undefined>;

const fail = (message: string) => new Error(`HELPDESK_OIDC_${message}`);

/**
 * The OIDC settings, or an Error naming the one that is wrong: the issuer must be https (http only
 * on a loopback address, for the local runtime and tests) and the audience set.
 */
export function parseOidcSettings(env: Env): OidcSettings {
  const issuer = env.HELPDESK_OIDC_ISSUER?.trim();
  if (!issuer) throw fail('ISSUER is not set (the `oidc` authentication class needs it)');
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw fail(`ISSUER "${issuer}" is not a URL`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname.replace(/^\[|\]$/g, '')))) {
    throw fail(`ISSUER "${issuer}" must be https (http only on a loopback address)`);
  }
  const audience = env.HELPDESK_OIDC_AUDIENCE?.trim();
  if (!audience) throw fail('AUDIENCE is not set (the client id tokens are issued for)');
  const mode = env.HELPDESK_OIDC_MODE?.trim() || 'standard';
  if (mode !== 'standard' && mode !== 'cognito') throw fail(`MODE "${mode}" is neither standard nor cognito`);
  const createUsers = env.HELPDESK_OIDC_CREATE_USERS?.trim() || 'false';
  if (createUsers !== 'true' && createUsers !== 'false') throw fail('CREATE_USERS must be true or false');
  const refetch = env.HELPDESK_OIDC_JWKS_REFETCH_SECONDS?.trim() || '60';
  if (!/^\d{1,5}$/.test(refetch)) throw fail('JWKS_REFETCH_SECONDS must be a whole number of seconds');
  return {
    issuer,
    audience,
    mode,
    createUsers: createUsers === 'true',
    groupsClaim: env.HELPDESK_OIDC_GROUPS_CLAIM?.trim() || (mode === 'cognito' ? 'cognito:groups' : 'groups'),
    staffGroup: env.HELPDESK_OIDC_STAFF_GROUP?.trim() || undefined,
    jwksRefetchMs: Number(refetch) * 1000,
  };
}

/**
 * A bearer token refused: 401 `{"detail": ...}` with `WWW-Authenticate: Bearer error="invalid_token",
 * error_description="..."` (RFC 6750), whichever class comes first in the setting.
 */
export class InvalidBearer extends NotAuthenticated {
  constructor(description: string) {
    super(
      description,
      `Bearer realm="api", error="invalid_token", error_description="${description.replace(/["\\]/g, '')}"`,
    );
  }
}

export const invalidBearer = (description: string) => new InvalidBearer(description);

/** The challenge when no bearer token was sent and `oidc` is the first class (RFC 6750: no error code). */
export const BEARER_CHALLENGE = 'Bearer realm="api"';

/**
 * Reads `Authorization: Bearer <jwt>`: undefined when absent or another scheme; 401 when the scheme
 * is Bearer but the rest is not one compact JWS (three base64url parts).
 */
export function parseBearerAuthorization(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const parts = value.trim().split(/\s+/);
  if (parts[0]!.toLowerCase() !== 'bearer') return undefined;
  if (parts.length !== 2) throw invalidBearer('Invalid bearer header. Expected one token.');
  if (!/^[\w-]+\.[\w-]*\.[\w-]*$/.test(parts[1]!))
    throw invalidBearer('Invalid bearer header. The token is not a JWT.');
  return parts[1];
}

export type Claims = Record<string, unknown>;

/**
 * Checks that jose cannot: in Cognito mode an access token (`token_use`) for our app client
 * (`client_id`; Cognito access tokens carry no `aud`). Returns a refusal message, or undefined.
 */
export function modeRefusal(claims: Claims, settings: OidcSettings): string | undefined {
  if (settings.mode !== 'cognito') return undefined;
  if (claims.token_use !== 'access') return 'Token is not an access token (token_use).';
  if (claims.client_id !== settings.audience) return 'Token was issued for another client (client_id).';
  return undefined;
}

/**
 * Who the token names: its issuer and subject, Entra ID's `oid` (the user's object id, the same in
 * every app) where present rather than its per-app `sub`. Never the e-mail address.
 */
export function identityOf(claims: Claims): { issuer: string; subject: string } | undefined {
  const subject = typeof claims.oid === 'string' && claims.oid ? claims.oid : claims.sub;
  if (typeof claims.iss !== 'string' || typeof subject !== 'string' || !subject) return undefined;
  return { issuer: claims.iss, subject };
}

/** The address a first sign-in may link by: only one the provider says it verified. */
export function verifiedEmail(claims: Claims): string | undefined {
  const verified = claims.email_verified === true || claims.email_verified === 'true';
  return verified && typeof claims.email === 'string' && claims.email.includes('@') ? claims.email.trim() : undefined;
}

/**
 * Whether the groups claim names the staff group; undefined (leave the flag as it is) when no staff
 * group is configured or the token has no groups claim (some providers put it in some tokens only).
 */
export function staffByGroups(claims: Claims, settings: OidcSettings): boolean | undefined {
  const groups = claims[settings.groupsClaim];
  if (!settings.staffGroup || groups === undefined) return undefined;
  return Array.isArray(groups) ? groups.includes(settings.staffGroup) : groups === settings.staffGroup;
}

/**
 * A username for a user created at first sign-in: the provider's preferred name, else the address, else the subject.
 */
export function usernameFor(claims: Claims, subject: string): string {
  const wanted = [claims.preferred_username, claims.email, claims.username, subject].find(
    (v) => typeof v === 'string' && v,
  ) as string;
  const cleaned = wanted.replace(/[^\p{L}\p{M}\p{N}_.@+-]/gu, '_').slice(0, 140);
  return cleaned || 'oidc-user';
}

/** Django's unusable password: no password ever matches it (the user signs in through the provider). */
export const UNUSABLE_PASSWORD = '!';

/** A user that staff-by-groups would change: superusers are left alone. */
export function withStaffFromGroups(user: User, staff: boolean | undefined): User | undefined {
  if (staff === undefined || user.is_superuser || user.is_staff === staff) return undefined;
  return { ...user, is_staff: staff };
}
