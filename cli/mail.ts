/**
 * The local mailbox command: mail. The local runtime captures every mail it sends as one .eml file
 * in `<data dir>/mailbox` (infra/local/mail.ts); this lists them, newest last, or prints one as sent.
 * It reads files only: no engines are started.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { command, Failure, type Context } from './command';
import { chooseTarget } from './target';

/** The headers of a message's header block that the list shows (unfolded, as written). */
function header(raw: string, name: string): string {
  const head = raw.slice(0, raw.search(/\r?\n\r?\n/) >>> 0);
  const match = new RegExp(`^${name}:[ \\t]*((?:.*)(?:\\r?\\n[ \\t].*)*)`, 'im').exec(head);
  return match ? match[1]!.replace(/\r?\n[ \t]+/g, ' ').trim() : '';
}

/** MIME encoded words (=?UTF-8?B?...?= / Q) made readable for the list. */
function decoded(value: string): string {
  // Whitespace between two encoded words is not text (RFC 2047 section 6.2).
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([bBqQ])\?([^?]*)\?=/g, (_, _charset: string, encoding: string, text: string) =>
      encoding.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : Buffer.from(
            text
              .replace(/_/g, ' ')
              .replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16))),
            'latin1',
          ).toString('utf8'),
    );
}

export const mail = command({
  name: 'mail',
  summary: 'list the mail the local runtime captured, or print one (--show 3, --show last)',
  description:
    'The local runtime (npm start) sends no mail out unless HELPDESK_SMTP_URL is set: it keeps each message as ' +
    'sent, one .eml file in <data dir>/mailbox. Without an argument this lists them, oldest first: number, time, ' +
    'recipient and subject (--json: one object each). With --show and a number (or `last`) it prints that ' +
    'message as sent, headers and MIME parts.',
  options: { show: { type: 'string', value: 'N', help: 'print message N of the list (or `last`) as sent' } },
  examples: [
    'npm run helpdesk -- mail',
    'npm run helpdesk -- mail --show last',
    'npm run helpdesk -- mail --show 3 > message.eml',
  ],
  offline: true,
  prepare(ctx: Context) {
    const target = chooseTarget(ctx.options);
    if (target.kind !== 'local')
      throw new Failure(
        "The mailbox is the local runtime's (<data dir>/mailbox); on AWS see GET /api/tickets/{id}/emails/.",
      );
    const dir = join(target.dataDir, 'mailbox');
    const which = ctx.options.show === undefined ? undefined : String(ctx.options.show);
    return async () => {
      const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.eml')).sort();
      if (which !== undefined) {
        const index = which === 'last' ? files.length : Number(which);
        if (!Number.isInteger(index) || index < 1 || index > files.length)
          throw new Failure(`No message ${which}: the mailbox holds ${files.length} (1 to ${files.length}).`);
        ctx.out((await readFile(join(dir, files[index - 1]!), 'utf8')).replace(/\r\n/g, '\n').trimEnd());
        return;
      }
      if (!files.length && !ctx.json) ctx.out(`The mailbox (${dir}) is empty.`);
      for (const [i, file] of files.entries()) {
        const raw = await readFile(join(dir, file), 'utf8');
        const entry = {
          number: i + 1,
          date: header(raw, 'Date'),
          to: header(raw, 'To'),
          subject: decoded(header(raw, 'Subject')),
          file: join(dir, file),
        };
        ctx.out(
          ctx.json
            ? JSON.stringify(entry)
            : `${String(entry.number).padStart(4)}  ${entry.date}  ${entry.to}  ${entry.subject}`,
        );
      }
    };
  },
});
