/**
 * Mail in from an IMAP mailbox on AWS (infra/mail-imap.ts): run every minute by an EventBridge
 * schedule, never two at once (reserved concurrency 1). One run of the poller
 * (shared/mail-in/imap.ts) over HELPDESK_IMAP_URL with the app password from Secrets Manager
 * (HELPDESK_IMAP_PASSWORD_ARN). It throws when the run cannot go on (login refused, the server or
 * the table down): what it had not marked is read again by the next run, and the function's errors
 * are alarmed.
 */
import { config } from '../../shared/config';
import { logger, metrics } from '../../shared/observability';
import { imapPassword, pollMailbox, type PollReport } from '../../shared/mail-in/imap';

export async function handler(): Promise<PollReport> {
  try {
    const mailbox = config.mailIn.imap;
    if (!mailbox) throw new Error('HELPDESK_IMAP_URL is not set: this function polls no mailbox');
    const report = await pollMailbox(mailbox, await imapPassword());
    logger.info('imap poll', { ...report });
    return report;
  } finally {
    metrics.publishStoredMetrics();
  }
}
