/**
 * Mail in the local runtime (issue 22): the same consumer and sender as on AWS, driven in-process.
 * The table stream's poller fans each batch out to the consumer (as the one reader does on AWS),
 * and timers hold the mails waiting for their attempt (where AWS has SQS), kept in
 * `<data dir>/mail-queue.json` too: a restart sends them (the stream is read on from where the stopped
 * process had applied it, stream-positions.ts, so their records are not read again). Nothing leaves
 * the machine by default: mail is captured as .eml files in `<data dir>/mailbox` (owner-only), which
 * `npm run helpdesk -- mail` lists and prints; with HELPDESK_SMTP_URL it goes to that SMTP server.
 * Calls are held to the grants of the AWS functions (mail/queue, mail/send).
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
import { keptWriter, readKept, writeKept } from './kept-files';
import { getMail, SENDING_LEASE_MS } from '../../shared/store/mail-log';
import { asFunction, asNoFunction, consumerAs } from './table-access';

/** After an error of our own (the engines busy, say): try that step again this much later. */
const RECOVER_MS = 2000;

/** A claim's longest lease, in seconds: a mail claimed elsewhere is tried again after it. */
const LEASE_SECONDS = SENDING_LEASE_MS / 1000;

/** The mails waiting for an attempt, in the data directory (none in memory). */
export const MAIL_QUEUE_FILE = 'mail-queue.json';

/** A mail waiting for its attempt: which, and when (epoch ms). */
interface Waiting {
  ref: MailRef;
  due: number;
}

const isWaiting = (value: unknown): value is Waiting => {
  const { ref, due } = (value ?? {}) as Partial<Waiting>;
  return Number.isSafeInteger(ref?.ticket) && typeof ref?.id === 'string' && Number.isSafeInteger(due);
};

/** The mails `file` keeps waiting; none when there is none, or it is unreadable (said in a warning). */
function loadWaiting(file: string | undefined): Waiting[] {
  if (!file) return [];
  try {
    const kept = readKept(file) ?? [];
    if (!Array.isArray(kept) || !kept.every(isWaiting)) throw new Error('not a list of queued mails');
    return kept;
  } catch (error) {
    logger.warn('queued mail unreadable: mails waiting for an attempt before the restart are not sent', {
      file,
      error: String(error),
    });
    return [];
  }
}

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
  /** By ticket and id: each mail once, at its latest due time. */
  const waiting = new Map<string, Waiting>();
  const keyOf = (ref: MailRef) => `${ref.ticket}/${ref.id}`;
  const file = dataDir === 'memory' ? undefined : join(dataDir, MAIL_QUEUE_FILE);
  const kept = keptWriter(() => writeKept(file!, [...waiting.values()]));
  /** On disk before it resolves (at once without a file). */
  const keep = () => (file ? kept.request() : Promise.resolve());

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
  const schedule = ({ ref, due }: Waiting) => {
    waiting.set(keyOf(ref), { ref, due });
    later(Math.max(0, due - Date.now()), () => send(ref));
  };
  // The consumer's batch is applied (and the stream read on past it) only once its mails are kept: none is lost.
  const queue: MailQueue = {
    enqueue(ref, delaySeconds) {
      schedule({ ref, due: Date.now() + delaySeconds * 1000 });
      return keep();
    },
  };
  /** Settled (sent, failed, suppressed, or not this process's to send): no longer kept. */
  const settled = (ref: MailRef) => {
    waiting.delete(keyOf(ref));
    keep().catch((error: unknown) => logger.warn('queued mail not kept', { error: String(error) }));
  };
  const ctx: SenderContext | undefined = transport && { transport, settings, secret: mailSecret };

  /**
   * Whether mail `ref` is claimed by another sender: this runtime's before a restart (its lease still running), or
   * one still at work. It is tried again once the lease has surely run out, as SQS shows a message again after its
   * visibility timeout on AWS: then sent, or found settled. The queue's own read, not the sender's (which reads no
   * mail before its claim): made as no function.
   */
  const claimedElsewhere = async (ref: MailRef) =>
    (await asNoFunction(() => getMail(ref.ticket, ref.id)))?.status === 'sending';

  async function send(ref: MailRef): Promise<void> {
    try {
      const result = await asFunction('mail/send', MAIL_SEND_GRANTS, () => sendMail(ref, ctx!));
      if (result.state === 'retry') await queue.enqueue(ref, result.inSeconds);
      else if (result.state === 'skipped' && (await claimedElsewhere(ref))) await queue.enqueue(ref, LEASE_SECONDS);
      else settled(ref);
    } catch (error) {
      logger.error('mail step failed; retrying', { mail: ref.id, error: (error as Error).message });
      later(RECOVER_MS, () => send(ref));
    }
  }

  if (ctx) for (const mail of loadWaiting(file)) schedule(mail);

  return {
    mailboxDir: settings.transport === 'mailbox' ? settings.mailboxDir : undefined,
    consumer: ctx && consumerAs('mail/queue', MAIL_QUEUE_GRANTS, mailConsumer(queue, settings)),
    async stop() {
      stopped = true;
      timers.forEach(clearTimeout);
      timers.clear();
      await Promise.allSettled([...running]);
      await keep().catch(() => undefined); // what the last sends settled
    },
  };
}
