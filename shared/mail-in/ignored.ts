/**
 * Ignored senders on the way in (upstream's IgnoreEmail): the ingest asks here, once, before a
 * message can open or touch a ticket (ingest.ts `apply`, right after its duplicate check), on every
 * path (SMTP, SES, IMAP). A message from an ignored sender to a queue the rule covers is recorded
 * (outcome `ignored`, which rule) and goes no further; a mailbox leaves it there, read, when the
 * rule says `keep_in_mailbox` (imap.ts `keptInMailbox`), else marks it done as it marks any message.
 */
import { ignoringRule } from '../domain/ignored-senders';
import { listIgnoredSenders } from '../store/ignored-senders';
import { recordInbound, type InboundRecord } from '../store/inbound-mail';
import { withoutTag } from '../domain/mail-in';
import type { ParsedMail } from './parse';
import type { MessageQueues } from './known-queues';

/** The note an ignored message's record carries when its mailbox keeps it. */
export const KEPT_IN_MAILBOX = 'kept in the mailbox';

export type IgnoredResult = { outcome: 'ignored'; reason: string; keepInMailbox: boolean };

/**
 * The ignore rule's verdict on a message (`addressed`: its envelope recipients and To/Cc, lower
 * case): recorded and returned when ignored, else undefined.
 */
export async function ignoredMessage(
  mail: ParsedMail,
  addressed: string[],
  queues: MessageQueues,
  record: (outcome: 'ignored', notes: string[]) => InboundRecord,
): Promise<IgnoredResult | undefined> {
  const rules = await listIgnoredSenders();
  if (!rules.length) return undefined;
  const { queueByAddress } = queues.known;
  const to = [
    ...new Set(
      addressed.map((a) => queueByAddress.get(withoutTag(a))?.id).filter((id): id is number => id !== undefined),
    ),
  ];
  const rule = ignoringRule(rules, mail.from, to);
  if (!rule) return undefined;
  const reason = `ignored sender: rule ${rule.id} (${rule.email_address}, "${rule.name}")`;
  await recordInbound(record('ignored', [reason, ...(rule.keep_in_mailbox ? [KEPT_IN_MAILBOX] : [])]));
  return { outcome: 'ignored', reason, keepInMailbox: rule.keep_in_mailbox };
}
