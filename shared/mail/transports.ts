/**
 * Where composed mail goes (HELPDESK_MAIL_TRANSPORT):
 * - `mailbox`: one .eml file per message in a folder (the local runtime's default: nothing leaves
 *   the machine), readable by its owner only;
 * - `smtp`: an SMTP server (HELPDESK_SMTP_URL), through nodemailer's SMTP transport;
 * - `ses`: Amazon SES v2 SendEmail with the raw message and the configuration set, signed with the
 *   project's own SigV4 signer (no SDK client in the bundle). SES replaces the Message-ID: the one
 *   recorded is the one it assigns (domain/mail-threading.ts `sesMessageId`).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sesMessageId } from '../domain/mail-threading';
import type { MailSettings } from '../domain/mail';
import { config } from '../config';
import { sendRawEmail } from '../aws/ses';

export interface MailEnvelope {
  from: string;
  to: string;
  /** The Message-ID the composed mail carries. */
  messageId: string;
  /**
   * The signed return path (VERP) delivery reports go to, where the transport sets the envelope (not SES: its events
   * report bounces).
   */
  returnPath?: string;
}

export interface MailTransport {
  /** Sends the mail; the Message-ID the recipient sees. Throws when it was not accepted (the caller retries). */
  send(raw: Buffer, envelope: MailEnvelope): Promise<string>;
}

/**
 * A file name of the message: sortable by time, unique by Message-ID, nothing from the mail's values but its id's safe
 * characters.
 */
export const mailboxFileName = (messageId: string, now: Date) =>
  `${now.toISOString().replace(/[:.]/g, '-')}_${messageId.replace(/[^A-Za-z0-9.@_-]/g, '')}.eml`;

export function mailboxTransport(dir: string): MailTransport {
  return {
    async send(raw, envelope) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      // `wx`: a file of this name is never overwritten (the same mail is never captured twice over itself).
      // As a delivering server writes it: the envelope sender a delivery report goes back to.
      const returnPath = envelope.returnPath
        ? Buffer.from(`Return-Path: <${envelope.returnPath}>\r\n`)
        : Buffer.alloc(0);
      await writeFile(join(dir, mailboxFileName(envelope.messageId, new Date())), Buffer.concat([returnPath, raw]), {
        mode: 0o600,
        flag: 'wx',
      });
      return envelope.messageId;
    },
  };
}

export function smtpTransport(url: string): MailTransport {
  let transport: Promise<import('nodemailer').Transporter> | undefined;
  return {
    async send(raw, envelope) {
      // Loaded on first use: the SMTP client is the local runtime's (functions/mail/send.ts takes SES's alone).
      transport ??= import('nodemailer').then((n) => n.createTransport(url));
      await (
        await transport
      ).sendMail({ envelope: { from: envelope.returnPath ?? envelope.from, to: [envelope.to] }, raw });
      return envelope.messageId;
    },
  };
}

export function sesTransport(configurationSet: string | undefined): MailTransport {
  return {
    async send(raw, envelope) {
      const id = await sendRawEmail({ raw, from: envelope.from, to: envelope.to, configurationSet });
      return sesMessageId(id, config.aws.region);
    },
  };
}

/** The transport the settings name; undefined when mail is off. */
export function transportFor(settings: MailSettings): MailTransport | undefined {
  switch (settings.transport) {
    case 'mailbox':
      return mailboxTransport(settings.mailboxDir!);
    case 'smtp':
      return smtpTransport(settings.smtpUrl!);
    case 'ses':
      return sesTransport(settings.configurationSet);
    default:
      return undefined;
  }
}
