/**
 * Mail in the local runtime (issue 22): the same consumer and sender as on AWS, driven in-process.
 * The table stream's poller fans each batch out to the consumer (as the one reader does on AWS),
 * and timers hold the mails waiting for their attempt (where AWS has SQS). Nothing leaves
 * the machine by default: mail is captured as .eml files in `<data dir>/mailbox` (owner-only), which
 * `npm run helpdesk -- mail` lists and prints; with HELPDESK_SMTP_URL it goes to that SMTP server.
 * A restart loses nothing: the stream is read again from its oldest record, and every mail still
 * queued (or claimed by the process that stopped) is queued again. Calls are held to the grants of
 * the AWS functions (mail/queue, mail/send).
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { config } from '../../shared/config';
import type { MailRef } from '../../shared/domain/mail';
import { logger } from '../../shared/observability';
import { MAIL_QUEUE_GRANTS, MAIL_SEND_GRANTS } from '../../shared/api/table-access';
import { mailConsumer, type MailQueue } from '../../shared/mail/queue-mail';
import { mailSecret } from '../../shared/mail/secret';
import { sendMail, type SenderContext } from '../../shared/mail/send-mail';
import { transportFor } from '../../shared/mail/transports';
import type { FilteredConsumer } from '../../shared/consumer/changes';
import { ensureLocalSecret } from './secrets';
import { asFunction, consumerAs } from './table-access';

/** After an error of our own (the engines busy, say): try that step again this much later. */
const RECOVER_MS = 2000;

export interface LocalMail {
  /** The folder mail is captured in (undefined when it goes to SMTP, or nowhere). */
  mailboxDir: string | undefined;
  /** The mail consumer of the table's stream (the local stream poller fans out to it), held to its grants; none
   * without a transport. */
  consumer: FilteredConsumer | undefined;
  stop(): Promise<void>;
}

/** The mailbox of a data directory (the CLI reads it there). */
export const mailboxOf = (dataDir: string) => join(dataDir, 'mailbox');

/** The local defaults: SMTP when HELPDESK_SMTP_URL is set, else the data directory's mailbox (none for `memory`). */
export function useLocalMailDefaults(dataDir: string): void {
  const env = process.env;
  if (!env.HELPDESK_MAIL_TRANSPORT) {
    if (env.HELPDESK_SMTP_URL) env.HELPDESK_MAIL_TRANSPORT = 'smtp';
    else if (env.HELPDESK_MAILBOX_DIR || dataDir !== 'memory') env.HELPDESK_MAIL_TRANSPORT = 'mailbox';
  }
  if (env.HELPDESK_MAIL_TRANSPORT === 'mailbox' && dataDir !== 'memory')
    env.HELPDESK_MAILBOX_DIR ??= mailboxOf(dataDir);
}

export function startLocalMail(dataDir: string): LocalMail {
  useLocalMailDefaults(dataDir);
  const settings = config.mail.settings; // refuses to start on a bad setting
  const transport = transportFor(settings);
  if (transport)
    ensureLocalSecret(dataDir, 'HELPDESK_MAIL_SECRET', 'mail-secret', () => randomBytes(32).toString('base64url'));
  const timers = new Set<NodeJS.Timeout>();
  const running = new Set<Promise<unknown>>();
  let stopped = false;

  const later = (ms: number, step: () => Promise<void>) => {
    if (stopped) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (stopped) return;
      const work = step();
      running.add(work);
      void work.finally(() => running.delete(work));
    }, ms);
    timers.add(timer);
  };
  const queue: MailQueue = {
    enqueue(ref, delaySeconds) {
      later(delaySeconds * 1000, () => send(ref));
      return Promise.resolve();
    },
  };
  const ctx: SenderContext | undefined = transport && { transport, settings, secret: mailSecret };

  async function send(ref: MailRef): Promise<void> {
    try {
      const result = await asFunction('mail/send', MAIL_SEND_GRANTS, () => sendMail(ref, ctx!));
      if (result.state === 'retry') await queue.enqueue(ref, result.inSeconds);
    } catch (error) {
      logger.error('mail step failed; retrying', { mail: ref.id, error: (error as Error).message });
      later(RECOVER_MS, () => send(ref));
    }
  }

  return {
    mailboxDir: settings.transport === 'mailbox' ? settings.mailboxDir : undefined,
    consumer: ctx && consumerAs('mail/queue', MAIL_QUEUE_GRANTS, mailConsumer(queue, settings)),
    async stop() {
      stopped = true;
      timers.forEach(clearTimeout);
      timers.clear();
      await Promise.allSettled([...running]);
    },
  };
}
