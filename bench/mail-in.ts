/**
 * `npx tsx bench/mail-in.ts`: the mail ingest's CPU and time per message (shared/mail-in/ingest.ts),
 * as the AWS function spends them: a plain message that opens a ticket, and one with a 5 MB
 * attachment (parsed, uploaded to S3, recorded). The engines (DynamoDB Local, s3rver) run in a child
 * process, so this process's CPU is the ingest's own (its S3 and DynamoDB calls' client side
 * included), not the engines'. Writes the "Mail in" section of docs/benchmarks.md (kept by the full
 * `npm run bench`).
 */
import { fork } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import MailComposer from 'nodemailer/lib/mail-composer';
import { renderMailIn, withSection, MAIL_IN_START, MAIL_IN_END, type MailInResult } from './report';

const ROOT = resolve(import.meta.dirname, '..');
const REPORT = resolve(ROOT, 'docs/benchmarks.md');
const log = (text: string) => process.stderr.write(`${text}\n`);

// The engines in a child process: it prints their endpoints, and stops them when this one ends.
if (process.argv[2] === '--engines') {
  const { startEngines } = await import('../infra/local/engines');
  const engines = await startEngines('memory');
  process.send!({ dynamoEndpoint: engines.dynamoEndpoint, s3Endpoint: engines.s3Endpoint });
  process.on('disconnect', () => void engines.stop().then(() => process.exit(0)));
} else {
  const child = fork(import.meta.filename, ['--engines'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const endpoints = await new Promise<{ dynamoEndpoint: string; s3Endpoint: string }>((done) =>
    child.once('message', (m) => done(m as never)),
  );
  const { useLocalEngines } = await import('../infra/local/endpoints');
  useLocalEngines(endpoints);
  process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
  process.env.HELPDESK_MAIL_IN_TICKETS_PER_SENDER_HOUR = '1000000';
  const { bootstrap } = await import('../infra/local/bootstrap');
  await bootstrap();
  const { ingest } = await import('../shared/mail-in/ingest');

  let n = 0;
  /** A message that opens a ticket: a quoted reply in text and HTML, or what `shape` gives instead. */
  interface Shape {
    attachment?: Buffer;
    /** The attachment's Content-Transfer-Encoding (base64 unless given). */
    attachmentEncoding?: string;
    text?: string;
    headers?: { key: string; value: string }[];
    /** A text body of these bytes as sent, in this charset (8bit), instead of a composed message. */
    body?: { charset: string; bytes: Buffer };
  }
  /** A PDF in base64, or with `encoding`, a text file's part as sent (nodemailer encodes every file it is given). */
  const attachmentPart = (content: Buffer, encoding?: string) =>
    encoding
      ? {
          raw: Buffer.concat([
            Buffer.from(
              'Content-Type: text/plain; name=log.txt\r\nContent-Disposition: attachment; filename=log.txt\r\n' +
                `Content-Transfer-Encoding: ${encoding}\r\n\r\n`,
            ),
            content,
          ]),
        }
      : { filename: 'scan.pdf', content, contentType: 'application/pdf' };
  const composed = ({ attachment, attachmentEncoding, text, headers }: Shape) =>
    new MailComposer({
      from: `sender${n}@example.com`,
      to: 'support@localhost',
      subject: `Bench ${n}`,
      messageId: `<bench.${n++}.${Date.now()}@example.com>`,
      text: text ?? 'The printer on floor 2 is jammed again.\n\nOn Mon, someone wrote:\n> earlier text',
      ...(text === undefined ? { html: '<p>The printer on floor 2 is jammed again.</p>' } : {}),
      ...(headers ? { headers } : {}),
      attachments: attachment ? [attachmentPart(attachment, attachmentEncoding)] : [],
    })
      .compile()
      .build();

  const message = ({ attachment, attachmentEncoding, text, headers, body }: Shape = {}) =>
    body
      ? Promise.resolve(
          Buffer.concat([
            Buffer.from(
              `From: sender${n}@example.com\r\nTo: support@localhost\r\nSubject: Bench ${n}\r\n` +
                `Message-ID: <bench.${n++}.${Date.now()}@example.com>\r\n` +
                `Content-Type: text/plain; charset=${body.charset}\r\nContent-Transfer-Encoding: 8bit\r\n\r\n`,
            ),
            body.bytes,
          ]),
        )
      : composed({ attachment, attachmentEncoding, text, headers });

  async function measure(name: string, count: number, shape?: Shape): Promise<MailInResult> {
    const raws = await Promise.all(Array.from({ length: count * 2 }, () => message(shape)));
    const run = async (batch: Buffer[]) => {
      const cpu = process.cpuUsage();
      const started = performance.now();
      for (const raw of batch) {
        const result = await ingest({ raw, rawKey: 'inbound/bench', recipients: ['support@localhost'] });
        if (result.outcome !== 'ticket') throw new Error(`bench message became ${result.outcome}`);
      }
      const used = process.cpuUsage(cpu);
      return {
        cpuMs: (used.user + used.system) / 1000 / batch.length,
        ms: (performance.now() - started) / batch.length,
      };
    };
    await run(raws.slice(0, count)); // warm-up
    const measured = await run(raws.slice(count));
    const result = {
      message: name,
      bytes: raws[0]!.length,
      messages: count,
      cpuMs: Math.round(measured.cpuMs * 10) / 10,
      ms: Math.round(measured.ms * 10) / 10,
    };
    log(JSON.stringify(result));
    return result;
  }

  const results = [
    await measure('plain (text and HTML parts, a quoted reply)', 100),
    await measure('with a 5 MB attachment', 10, { attachment: Buffer.alloc(5 * 1024 * 1024, 7) }),
    // What a probe found slow (docs/email.md, "What a message becomes"); the header rows at the header-line limit.
    await measure('hostile: 20,000 blank lines', 5, { text: `hi${'\n'.repeat(20_000)}x` }),
    // A 7bit or 8bit body's lines were joined through a Blob, 10 µs a line (shared/mail-in/parse.ts, JoiningDecoder).
    await measure('a log of 200,000 short lines attached as 7bit', 5, {
      attachment: Buffer.from('log line\n'.repeat(200_000)),
      attachmentEncoding: '7bit',
    }),
    // email-reply-parser read the whole text, 0.4 ms per KB (shared/domain/mail-in.ts, REPLY_WINDOW).
    await measure('a 10 MB log pasted as the text', 3, {
      text: 'the nightly export failed again at 02:14 with a timeout\n'.repeat(180_000),
    }),
    // mailauth checked every signature, a body hash for each l= (shared/mail-in/verify.ts, MAX_DKIM_SIGNATURES).
    await measure('hostile: 1,000 DKIM signatures on a 1 MB text', 3, {
      text: 'the nightly export failed again at 02:14 with a timeout\n'.repeat(18_000),
      headers: Array.from({ length: 1_000 }, (_, i) => ({
        key: 'DKIM-Signature',
        value:
          `v=1; a=rsa-sha256; c=relaxed/relaxed; d=example.com; s=sel; l=${1_000_000 - i}; h=from; ` +
          `bh=${'A'.repeat(43)}=; b=${'B'.repeat(340)}`,
      })),
    }),
    // A match object per undecodable character, and the text split whole (shared/domain/mail-in.ts).
    await measure('hostile: 20 MB that Shift JIS cannot read', 1, {
      body: { charset: 'shift_jis', bytes: Buffer.alloc(20 * 1024 * 1024, 0xff) },
    }),
    await measure('hostile: 39 MB of short lines', 1, {
      body: { charset: 'utf-8', bytes: Buffer.from('x\r\n'.repeat(13_000_000)) },
    }),
    await measure('hostile: one 100 KB line of "a on b at"', 5, { text: 'a on b at '.repeat(10_000) }),
    await measure('hostile: one header 4,900 times', 5, {
      headers: Array.from({ length: 4_900 }, () => ({ key: 'X-A', value: 'b' })),
    }),
    await measure('hostile: one header folded over 4,900 lines', 5, {
      headers: [{ key: 'X-A', value: Array.from({ length: 4_900 }, () => 'b').join('\r\n ') }],
    }),
  ];
  const report = readFileSync(REPORT, 'utf8');
  writeFileSync(
    REPORT,
    withSection(report, MAIL_IN_START, MAIL_IN_END, renderMailIn(results, new Date().toISOString())),
  );
  log('wrote the Mail in section of docs/benchmarks.md');
  child.disconnect();
  process.exit(0);
}
