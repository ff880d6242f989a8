/**
 * The recorder of Amazon SES's sending events (functions/mail/record-event.ts on AWS, fed by the
 * configuration set's EventBridge rule: infra/mail.ts; locally the same function through
 * `npm run helpdesk -- ses-event`, or a test). Hard bounces and complaints put their addresses on the
 * suppression list, which the sender checks before every mail; the mail's log entry takes the new
 * status (its change to bounced or complained is a change event: consumer/events-of.ts).
 *
 * Idempotent: EventBridge delivers at least once, and a repeated event writes the same values again.
 */
import { messageIdOf, parseSesEvent, suppressionsOf } from '../domain/ses-events';
import { logger } from '../observability';
import { mailOfMessageId, recordMailStatus } from '../store/mail-log';
import { suppress } from '../store/suppressions';

/**
 * What became of an event: recorded on its mail; about a mail the log does not have (any suppression still made); or
 * not an event of ours.
 */
export type SesEventOutcome = 'recorded' | 'unknown-mail' | 'ignored';

export async function recordSesEvent(raw: unknown): Promise<SesEventOutcome> {
  const event = parseSesEvent(raw);
  if (!event) {
    logger.warn('SES event not understood: dropped', {
      detailType: (raw as { 'detail-type'?: unknown } | null)?.['detail-type'],
    });
    return 'ignored';
  }
  const messageId = messageIdOf(event);
  // The suppressions first: they protect recipients even when the log has forgotten the mail.
  for (const entry of suppressionsOf(event, messageId)) await suppress(entry);
  const mail = await mailOfMessageId(messageId);
  if (!mail) {
    logger.warn('SES event for a mail the log does not have', { messageId, status: event.status });
    return 'unknown-mail';
  }
  await recordMailStatus(mail.ticket, mail.mail, event.status, event.at, event.detail);
  return 'recorded';
}
