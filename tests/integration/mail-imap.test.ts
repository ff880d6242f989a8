/**
 * Mail in from an IMAP mailbox, end to end: a real IMAP server (hoodiecrow-imap) on loopback, over
 * TLS with a certificate made for this run (trusted by the runtime through NODE_EXTRA_CA_CERTS, as an
 * operator's own CA would be), polled by `npm start` (HELPDESK_IMAP_URL) every 200 ms. Messages are
 * put in the mailbox with IMAP APPEND, as a mail server delivers them; what they became is read back
 * over the API, and what the poller did to them in the server's mailboxes.
 *
 * Faults are injected at the server: its UID STORE (the poller's first mark of a message) can
 * observe the helpdesk first, or drop the connection instead of answering.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import hoodiecrow, { type CommandHandler } from 'hoodiecrow-imap';
import { ImapFlow } from 'imapflow';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { unique, type Json } from './client';
import { mailCli, mailsTo } from './mail-helpers';
import { useOwnRuntime } from './own-runtime';
import { onSharedEngines } from './shared-engines';
import { MAX_MESSAGE_BYTES } from '../../shared/domain/mail-in';
import { parseImapUrl } from '../../shared/domain/mail-in-imap';
import { pollMailbox } from '../../shared/mail-in/imap';
import { compose, gmailReply } from '../fixtures/mail/corpus';
import { selfSignedCertificate } from '../fixtures/certificates';

const SECRET = 'mail-imap-test-secret-0123456789abcdefghijklmnop';
const USER = 'support@example.com';
const PASSWORD = 'app-password-abcd-efgh';
const engines = onSharedEngines('mail-imap');
const dir = mkdtempSync(join(tmpdir(), 'helpdesk-imap-'));
const mailbox = join(dir, 'sent');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A certificate for 127.0.0.1, valid for a day: the poller refuses plain text to anything but loopback, and this run
// checks the TLS path.
const { keyPath, certPath } = selfSignedCertificate(dir, '/CN=localhost', [
  'subjectAltName=IP:127.0.0.1,DNS:localhost',
]);
const cert = readFileSync(certPath);

const server = hoodiecrow({
  secureConnection: true,
  credentials: { key: readFileSync(keyPath), cert },
  plugins: ['ID', 'UIDPLUS', 'MOVE'],
  users: { [USER]: { password: PASSWORD } },
  storage: { INBOX: { messages: [] }, '': { folders: {} } },
});
await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
afterAll(() => new Promise<void>((done) => server.close(() => done())));
const port = (server.server.address() as AddressInfo).port;

/**
 * Called with the message's raw text when the poller first marks it (UID STORE); 'drop' closes the connection instead
 * of answering.
 */
let onMark: (raw: string) => Promise<'apply' | 'drop'> = () => Promise.resolve('apply');
const store: CommandHandler = server.getCommandHandler('UID STORE');
server.setCommandHandler('UID STORE', (connection, parsed, data, callback) => {
  const uid = Number(parsed.attributes[0]!.value);
  const raw = connection.selectedMailbox?.messages.find((m) => m.uid === uid)?.raw ?? '';
  void onMark(raw).then((action) =>
    action === 'drop' ? connection.socket?.destroy() : store(connection, parsed, data, callback),
  );
});

const queueSlug = unique('imapq');
const queueAddress = `${queueSlug}@localhost`;
const own = useOwnRuntime({
  ...engines,
  HELPDESK_MAILBOX_DIR: mailbox,
  HELPDESK_MAIL_FROM: 'Helpdesk <helpdesk@localhost>',
  HELPDESK_MAIL_SECRET: SECRET,
  HELPDESK_IMAP_URL: `imaps://${encodeURIComponent(USER)}@127.0.0.1:${port}/INBOX?recipient=${queueAddress}`,
  HELPDESK_IMAP_PASSWORD: PASSWORD,
  HELPDESK_IMAP_POLL_SECONDS: '0.2',
  NODE_EXTRA_CA_CERTS: certPath,
});
let queueId: number;
beforeAll(async () => {
  const reply = await own.api.call('POST', '/api/queues/', { json: { title: 'IMAP', slug: queueSlug } });
  expect(reply.status, reply.text).toBe(201);
  queueId = reply.body.id;
});

/** Puts a message in the mailbox's INBOX, as the mail provider does. */
async function deliver(raw: Buffer): Promise<void> {
  const client = new ImapFlow({
    host: '127.0.0.1',
    port,
    secure: true,
    tls: { ca: cert },
    auth: { user: USER, pass: PASSWORD },
    logger: false,
    disableAutoIdle: true,
  });
  await client.connect();
  try {
    expect(await client.append('INBOX', raw)).toBeTruthy();
  } finally {
    await client.logout();
  }
}

const messagesIn = (path: string) => server.getMailbox(path)?.messages ?? [];
const processed = (from: string) => messagesIn('Processed').filter((m) => m.raw.includes(from));

/** Waits until the poller has moved `count` messages from `from` to the processed folder. */
async function processedFrom(from: string, count = 1) {
  await expect.poll(() => processed(from).length, { timeout: 20_000, interval: 100 }).toBe(count);
  return processed(from);
}

async function ticketsOf(email: string): Promise<Json[]> {
  const reply = await own.api.call('GET', `/api/tickets/?submitter_email=${encodeURIComponent(email)}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body.results;
}

describe('a mailbox polled over IMAP', () => {
  it('turns a new message into a ticket, and marks it (\\Seen, moved) only once the ticket is there', async () => {
    const from = `${unique('imap')}@example.com`;
    let ticketsAtMark: number | undefined;
    onMark = async (raw) => {
      if (raw.includes(from)) ticketsAtMark = (await ticketsOf(from)).length;
      return 'apply';
    };
    await deliver(
      await compose(
        { from: `Imogen <${from}>`, to: queueAddress, subject: 'Re: Printer on floor 3' },
        { text: 'It is jammed again.' },
      ),
    );
    const [moved] = await processedFrom(from);
    expect(ticketsAtMark).toBe(1);
    expect(moved!.flags).toContain('\\Seen');
    expect(messagesIn('INBOX').some((m) => m.raw.includes(from))).toBe(false);
    const [ticket, ...others] = await ticketsOf(from);
    expect(others).toEqual([]);
    expect(ticket).toMatchObject({
      queue: queueId,
      title: 'Printer on floor 3',
      description: 'It is jammed again.',
      submitter_email: from,
    });
  });

  it(
    'stamps the ticket created when it is read, not when the mailbox received ' + 'it: ids follow creation times',
    async () => {
      const from = `${unique('waited')}@example.com`;
      const start = new Date().toISOString();
      // A message that waited in the mailbox for two days (its IMAP internal date), read now.
      const raw = await compose(
        { from, to: queueAddress, subject: 'Sent while you were away' },
        { text: 'Two days ago.' },
      );
      server.appendMessage('INBOX', [], new Date(Date.now() - 2 * 86_400_000), raw.toString('latin1'));
      await processedFrom(from);
      const filters = `submitter_email=${encodeURIComponent(from)}&created_since=${encodeURIComponent(start)}`;
      const since = `/api/tickets/?${filters}&ordering=id`;
      await expect
        .poll(async () => (await own.api.call('GET', since)).body.results.map((t: Json) => t.title), {
          timeout: 10_000,
          interval: 100,
        })
        .toEqual(['Sent while you were away']);
    },
  );

  it('read again after a run broke off between the ticket and the mark, makes one ticket', async () => {
    const from = `${unique('again')}@example.com`;
    let marks = 0;
    onMark = (raw) => Promise.resolve(raw.includes(from) && ++marks === 1 ? 'drop' : 'apply');
    await deliver(await compose({ from, to: queueAddress, subject: 'Twice over IMAP' }, { text: 'Once, please.' }));
    await processedFrom(from);
    expect(marks).toBe(2); // the message was read, stored and ingested twice
    expect((await ticketsOf(from)).map((t) => t.title)).toEqual(['Twice over IMAP']);
  });

  it(
    `keeps a message over ${MAX_MESSAGE_BYTES} bytes as a problem, left in the mailbox flagged, and goes on with ` +
      `the next`,
    async () => {
      const from = `${unique('huge')}@example.com`;
      const line = `${'x'.repeat(998)}\r\n`;
      const body = line.repeat(Math.ceil((MAX_MESSAGE_BYTES + 1) / line.length));
      // Put in by the server itself, as the provider delivers: 41 MB through the test server's APPEND takes it a
      // minute.
      server.appendMessage(
        'INBOX',
        [],
        new Date(),
        `From: Hugo <${from}>\r\nTo: ${queueAddress}\r\nSubject: A huge scan\r\n` +
          `Message-ID: <${unique('huge')}@example.com>\r\n\r\n${body}`,
      );
      const after = `${unique('after')}@example.com`;
      await deliver(
        await compose({ from: after, to: queueAddress, subject: 'After the huge one' }, { text: 'Small.' }),
      );
      await processedFrom(after);
      // A later run passes over it: still one problem.
      const later = `${unique('later')}@example.com`;
      await deliver(await compose({ from: later, to: queueAddress, subject: 'Later still' }, { text: 'Small too.' }));
      await processedFrom(later);
      const huge = messagesIn('INBOX').find((m) => m.raw.includes(from));
      expect(huge?.flags).toEqual(expect.arrayContaining(['\\Seen', '\\Flagged']));
      expect(await ticketsOf(from)).toEqual([]);
      const listed = await mailCli(engines, SECRET, ['list-mail-problems']);
      expect(listed.code, listed.stderr).toBe(0);
      const problems = JSON.parse(listed.stdout).filter((p: Json) => p.sender === from);
      expect(problems).toEqual([
        expect.objectContaining({
          kind: 'failed',
          reason: expect.stringMatching(/over the 41943040-byte limit.*stays in/),
        }),
      ]);
    },
  );

  it('lands a reply to the acknowledgement (its Reply-To and In-Reply-To) on its ticket', async () => {
    const from = `${unique('reply')}@example.com`;
    await deliver(
      await compose({ from, to: queueAddress, subject: 'Badge does not open the door' }, { text: 'Since Monday.' }),
    );
    await processedFrom(from);
    const [ticket] = await ticketsOf(from);
    const [ack] = await mailsTo(mailbox, from, 1);
    const replyTo = ack!.replyTo?.[0]?.address;
    expect(replyTo).toMatch(new RegExp(`^helpdesk\\+${ticket!.id}\\.`));
    await deliver(
      gmailReply(
        { from, to: replyTo!, subject: `Re: ${ack!.subject}`, inReplyTo: ack!.messageId },
        'It works again, thanks.',
      ),
    );
    await processedFrom(from, 2);
    expect((await ticketsOf(from)).map((t) => t.id)).toEqual([ticket!.id]);
    const reply = await own.api.call('GET', `/api/tickets/${ticket!.id}/`);
    expect(reply.body.followup_set.at(-1).comment).toBe('It works again, thanks.');
  });
});

describe('a run that cannot go on', () => {
  /** A mailbox of its own, in plain text on loopback (the one place the poller allows it), holding one message. */
  async function plainMailbox() {
    const local = hoodiecrow({
      plugins: ['ID', 'UIDPLUS', 'MOVE'],
      users: { [USER]: { password: PASSWORD } },
      storage: {
        INBOX: {
          messages: [
            {
              raw:
                'From: ann@example.com\r\nTo: support@example.com\r\nSubject: Stuck\r\nMessage-ID: ' +
                '<stuck@example.com>\r\n\r\nHello.\r\n',
              flags: [],
            },
          ],
        },
        '': { folders: {} },
      },
    });
    await new Promise<void>((done) => local.listen(0, '127.0.0.1', done));
    const url = `imap://${encodeURIComponent(USER)}@127.0.0.1:${(local.server.address() as AddressInfo).port}/INBOX`;
    return { local, mailbox: parseImapUrl(url), close: () => new Promise<void>((done) => local.close(() => done())) };
  }

  it('when the raw message cannot be stored, leaves the message unmarked in its folder', async () => {
    const { local, mailbox, close } = await plainMailbox();
    try {
      const ingested: unknown[] = [];
      const run = pollMailbox(mailbox, PASSWORD, {
        store: () => Promise.reject(new Error('S3 is down')),
        ingest: (delivery) => Promise.reject(new Error(`not reached: ${ingested.push(delivery)}`)),
      });
      await expect(run).rejects.toThrow('S3 is down');
      expect(ingested).toEqual([]);
      expect(local.getMailbox('INBOX')!.messages.map((m) => m.flags)).toEqual([[]]);
      expect(local.getMailbox('Processed')!.messages).toEqual([]);
    } finally {
      await close();
    }
  });

  it('refuses a wrong app password, touching nothing', async () => {
    const { local, mailbox, close } = await plainMailbox();
    try {
      await expect(pollMailbox(mailbox, 'not-the-password')).rejects.toThrow();
      expect(local.getMailbox('INBOX')!.messages.map((m) => m.flags)).toEqual([[]]);
    } finally {
      await close();
    }
  });
});
