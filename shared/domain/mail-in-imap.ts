/**
 * The setting of an IMAP mailbox to take mail in from (shared/mail-in/imap.ts; docs/email.md,
 * "Receiving from a mailbox"): one URL, HELPDESK_IMAP_URL, checked here so that a bad one stops a
 * start or a deploy with a reason rather than failing every scheduled run.
 */
import { isIP } from 'node:net';

/**
 * How a run signs in: `password` (an app password, IMAP LOGIN), or OAuth 2.0 (SASL XOAUTH2) with an
 * access token from Microsoft Entra ID (client credentials), a Google service account with
 * domain-wide delegation, or a Google user's refresh token (shared/mail-in/oauth.ts).
 */
export type ImapAuth = 'password' | 'entra' | 'google-service-account' | 'google-refresh-token';
export const IMAP_AUTH: readonly ImapAuth[] = ['password', 'entra', 'google-service-account', 'google-refresh-token'];

/** What a run does with a message once it is safely stored and ingested. */
export type AfterIngest = 'move' | 'seen' | 'delete';
const AFTER_INGEST: readonly AfterIngest[] = ['move', 'seen', 'delete'];

export interface ImapMailbox {
  host: string;
  port: number;
  /** TLS from the first byte (imaps://). Plain text (imap://) only to a loopback address. */
  tls: boolean;
  /** The login: the mailbox's address at Gmail and Microsoft 365. */
  user: string;
  /** The folder read (INBOX by default). */
  mailbox: string;
  /**
   * The address this mailbox receives for: the ingest's envelope recipient (IMAP has no envelope),
   * so that new mail becomes a ticket in the queue answering at it. The login by default.
   */
  recipient: string;
  /**
   * `move` (default): \Seen, then moved to `processed`; the folder read holds only what is still to
   * do, whoever reads the mail in a mail client. `seen`: \Seen only, and a run reads the unseen
   * messages (a person who opens one in a mail client first hides it from the helpdesk). `delete`:
   * \Deleted and expunged, as upstream does.
   */
  after: AfterIngest;
  /** The folder `move` moves to (made when missing). */
  processed: string;
  /** How the run signs in (`password` by default); the secret is the app password or the OAuth credentials' JSON. */
  auth: ImapAuth;
}

/** Why a mailbox setting cannot be used; the message names the setting and what is wrong. */
export class ImapSettingsError extends Error {}

/** 127.0.0.0/8, ::1 and localhost: the only hosts reached without TLS. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare.toLowerCase() === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return isIP(bare) === 6 && (bare === '::1' || /^::ffff:127\./i.test(bare));
}

/**
 * HELPDESK_IMAP_URL:
 * `imaps://<user>@<host>[:993]/<folder>[?recipient=<address>&after=move|seen|delete&processed=<folder>&auth=<how>]`
 * (an `@` in the user written as `%40` or as is). `imap://` (no TLS, port 143) only to loopback.
 */
export function parseImapUrl(text: string): ImapMailbox {
  const fail = (why: string) => new ImapSettingsError(`HELPDESK_IMAP_URL ${why}`);
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw fail(`must be a URL like imaps://support%40example.com@imap.example.com/INBOX, not "${text}"`);
  }
  if (url.protocol !== 'imaps:' && url.protocol !== 'imap:')
    throw fail(`must start with imaps:// (TLS), not ${url.protocol}//`);
  const tls = url.protocol === 'imaps:';
  const host = url.hostname;
  if (!host) throw fail('names no host');
  if (!tls && !isLoopback(host))
    throw fail(`is imap:// (plain text) to ${host}: only a loopback address may be reached without TLS; use imaps://`);
  if (url.password) throw fail('must not hold the password: set HELPDESK_IMAP_PASSWORD (or _FILE, or _ARN on AWS)');
  const user = decodeURIComponent(url.username);
  if (!user) throw fail('names no user (imaps://<user>@<host>/...)');
  const folder = decodeURIComponent(url.pathname.replace(/^\//, '')) || 'INBOX';
  const known = new Set(['recipient', 'after', 'processed', 'auth']);
  const unknown = [...url.searchParams.keys()].find((k) => !known.has(k));
  if (unknown) throw fail(`has an unknown setting "${unknown}" (known: ${[...known].join(', ')})`);
  const after = (url.searchParams.get('after') ?? 'move') as AfterIngest;
  if (!AFTER_INGEST.includes(after)) throw fail(`after= must be one of ${AFTER_INGEST.join(', ')}, not "${after}"`);
  const recipient = (url.searchParams.get('recipient') ?? user).toLowerCase();
  if (!/^[^@\s]+@[^@\s]+$/.test(recipient))
    throw fail(
      `needs recipient=<address> (the address mail to this mailbox is sent to): the user "${user}" is no address`,
    );
  const auth = (url.searchParams.get('auth') ?? 'password') as ImapAuth;
  if (!IMAP_AUTH.includes(auth)) throw fail(`auth= must be one of ${IMAP_AUTH.join(', ')}, not "${auth}"`);
  const processed = url.searchParams.get('processed') ?? 'Processed';
  if (after === 'move' && processed === folder) throw fail(`moves processed mail to the folder it reads (${folder})`);
  return {
    host,
    port: url.port ? Number(url.port) : tls ? 993 : 143,
    tls,
    user,
    mailbox: folder,
    recipient,
    after,
    processed,
    auth,
  };
}
