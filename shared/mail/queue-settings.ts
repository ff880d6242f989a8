/**
 * A queue's mail settings as mail reads them: its address, its two CC lists split into addresses,
 * and the kinds it sends none of. The queue record's fields are the mail settings' (their
 * validation, API and CLI: domain/mail-settings.ts); a queue stored before them has none.
 */
import { MAIL_KINDS, type MailKind } from '../domain/mail';
import type { Queue } from '../domain/records';

export interface QueueMail {
  email_address: string | null;
  new_ticket_cc: string[];
  updated_ticket_cc: string[];
  disabled_mail: MailKind[];
}

/** The addresses of a stored CC list (`"a@example.com, b@example.com"`), split as upstream splits it. */
const split = (list: unknown) => (typeof list === 'string' ? list.split(',').map((a) => a.trim()).filter(Boolean) : []);

export function queueMailOf(queue: Queue | undefined): QueueMail {
  const q = (queue ?? {}) as Record<string, unknown>;
  const disabled = Array.isArray(q.disabled_mail) ? (q.disabled_mail as string[]) : [];
  return {
    email_address: typeof q.email_address === 'string' && q.email_address ? q.email_address : null,
    new_ticket_cc: split(q.new_ticket_cc),
    updated_ticket_cc: split(q.updated_ticket_cc),
    disabled_mail: MAIL_KINDS.filter((k) => disabled.includes(k)),
  };
}
