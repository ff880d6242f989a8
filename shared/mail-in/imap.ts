/**
 * Mail in from an IMAP mailbox (docs/email.md, "Receiving from a mailbox"), as upstream's
 * `imap_sync`: for teams whose mail lives on Gmail or Microsoft 365, or whose AWS region does not
 * receive with SES. One run (a scheduled function on AWS, a timer in `npm start`) logs in over TLS
 * with an app password or an OAuth 2.0 access token (XOAUTH2: oauth.ts), reads the mailbox's messages in UID order,
 * and for each one:
 *
 *   store raw (the mail bucket, as SES's S3 action does) → the one ingest (ingest.ts) → mark it
 *
 * and it marks a message (\Seen and moved to the processed folder, by default) only after the
 * ingest returned, that is after the message became a ticket, a followup, a record of what it was
 * (dropped, bounce, duplicate) or a problem kept for operators. A run that stops in between (a crash,
 * a lost connection, a timeout) leaves the message unmarked; the next run reads it again, stores it
 * over itself (the key is its hash) and the ingest finds its Message-ID recorded: one ticket.
 *
 * Bounded: messages over MAX_MESSAGE_BYTES (SES's 40 MB) are never downloaded (their header is kept
 * with a problem, the message stays in the mailbox, flagged), and a run stops starting messages
 * after a count and a time, the rest waiting for the next run.
 */
import { ImapFlow, type SearchObject } from 'imapflow';
import { createHash } from 'node:crypto';
import { MAX_HEADER_BYTES, MAX_MESSAGE_BYTES } from '../domain/mail-in';
import { config } from '../config';
import { logger, METRICS, metrics } from '../observability';
import { putFile } from '../aws/s3';
import { findInbound, keepProblem, keepSignInProblem, recordInbound } from '../store/inbound-mail';
import { imapMessageKey } from '../store/keys';
import { ingest as runIngest, type Delivery, type IngestResult } from './ingest';
import { parseMailBounded } from './bounded';
import { KEPT_IN_MAILBOX } from './ignored';
import type { ImapMailbox } from '../domain/mail-in-imap';
import { deploymentSecret } from '../aws/secrets';
import { parseOAuthCredentials } from '../domain/imap-oauth';
import { SignInRefused, tokenSource, type TokenSource } from './oauth';

/**
 * The mailbox's secret: its app password, or its OAuth credentials' JSON (`auth=` other than `password`):
 * HELPDESK_IMAP_PASSWORD (or _FILE) locally, Secrets Manager (HELPDESK_IMAP_PASSWORD_ARN) on AWS.
 */
export const imapPassword = deploymentSecret(
  () => ({ arn: config.mailIn.imapPasswordArn, value: config.mailIn.imapPassword }),
  (value) => {
    if (!value)
      throw new Error(
        'The IMAP mailbox has no password or OAuth credentials: set HELPDESK_IMAP_PASSWORD or ' +
          'HELPDESK_IMAP_PASSWORD_FILE (HELPDESK_IMAP_PASSWORD_ARN on AWS).',
      );
    return value.trim();
  },
);

/** A run's limits: it starts no message after either, and the rest wait for the next run. */
export interface PollLimits {
  messages: number;
  millis: number;
}

/** A minute's schedule: a run leaves time for its last message (up to 40 MB) before the next one starts. */
export const POLL_LIMITS: PollLimits = { messages: 50, millis: 40_000 };

export interface PollOptions {
  limits?: PollLimits;
  /** Keeps a message's raw bytes before it is ingested (the mail bucket by default). */
  store?: (key: string, raw: Buffer) => Promise<void>;
  /** The ingest (the local runtime runs it inside the function's table grants). */
  ingest?: (delivery: Delivery) => Promise<IngestResult>;
  /** The OAuth tokens' clock (epoch ms): tests move it on to reach a renewal. */
  now?: () => number;
}

export interface PollReport {
  /** Outcomes of the messages read and ingested this run. */
  outcomes: Partial<Record<IngestResult['outcome'], number>>;
  /** Messages over the size limit newly kept as problems (header only). */
  oversized: number;
  /** Messages left for the next run by the run's limits. */
  remaining: number;
  /** Why an OAuth sign-in was refused (recorded as a mail problem, alarmed): the run read nothing. */
  refused?: string;
}

const storeRaw = (key: string, raw: Buffer) => putFile(key, raw, 'message/rfc822', config.mailIn.bucket);
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/**
 * The imapflow calls that report failure by returning false: a failure is an error here, so the message stays unmarked.
 */
async function must<T>(what: string, result: Promise<T | false>): Promise<T> {
  const value = await result;
  if (value === false) throw new Error(`IMAP ${what} failed`);
  return value;
}

/** One run over the mailbox. Throws when it cannot go on (login, the store, the table); what it marked stays marked. */
export async function pollMailbox(
  mailbox: ImapMailbox,
  password: string,
  options: PollOptions = {},
): Promise<PollReport> {
  const limits = options.limits ?? POLL_LIMITS;
  const store = options.store ?? storeRaw;
  const ingest = options.ingest ?? ((delivery: Delivery) => runIngest(delivery));
  const started = Date.now();
  const report: PollReport = { outcomes: {}, oversized: 0, remaining: 0 };
  const source = mailbox.auth === 'password' ? undefined : tokenSourceFor(mailbox, password, options.now);
  let accessToken: string | undefined;
  try {
    accessToken = await source?.token();
  } catch (error) {
    if (error instanceof SignInRefused) return refused(mailbox, error.message, report);
    throw error;
  }
  const client = new ImapFlow({
    host: mailbox.host,
    port: mailbox.port,
    secure: mailbox.tls,
    // Loopback without TLS is plain text all the way; anything else was refused by parseImapUrl.
    doSTARTTLS: mailbox.tls ? undefined : false,
    auth: accessToken === undefined ? { user: mailbox.user, pass: password } : { user: mailbox.user, accessToken },
    logger: false,
    disableAutoIdle: true,
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    socketTimeout: 60_000,
  });
  // A dropped connection also fails the command under way, which is what the run handles.
  client.on('error', (error: Error) =>
    logger.warn('IMAP connection error', { error: error.message, host: mailbox.host }),
  );
  try {
    await client.connect();
  } catch (error) {
    const e = error as { authenticationFailed?: boolean; response?: unknown };
    if (!source || !e.authenticationFailed) throw error;
    client.close();
    source.invalidate(); // the next run asks for a new one
    const said = typeof e.response === 'string' && e.response ? `: ${e.response}` : '';
    return refused(
      mailbox,
      `the IMAP server ${mailbox.host} refused the access token for ${mailbox.user}${said}`,
      report,
    );
  }
  try {
    if (mailbox.after === 'move' && !(await client.list()).some((m) => m.path === mailbox.processed))
      await client.mailboxCreate(mailbox.processed);
    const lock = await client.getMailboxLock(mailbox.mailbox);
    try {
      const base: SearchObject = mailbox.after === 'seen' ? { seen: false, deleted: false } : { deleted: false };
      const regular = (await client.search({ ...base, smaller: MAX_MESSAGE_BYTES + 1 }, { uid: true })) || [];
      // An oversized message the helpdesk kept as a problem is \Flagged, and passed over from then on.
      const oversized = new Set(
        (await client.search({ ...base, larger: MAX_MESSAGE_BYTES, flagged: false }, { uid: true })) || [],
      );
      const uids = [...regular, ...oversized].sort((a, b) => a - b);
      for (const [index, uid] of uids.entries()) {
        const done = Object.values(report.outcomes).reduce((sum, n) => sum + n, 0) + report.oversized;
        if (done >= limits.messages || Date.now() - started >= limits.millis) {
          report.remaining = uids.length - index;
          break;
        }
        if (oversized.has(uid)) {
          if (await keepOversized(client, mailbox, uid, store)) report.oversized++;
          continue;
        }
        const message = await client.fetchOne(
          String(uid),
          { uid: true, source: true, internalDate: true },
          { uid: true },
        );
        if (!message || !message.source) continue; // expunged meanwhile (another client)
        const raw = message.source;
        const rawKey = imapMessageKey(sha256(raw));
        await store(rawKey, raw);
        const receivedAt = message.internalDate instanceof Date ? message.internalDate : undefined;
        const result = await ingest({ raw, rawKey, recipients: [mailbox.recipient], receivedAt });
        report.outcomes[result.outcome] = (report.outcomes[result.outcome] ?? 0) + 1;
        if (keptInMailbox(result))
          await must('flag \\Seen', client.messageFlagsAdd(String(uid), ['\\Seen'], { uid: true }));
        else await markDone(client, mailbox, uid);
      }
    } finally {
      lock.release();
    }
  } finally {
    await client.logout().catch(() => client.close());
  }
  return report;
}

/** The OAuth mailboxes' token sources, one per mailbox and credentials: a warm function keeps its token. */
const sources = new Map<string, TokenSource>();

function tokenSourceFor(mailbox: ImapMailbox, secret: string, now?: () => number): TokenSource {
  const key = `${mailbox.auth}|${mailbox.user}|${sha256(Buffer.from(secret))}|${now ? 'own clock' : ''}`;
  let source = sources.get(key);
  if (!source) {
    const credentials = parseOAuthCredentials(mailbox.auth as Exclude<ImapMailbox['auth'], 'password'>, secret);
    sources.set(key, (source = tokenSource(credentials, mailbox.user, { now })));
  }
  return source;
}

/**
 * A refused OAuth sign-in: a setting to fix (a secret expired or revoked, consent withdrawn, the mailbox's permission
 * removed), so it is said in words where mail problems are (list-mail-problems; alarmed by their metric), and the run
 * ends without reading, rather than failing: its mail waits in the mailbox.
 */
async function refused(mailbox: ImapMailbox, reason: string, report: PollReport): Promise<PollReport> {
  metrics.addMetric(METRICS.mailInProblems, 'Count', 1);
  logger.error('IMAP sign-in refused', { reason, mailbox: mailbox.user, auth: mailbox.auth });
  await keepSignInProblem(mailbox.user, `refused: ${reason}`, new Date());
  return { ...report, refused: reason };
}

/**
 * Whether an ignored sender's rule keeps the message in the mailbox (read): then it is neither
 * moved nor deleted. With `after=move` or `delete` such a message is read again by each poll and
 * found a duplicate of its record, which says it is kept.
 */
function keptInMailbox(result: IngestResult): boolean {
  if (result.outcome === 'ignored') return result.keepInMailbox;
  return (
    result.outcome === 'duplicate' &&
    result.record.outcome === 'ignored' &&
    result.record.notes.includes(KEPT_IN_MAILBOX)
  );
}

/** The last step for a message that is stored and ingested (or kept as a problem). */
async function markDone(client: ImapFlow, mailbox: ImapMailbox, uid: number): Promise<void> {
  const range = String(uid);
  if (mailbox.after === 'delete') {
    await must('delete', client.messageDelete(range, { uid: true }));
    return;
  }
  await must('flag \\Seen', client.messageFlagsAdd(range, ['\\Seen'], { uid: true }));
  if (mailbox.after === 'move')
    await must(`move to ${mailbox.processed}`, client.messageMove(range, mailbox.processed, { uid: true }));
}

/**
 * A message over the size limit (the server's SEARCH LARGER): never downloaded whole, so a run's
 * memory is bounded by the limit. Its header is kept with a problem (counted, alarmed, listed) and
 * the message stays in the mailbox, \Seen and \Flagged, for an operator to fetch with a mail
 * client; never deleted or moved. Later runs pass over it (\Flagged), and its Message-ID (or its
 * header's hash) is recorded, so that one unflagged by a person is not reported twice. True when newly kept.
 */
async function keepOversized(
  client: ImapFlow,
  mailbox: ImapMailbox,
  uid: number,
  store: (key: string, raw: Buffer) => Promise<void>,
): Promise<boolean> {
  const fetched =
    (await client.fetchOne(String(uid), { uid: true, size: true, headers: true, internalDate: true }, { uid: true })) ||
    undefined;
  const size = fetched?.size ?? MAX_MESSAGE_BYTES + 1;
  const header = (fetched?.headers ?? Buffer.alloc(0)).subarray(0, MAX_HEADER_BYTES);
  // Its header alone, read as the ingest reads a message: the Message-ID (or the header's hash) and the sender.
  const { messageId, from: sender } = await parseMailBounded(header).catch(() => ({
    messageId: `<${sha256(header)}@no-message-id>`,
    from: '',
  }));
  const flag = async () =>
    must('flag \\Seen \\Flagged', client.messageFlagsAdd(String(uid), ['\\Seen', '\\Flagged'], { uid: true }));
  if (await findInbound(messageId)) {
    await flag();
    return false;
  }
  const rawKey = imapMessageKey(sha256(header));
  await store(rawKey, header);
  const received = (fetched?.internalDate instanceof Date ? fetched.internalDate : new Date()).toISOString();
  const reason =
    `refused: message of ${size} bytes is over the ${MAX_MESSAGE_BYTES}-byte limit; only its header ` +
    `is kept here, the message ` +
    `stays in ${mailbox.user}'s ${mailbox.mailbox} (UID ${uid}, flagged)`;
  metrics.addMetric(METRICS.mailInProblems, 'Count', 1);
  logger.warn('inbound mail kept for operators', { kind: 'failed', reason, rawKey });
  // Kept, then recorded, then flagged: a run that stops in between reports it again, never not at all.
  await keepProblem({
    kind: 'failed',
    reason,
    raw_key: rawKey,
    message_id: messageId,
    sender,
    received,
    recipients: [mailbox.recipient],
  });
  await recordInbound({
    message_id: messageId,
    outcome: 'failed',
    ticket: null,
    followup: null,
    raw_key: rawKey,
    sender,
    received,
    notes: [reason],
  });
  await flag();
  return true;
}
