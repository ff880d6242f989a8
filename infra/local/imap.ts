/**
 * The local runtime's IMAP poller (docs/local.md, "Mail in from a mailbox"): when HELPDESK_IMAP_URL
 * names a mailbox, the same run as the scheduled function on AWS (shared/mail-in/imap.ts) every
 * HELPDESK_IMAP_POLL_SECONDS (default 60), held to that function's table grants. A failed run (the
 * server down, a wrong password) is logged and tried again at the next one; what it left unmarked
 * is read again then.
 */
import { repeatEvery, type Repeating } from './repeat';
// The store and the poller load when it starts, once the runtime has pointed the clients at the engines.

/** Seconds between runs by default: as the scheduled function on AWS. */
export const DEFAULT_IMAP_POLL_SECONDS = 60;

export function imapPollInterval(env: Record<string, string | undefined> = process.env): number {
  const raw = env.HELPDESK_IMAP_POLL_SECONDS ?? String(DEFAULT_IMAP_POLL_SECONDS);
  if (!/^\d+(\.\d+)?$/.test(raw.trim()) || Number(raw) <= 0)
    throw new Error(`HELPDESK_IMAP_POLL_SECONDS must be a number of seconds above 0, not "${raw}"`);
  return Number(raw) * 1000;
}

/**
 * Starts polling the configured mailbox, or returns undefined when none is configured. Throws on a bad setting or a
 * missing password.
 */
export async function startLocalImapPoller(intervalMs = imapPollInterval()): Promise<Repeating | undefined> {
  const { config } = await import('../../shared/config');
  const mailbox = config.mailIn.imap;
  if (!mailbox) return undefined;
  const { imapPassword, pollMailbox } = await import('../../shared/mail-in/imap');
  const { MAIL_IN_GRANTS } = await import('../../shared/api/table-access');
  const { asFunction } = await import('./table-access');
  const { logger } = await import('../../shared/observability');
  const secret = await imapPassword(); // a missing password stops the start, with the reason
  if (mailbox.auth !== 'password') {
    // So do OAuth credentials that cannot be used.
    const { parseOAuthCredentials } = await import('../../shared/domain/imap-oauth');
    parseOAuthCredentials(mailbox.auth, secret);
  }
  return repeatEvery(intervalMs, async () => {
    try {
      const report = await asFunction('mail-in/poll', MAIL_IN_GRANTS, async () =>
        pollMailbox(mailbox, await imapPassword()),
      );
      if (Object.keys(report.outcomes).length || report.oversized) logger.info('imap poll', { ...report });
    } catch (error) {
      logger.warn('imap poll failed; trying again at the next run', {
        error: (error as Error).message,
        host: mailbox.host,
      });
    }
  });
}
