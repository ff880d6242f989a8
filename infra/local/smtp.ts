/**
 * The local runtime's way in for mail (docs/local.md, "Mail in"): an SMTP server on loopback that
 * accepts mail for the queues' addresses, stores each message raw in the local S3 as SES's S3 action
 * would (the mail bucket, under `inbound/`), and runs the same ingest as the AWS function
 * (shared/mail-in/ingest.ts). Any mail client or library can send to it; nothing leaves the machine.
 *
 * No AUTH and no STARTTLS: it listens on loopback only. A message over the 40 MB limit is refused
 * (552) and never held past the limit: what follows is read and dropped as it streams in. One the
 * ingest refuses (MIME nesting, header size, parts) is answered 554 with the reason, and kept for
 * operators like every problem. Connections are limited (smtpLimits): a client past the limit is
 * answered 421, an idle one is closed.
 */
import { SMTPServer, type SMTPServerDataStream } from 'smtp-server';
import { randomUUID } from 'node:crypto';
import { config } from '../../shared/config';
import { MAX_MESSAGE_BYTES, withoutTag } from '../../shared/domain/mail-in';
import { putFile } from '../../shared/aws/s3';
import { INBOUND_MAIL_PREFIX } from '../../shared/store/keys';
import { ingest, type IngestResult } from '../../shared/mail-in/ingest';
import type { MailInHooks } from '../../shared/mail-in/hooks';
import { queuesOfMessage } from '../../shared/mail-in/known-queues';
import { MAIL_IN_GRANTS } from '../../shared/api/table-access';
import { asFunction } from './table-access';

export interface LocalSmtp {
  port: number;
  stop(): Promise<void>;
}

/** An SMTP reply: `responseCode` is what the client sees. */
const smtpError = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code });

/** The key a received message is kept under: by date, as a listing of the bucket reads. */
export function inboundKey(now: Date): string {
  return `${INBOUND_MAIL_PREFIX}${now.toISOString().slice(0, 10)}/${randomUUID()}`;
}

/** What the local SMTP server allows (docs/local.md, "Mail in"). */
export interface SmtpLimits {
  /** Connections at once (HELPDESK_SMTP_MAX_CLIENTS): one more is answered 421 and closed. */
  maxClients: number;
  /** How long a client may owe the server input (HELPDESK_SMTP_IDLE_SECONDS) before it is closed (421). */
  socketTimeoutMs: number;
  /** How long a stop waits for connected clients before closing them. */
  closeTimeoutMs: number;
}

export const DEFAULT_SMTP_MAX_CLIENTS = 10;
export const DEFAULT_SMTP_IDLE_SECONDS = 60;
const SMTP_CLOSE_TIMEOUT_MS = 5_000;

export function smtpLimits(env: Record<string, string | undefined> = process.env): SmtpLimits {
  const whole = (name: string, fallback: number) => {
    const raw = (env[name] ?? String(fallback)).trim();
    if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new Error(`${name} must be a whole number above 0, not "${raw}"`);
    return Number(raw);
  };
  return {
    maxClients: whole('HELPDESK_SMTP_MAX_CLIENTS', DEFAULT_SMTP_MAX_CLIENTS),
    socketTimeoutMs: whole('HELPDESK_SMTP_IDLE_SECONDS', DEFAULT_SMTP_IDLE_SECONDS) * 1000,
    closeTimeoutMs: SMTP_CLOSE_TIMEOUT_MS,
  };
}

/**
 * The message as it streamed in, or undefined when it went over `limit` bytes: from there on each chunk is read
 * (the client must be let finish before it hears 552) and dropped, and what was kept is let go.
 */
async function readUpTo(stream: SMTPServerDataStream, limit: number): Promise<Buffer | undefined> {
  let chunks: Buffer[] | undefined = [];
  let size = 0;
  for await (const chunk of stream) {
    if (!chunks) continue;
    size += (chunk as Buffer).length;
    if (size > limit) chunks = undefined;
    else chunks.push(chunk as Buffer);
  }
  return chunks && Buffer.concat(chunks, size);
}

/** The SMTP answer to an ingest's outcome: accepted unless the message itself was refused. */
function answer(result: IngestResult): string {
  if (result.outcome === 'refused') throw smtpError(554, `5.6.0 Message refused: ${result.reason}`);
  // The message record's notes too (SPF, a charset read otherwise than labelled...): what a developer's mail client
  // shows.
  if (result.outcome === 'ticket' || result.outcome === 'followup') {
    const notes = result.notes.length ? ` (${result.notes.join('; ')})` : '';
    return `Accepted: ${result.outcome} on ticket ${result.ticket}${notes}`;
  }
  if (result.outcome === 'duplicate') return 'Accepted: already received';
  return `Accepted: ${result.outcome} (${result.reason})`;
}

/**
 * Whether mail is accepted for `address`: a queue's or the helpdesk's sender's (plus-addressed replies
 * to it), by the queues kept for mail in, read again before a refusal (shared/mail-in/known-queues.ts).
 */
async function answersAt(address: string): Promise<boolean> {
  const queues = await queuesOfMessage();
  return (await queues.find((known) => known.own.has(withoutTag(address)) || undefined)) === true;
}

export async function startLocalSmtp(
  port: number,
  hooks?: MailInHooks,
  host = '127.0.0.1',
  limits = smtpLimits(),
): Promise<LocalSmtp> {
  const server = new SMTPServer({
    logger: false,
    maxClients: limits.maxClients,
    socketTimeout: limits.socketTimeoutMs,
    closeTimeout: limits.closeTimeoutMs,
    disabledCommands: ['AUTH', 'STARTTLS'],
    authOptional: true,
    size: MAX_MESSAGE_BYTES,
    rejectOversized: true,
    banner: 'helpdesk local mail in',
    onRcptTo(address, _session, callback) {
      answersAt(address.address).then(
        (known) => callback(known ? null : smtpError(550, `5.1.1 No queue answers at ${address.address}`)),
        (error: Error) => callback(smtpError(451, `4.3.0 Try again later: ${error.message}`)),
      );
    },
    onData(stream, session, callback) {
      const receivedAt = new Date();
      readUpTo(stream, MAX_MESSAGE_BYTES)
        .then(async (raw) => {
          if (!raw) throw smtpError(552, `5.3.4 Message over the ${MAX_MESSAGE_BYTES}-byte limit`);
          const rawKey = inboundKey(receivedAt);
          await putFile(rawKey, raw, 'message/rfc822', config.mailIn.bucket);
          const recipients = session.envelope.rcptTo.map((r) => r.address);
          // Held to the AWS function's grants, as the API's handlers are to theirs (table-access.ts).
          return answer(
            await asFunction('mail-in/ingest', MAIL_IN_GRANTS, () =>
              ingest({ raw, rawKey, recipients, receivedAt }, hooks),
            ),
          );
        })
        .then(
          (message) => callback(null, message),
          (error: Error & { responseCode?: number }) =>
            callback(error.responseCode ? error : smtpError(451, `4.3.0 Not stored: ${error.message}`)),
        );
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', () => undefined); // a client's broken connection is its own problem
  const address = server.server.address() as { port: number };
  return {
    port: address.port,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
