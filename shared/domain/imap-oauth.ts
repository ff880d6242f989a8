/**
 * The OAuth 2.0 credentials of an IMAP mailbox (docs/operations.md, "Microsoft 365 and Google
 * Workspace mailboxes"): the JSON held where an app password would be (HELPDESK_IMAP_PASSWORD, its
 * _FILE, or the Secrets Manager secret of HELPDESK_IMAP_PASSWORD_ARN), checked here so that a bad
 * one stops a start with a reason. Pure.
 */
import { isLoopback, type ImapAuth } from './mail-in-imap';

/** Exchange Online's IMAP scope for an app's own token (client credentials). */
export const OUTLOOK_IMAP_SCOPE = 'https://outlook.office365.com/.default';
/** Gmail's IMAP scope. */
export const GMAIL_SCOPE = 'https://mail.google.com/';
export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
export const entraTokenUrl = (tenant: string) =>
  `https://login.microsoftonline.com/${encodeURIComponent(tenant)}/oauth2/v2.0/token`;

export type OAuthCredentials =
  | {
      kind: 'entra';
      tokenUrl: string;
      clientId: string;
      /** A client secret, or a certificate (PEM) and its private key (PEM): a signed client assertion. */
      clientSecret?: string;
      certificate?: string;
      privateKey?: string;
    }
  | { kind: 'google-service-account'; tokenUrl: string; clientEmail: string; privateKey: string; keyId?: string }
  | { kind: 'google-refresh-token'; tokenUrl: string; clientId: string; clientSecret: string; refreshToken: string };

export class OAuthSettingsError extends Error {}

/** A token endpoint: https, or http to loopback (a test's stand-in). */
export function checkTokenUrl(text: string, what: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new OAuthSettingsError(`${what} must be a URL, not "${text}"`);
  }
  if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url.hostname))) return url.toString();
  throw new OAuthSettingsError(`${what} must be https:// (http:// only to a loopback address), not ${url.protocol}//`);
}

/** The credentials JSON of a mailbox signing in with `auth` (not `password`). */
export function parseOAuthCredentials(auth: Exclude<ImapAuth, 'password'>, text: string): OAuthCredentials {
  const what = `The IMAP mailbox's ${auth} credentials`;
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new OAuthSettingsError(`${what} must be JSON (HELPDESK_IMAP_PASSWORD, _FILE or the _ARN secret)`);
  }
  if (!json || typeof json !== 'object' || Array.isArray(json))
    throw new OAuthSettingsError(`${what} must be a JSON object`);
  const text_ = (key: string, required = true): string | undefined => {
    const value = json[key];
    if (typeof value === 'string' && value.trim()) return value.trim();
    if (value !== undefined || required) throw new OAuthSettingsError(`${what} need "${key}" (a non-empty string)`);
    return undefined;
  };
  const tokenUrl = (fallback: string) =>
    checkTokenUrl(text_('token_url', false) ?? text_('token_uri', false) ?? fallback, `${what}' token_url`);
  if (auth === 'entra') {
    const tenant = text_('tenant')!;
    if (!/^[\w.-]+$/.test(tenant))
      throw new OAuthSettingsError(`${what}' tenant must be a tenant id or domain, not "${tenant}"`);
    const clientSecret = text_('client_secret', false);
    const certificate = text_('certificate', false);
    const privateKey = text_('private_key', false);
    if (!clientSecret === !(certificate && privateKey))
      throw new OAuthSettingsError(
        `${what} need either "client_secret" or both "certificate" and "private_key" (PEM), not both or neither`,
      );
    return {
      kind: 'entra',
      tokenUrl: tokenUrl(entraTokenUrl(tenant)),
      clientId: text_('client_id')!,
      clientSecret,
      certificate,
      privateKey,
    };
  }
  if (auth === 'google-service-account') {
    return {
      kind: 'google-service-account',
      tokenUrl: tokenUrl(GOOGLE_TOKEN_URL),
      clientEmail: text_('client_email')!,
      privateKey: text_('private_key')!,
      keyId: text_('private_key_id', false),
    };
  }
  return {
    kind: 'google-refresh-token',
    tokenUrl: tokenUrl(GOOGLE_TOKEN_URL),
    clientId: text_('client_id')!,
    clientSecret: text_('client_secret')!,
    refreshToken: text_('refresh_token')!,
  };
}
