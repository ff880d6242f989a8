/**
 * Ignored senders (upstream's IgnoreEmail): addresses whose mail never becomes a ticket or a
 * followup, for the queues a rule lists (none: every queue). Pure: fields, view and the match.
 *
 * A rule's address is an address, or upstream's wildcards: `*@example.com` (anyone at a domain),
 * `noreply@*` (a local part at any domain), `*@*`. Matched without regard to case.
 */
import type { ParsedBody } from './body';
import { ValidationError } from './errors';
import { booleanField, textField, validateFields, type Mode } from './fields';
import { queueIdList } from './escalation';
import { wireDateTime } from './datetime';

export interface IgnoredSender {
  id: number;
  name: string;
  /** Lower case: an address or a wildcard pattern. */
  email_address: string;
  queues: number[];
  /** For a mailbox read over IMAP: leave the message there (read) rather than mark it done as the mailbox says. */
  keep_in_mailbox: boolean;
  /** When it was added (stored date-time). */
  date: string;
}

const PATTERN = /^(\*|[^\s@*]+)@(\*|[^\s@*]+)$/;
export const PATTERN_MESSAGE = 'Enter an e-mail address, or a pattern such as *@example.com or noreply@*.';

export const ignoredSenderFields = {
  name: textField({ required: true, maxLength: 100 }),
  email_address: textField({ required: true, maxLength: 150, match: { pattern: PATTERN, message: PATTERN_MESSAGE } }),
  queues: queueIdList,
  keep_in_mailbox: booleanField(),
};

export function parseIgnoredSenderBody(body: ParsedBody, mode: Mode): Partial<Omit<IgnoredSender, 'id' | 'date'>> {
  const { values, errors } = validateFields(ignoredSenderFields, body.data, mode, body.kind);
  if (Object.keys(errors).length) throw new ValidationError(errors);
  const out = values as Partial<Omit<IgnoredSender, 'id' | 'date'>>;
  return out.email_address === undefined ? out : { ...out, email_address: out.email_address.toLowerCase() };
}

export const ignoredSenderView = (i: IgnoredSender) => ({
  id: i.id,
  name: i.name,
  email_address: i.email_address,
  queues: i.queues,
  keep_in_mailbox: i.keep_in_mailbox,
  date: wireDateTime(i.date)!,
});

/** Whether `pattern` (a rule's address) matches `address`, as upstream's `IgnoreEmail.test`, without regard to case. */
export function matchesSender(pattern: string, address: string): boolean {
  const [local, domain] = pattern.toLowerCase().split('@') as [string, string];
  const at = address.trim().toLowerCase().lastIndexOf('@');
  if (at < 1) return false;
  const [theirLocal, theirDomain] = [
    address.trim().toLowerCase().slice(0, at),
    address
      .trim()
      .toLowerCase()
      .slice(at + 1),
  ];
  return (local === '*' || local === theirLocal) && (domain === '*' || domain === theirDomain);
}

/**
 * The first rule (in id order) that ignores `sender` for a message to `queues` (a rule for no queue in particular:
 * any).
 */
export function ignoringRule(
  rules: readonly IgnoredSender[],
  sender: string,
  queues: readonly number[],
): IgnoredSender | undefined {
  return [...rules]
    .sort((a, b) => a.id - b.id)
    .find(
      (r) =>
        (r.queues.length === 0 || r.queues.some((q) => queues.includes(q))) && matchesSender(r.email_address, sender),
    );
}
