/**
 * A mail as sent (MIME, RFC 5322), composed by nodemailer's composer (multipart/alternative text and
 * HTML, attachments, encoded words in headers): never by hand.
 */
import MailComposer from 'nodemailer/lib/mail-composer';

export interface OutgoingMail {
  from: { name: string; address: string };
  to: string;
  replyTo: string;
  subject: string;
  text: string;
  html: string;
  messageId: string;
  /** In-Reply-To, References, Auto-Submitted, X-Auto-Response-Suppress. */
  headers: Record<string, string>;
  attachments: { filename: string; content: Buffer; contentType: string }[];
  date: Date;
}

/** The mail's bytes, as they go to the transport (and into the local mailbox). */
export function composeMail(mail: OutgoingMail): Promise<Buffer> {
  const { 'In-Reply-To': inReplyTo, References: references, ...headers } = mail.headers;
  const composer = new MailComposer({
    from: { name: mail.from.name, address: mail.from.address },
    to: mail.to,
    replyTo: mail.replyTo,
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    messageId: mail.messageId,
    date: mail.date,
    ...(inReplyTo ? { inReplyTo } : {}),
    ...(references ? { references } : {}),
    headers,
    attachments: mail.attachments.map((a) => ({
      filename: a.filename,
      content: a.content,
      contentType: a.contentType,
    })),
    // Nothing in a mail is fetched from a path or URL: every part is given as content.
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  return new Promise((resolve, reject) =>
    composer.compile().build((error, message) => (error ? reject(error) : resolve(message))),
  );
}
