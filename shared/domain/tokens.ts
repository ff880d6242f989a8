/**
 * API tokens (DRF's TokenAuthentication): `Authorization: Token <key>`, with DRF's messages. A key
 * is 32 random bytes in hex (256 bits); only its SHA-256 is stored (a fast hash is enough for a key
 * that cannot be guessed, and lets the store find it by key), so a key is shown once, at creation.
 * Lists show an id, the first characters of the key and who owns it, never the key.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { ParsedBody } from './body';
import { NotAuthenticated, PermissionDenied, ValidationError } from './errors';
import { textField, validateFields } from './fields';
import { wireDateTime } from './datetime';
import type { User } from './records';

export const TOKEN_BYTES = 32;
/** How many leading characters of a key lists show, so that owners can tell their tokens apart. */
export const TOKEN_PREFIX_LENGTH = 8;

export const TOKEN_MESSAGES = {
  noCredentials: 'Invalid token header. No credentials provided.',
  spaces: 'Invalid token header. Token string should not contain spaces.',
  invalidCharacters: 'Invalid token header. Token string should not contain invalid characters.',
  invalid: 'Invalid token.',
  inactive: 'User inactive or deleted.',
};

/** The challenge DRF's TokenAuthentication answers with (`authenticate_header`). */
export const TOKEN_CHALLENGE = 'Token';

/**
 * Reads `Authorization: Token <key>` as DRF does: undefined when the header is absent or another
 * scheme; 401 with DRF's messages when the scheme is Token but the rest is malformed.
 */
export function parseTokenAuthorization(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const parts = value.trim().split(/\s+/);
  if (parts[0]!.toLowerCase() !== 'token') return undefined;
  if (parts.length === 1) throw new NotAuthenticated(TOKEN_MESSAGES.noCredentials);
  if (parts.length > 2) throw new NotAuthenticated(TOKEN_MESSAGES.spaces);
  // Header bytes that are not UTF-8 text reach us as characters outside ASCII (DRF: UnicodeError).
  if (!/^[\x21-\x7e]+$/.test(parts[1]!)) throw new NotAuthenticated(TOKEN_MESSAGES.invalidCharacters);
  return parts[1];
}

/** A new random key (hex), shown to its owner once. */
export function newTokenKey(): string {
  return randomBytes(TOKEN_BYTES).toString('hex');
}

/** What the store keeps and looks a key up by. */
export function hashTokenKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A stored token: never the key itself. */
export interface ApiToken {
  id: number;
  /** The owner's username. */
  user: string;
  prefix: string;
  created: string;
  key_hash: string;
}

/** How lists show a token (the key is never shown again). */
export function tokenView(token: ApiToken) {
  return { id: token.id, user: token.user, prefix: token.prefix, created: wireDateTime(token.created) };
}

/** The answer to a creation: the view and, this once, the key. */
export function createdTokenView(token: ApiToken, key: string) {
  return { id: token.id, user: token.user, key, prefix: token.prefix, created: wireDateTime(token.created) };
}

/** POST /api/tokens/ takes one optional field: whose token (a username; default the caller). */
export const tokenFields = { user: textField({ maxLength: 150 }) };

/**
 * API tokens a user may hold at once. Upstream's DRF gives a user one; an integration or two needs a few. Past it a
 * create is refused: every token is a record that lists and a deactivation's revocation read and delete (measured:
 * a deactivation revoking 2,000 tokens one after another took 7 s locally; on AWS, at 10 to 15 ms a transaction, past
 * the API's 15 s from about 1,000, estimated).
 */
export const MAX_TOKENS_PER_USER = 100;
export const tooManyTokens = (user: string) =>
  `${user} has ${MAX_TOKENS_PER_USER} API tokens, the most a user may hold: revoke one first.`;

/** DRF's SlugRelatedField message for a username that names no user. */
export const noSuchUser = (username: string) => `Object with username=${username} does not exist.`;

/**
 * Whose token a creation makes: the caller's own, or (superusers only) anyone's. A staff user
 * naming someone else gets 403, as for any action it may not take.
 */
export function tokenOwner(caller: User, body: ParsedBody): string {
  const { values, errors } = validateFields(tokenFields, body.data, 'create', body.kind);
  if (Object.keys(errors).length) throw new ValidationError(errors);
  const requested = values.user ?? caller.username;
  if (requested !== caller.username && !caller.is_superuser) throw new PermissionDenied();
  return requested;
}

/** Staff users see and revoke their own tokens; superusers everyone's. */
export function mayManageToken(caller: User, token: Pick<ApiToken, 'user'>): boolean {
  return caller.is_superuser || token.user === caller.username;
}

export type AuthenticationClass = 'basic' | 'token' | 'oidc';
const CLASSES: readonly AuthenticationClass[] = ['basic', 'token', 'oidc'];

/**
 * HELPDESK_AUTHENTICATION_CLASSES: the schemes tried in order, as DRF's
 * DEFAULT_AUTHENTICATION_CLASSES (comma-separated, any case; default `basic`). The first one names
 * the 401 challenge. An unknown or repeated name is a configuration error.
 */
export function parseAuthenticationClasses(raw: string | undefined): AuthenticationClass[] {
  if (raw === undefined || raw.trim() === '') return ['basic'];
  const names = raw.split(',').map((n) => n.trim().toLowerCase());
  for (const name of names) {
    if (!CLASSES.includes(name as AuthenticationClass)) {
      throw new Error(`HELPDESK_AUTHENTICATION_CLASSES: unknown class "${name}" (known: ${CLASSES.join(', ')})`);
    }
  }
  if (new Set(names).size !== names.length)
    throw new Error(`HELPDESK_AUTHENTICATION_CLASSES: "${raw}" names a class twice`);
  return names as AuthenticationClass[];
}
