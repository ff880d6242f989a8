/**
 * Mail in, end to end: real MIME messages (tests/fixtures/mail/corpus.ts) sent over SMTP to a local
 * runtime of its own (`npm start`'s SMTP server, on a free port), and what they became read back
 * over the API: tickets, followups, attachments, threading, and the refusals.
 *
 * A message that creates nothing is shown to have created nothing by the ticket ids: a ticket sent
 * right before it and one right after it have consecutive ids (ticket ids come from one counter).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { unique, type Json } from './client';
import { mailCli, mailsTo as mailsToIn, sendRaw, newMailQueue, readTicket, type Sent } from './mail-helpers';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { useOwnRuntime } from './own-runtime';
import { spawnApiRuntime } from './spawn-runtime';
import { onSharedEngines } from './shared-engines';
import { replyAddress } from '../../shared/domain/mail-threading';
import {
  appleMailReply,
  compose,
  dsnBounce,
  foldedSubject,
  gmailReply,
  legacyCharset,
  misdeclaredUtf8,
  windows1252Headers,
  nestedBomb,
  newMessageId,
  outlookReply,
  outOfOffice,
} from '../fixtures/mail/corpus';

const RATE = 3;
const SECRET = 'mail-in-test-secret-0123456789abcdefghijklmnop';
/** The runtime's table and bucket, which the CLI is pointed at too. */
const engines = onSharedEngines('mail-in');
/** Where the runtime's outbound mail (issue 22) is captured: acknowledgements, replies are read from here. */
const mailbox = mkdtempSync(join(tmpdir(), 'helpdesk-mail-in-'));
afterAll(() => rmSync(mailbox, { recursive: true, force: true }));
const own = useOwnRuntime({
  ...engines,
  HELPDESK_MAILBOX_DIR: mailbox,
  HELPDESK_MAIL_IN_TICKETS_PER_SENDER_HOUR: String(RATE),
  HELPDESK_MAIL_FROM: 'Helpdesk <helpdesk@localhost>',
  HELPDESK_MAIL_SECRET: SECRET,
});

const cli = (args: string[]) => mailCli(engines, SECRET, args);

const send = (raw: Buffer, to: string[], from?: string): Promise<Sent> => sendRaw(own.runtime.smtpPort, raw, to, from);

const newQueue = () => newMailQueue(own.api, 'mq');
const ticket = (id: number) => readTicket(own.api, id);

/** A new ticket by mail from `from`; returns its id and the message's Message-ID. */
async function mailTicket(
  queue: { address: string },
  from: string,
  subject = 'Printer jammed',
): Promise<{ id: number; messageId: string }> {
  const messageId = newMessageId();
  const sent = await send(await compose({ from, to: queue.address, subject, messageId }), [queue.address], from);
  expect(sent.response).toMatch(/ticket on ticket \d+/);
  return { id: sent.ticket!, messageId };
}

/** Shows that `act` creates no ticket: tickets made just before and just after it have consecutive ids. */
async function createsNoTicket(queue: { address: string }, act: () => Promise<Sent>): Promise<Sent> {
  const before = await mailTicket(queue, `${unique('b')}@example.com`);
  const sent = await act();
  const after = await mailTicket(queue, `${unique('a')}@example.com`);
  expect(after.id).toBe(before.id + 1);
  return sent;
}

describe('a new message to a queue', () => {
  it('becomes a ticket: submitter, title without prefixes, text, priority, and every file kept', async () => {
    const queue = await newQueue();
    const from = `${unique('alice')}@example.com`;
    const pdf = Buffer.from('%PDF-1.4 fake but bytes are bytes \u0000\u0001\u0002');
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    const raw = await compose(
      {
        from: `Alice <${from}>`,
        to: queue.address,
        subject: 'Fwd: RE: Printer on floor 2',
        headers: { Importance: 'high' },
      },
      {
        text: 'The printer is jammed.',
        html: '<p>The printer is <b>jammed</b>.</p><img src="cid:shot@example">',
        attachments: [
          { filename: '../../etc/report\u202Efdp.pdf', content: pdf, contentType: 'application/pdf' },
          { filename: 'screenshot.png', content: png, contentType: 'image/png', cid: 'shot@example' },
        ],
      },
    );
    const sent = await send(raw, [queue.address], from);
    expect(sent.code).toBe(250);
    const t = await ticket(sent.ticket!);
    expect(t).toMatchObject({
      queue: queue.id,
      title: 'Printer on floor 2',
      submitter_email: from,
      description: 'The printer is jammed.',
      priority: 2,
      status: 1,
    });
    const [opening] = t.followup_set;
    expect(opening).toMatchObject({
      title: `E-Mail Received from ${from}`,
      public: true,
      user: null,
      comment: 'The printer is jammed.',
    });
    expect(opening.message_id).toMatch(/^<.+@mail\.example\.com>$/);
    const files = Object.fromEntries(opening.followupattachment_set.map((a: Json) => [a.filename, a]));
    expect(Object.keys(files).sort()).toEqual(['email_html_body.txt', 'reportfdp.pdf', 'screenshot.png']);
    expect(files['email_html_body.txt'].mime_type).toBe('text/html');
    const link = await own.api.call('GET', new URL(files['reportfdp.pdf'].file).pathname);
    expect(link.status).toBe(302);
    expect(Buffer.from(await (await fetch(link.headers.get('location')!)).arrayBuffer())).toEqual(pdf);
  });

  // A verified sender's CCs are added (tests/integration/mail-trust.test.ts); an unverified one's are not (issue 32).
  it('adds no CCs from an unverified sender, and says so', async () => {
    const queue = await newQueue();
    const sent = await send(
      await compose({
        from: 'lead@example.com',
        to: `${queue.address}, Ops <ops@example.com>`,
        cc: `Bob <BOB@example.com>, ${queue.address}`,
      }),
      [queue.address],
      'lead@example.com',
    );
    const ccs = await own.api.call('GET', `/api/tickets/${sent.ticket}/cc`);
    expect(ccs.status, ccs.text).toBe(200);
    expect(ccs.body.results).toEqual([]);
    expect(sent.response).toContain('no CCs added');
  });

  it('without a text part takes the HTML turned into text, and keeps the HTML as a file', async () => {
    const queue = await newQueue();
    const sent = await send(
      await compose(
        { from: 'html@example.com', to: queue.address, subject: 'HTML only' },
        { text: undefined, html: '<div>Line one<br>Line &amp; two</div><script>alert(1)</script>' },
      ),
      [queue.address],
    );
    const t = await ticket(sent.ticket!);
    expect(t.description).toBe('Line one\nLine & two');
    expect(t.followup_set[0].followupattachment_set.map((a: Json) => a.filename)).toEqual(['email_html_body.txt']);
  });

  it('reads ISO-8859-1, Windows-1252 and Shift_JIS bodies as the characters they are', async () => {
    const queue = await newQueue();
    const cases: [string, Buffer, string][] = [
      ['iso-8859-1', Buffer.from('Caf\xe9 cr\xe8me, na\xefve', 'latin1'), 'Café crème, naïve'],
      ['windows-1252', Buffer.from([0x80, 0x20, 0x31, 0x30, 0x20, 0x96, 0x20, 0x93, 0x71, 0x94]), '€ 10 – “q”'],
      ['shift_jis', Buffer.from([0x82, 0xb1, 0x82, 0xf1, 0x82, 0xc9, 0x82, 0xbf, 0x82, 0xcd]), 'こんにちは'],
    ];
    for (const [charset, body, text] of cases) {
      const sent = await send(legacyCharset({ from: 'intl@example.com', to: queue.address }, charset, body), [
        queue.address,
      ]);
      expect((await ticket(sent.ticket!)).description, charset).toBe(text);
    }
  });

  it(
    'reads a Windows-1252 body sent as UTF-8 (or unlabelled) as the characters it is, and notes it, never ' +
      'storing U+FFFD',
    async () => {
      const queue = await newQueue();
      for (const charset of ['utf-8', undefined]) {
        const sent = await send(misdeclaredUtf8({ from: 'old-client@example.com', to: queue.address }, charset), [
          queue.address,
        ]);
        expect(sent.response, String(charset)).toContain(
          '1 text part(s) labelled UTF-8 (or unlabelled) were not UTF-8: read as Windows-1252',
        );
        expect((await ticket(sent.ticket!)).description, String(charset)).toBe('Café naïve €');
      }
    },
  );

  it('reads the body of a 3 MB text from its head: the reply, the text cut as stored, and a note', async () => {
    const queue = await newQueue();
    const from = `${unique('logger')}@example.com`;
    const log = 'the nightly export failed again at 02:14 with a timeout\n'.repeat(60_000);
    const text = `Our export is failing, the log is below.\n\n${log}`;
    const message = `From: ${from}\r\nTo: ${queue.address}\r\nSubject: Export failing\r\n\r\n${text}`;
    const sent = await send(Buffer.from(message.replace(/(?<!\r)\n/g, '\r\n')), [queue.address]);
    expect(sent.response).toContain(`the text is ${text.length} characters: its body was read from the first 200000`);
    const description = String((await ticket(sent.ticket!)).description);
    expect(description.startsWith('Our export is failing, the log is below.\n\nthe nightly export failed')).toBe(true);
    expect(description.endsWith('\n[cut: the whole message is kept]')).toBe(true);
  });

  it('reads raw header bytes that are not UTF-8 as Windows-1252, and notes it, never storing U+FFFD', async () => {
    const queue = await newQueue();
    const from = `${unique('old-client')}@example.com`;
    const sent = await send(windows1252Headers({ from, to: queue.address }), [queue.address]);
    expect(sent.response).toContain('2 header line(s) held raw bytes that were not UTF-8: read as Windows-1252');
    const t = await ticket(sent.ticket!);
    expect(t.title).toBe('Café crème – 10 €');
    expect(t.submitter_email).toBe(from);
    expect(t.description).toBe('Plain body.');
  });

  it('takes a folded, encoded subject whole (upstream issue #756)', async () => {
    const queue = await newQueue();
    const sent = await send(foldedSubject({ from: 'fold@example.com', to: queue.address }), [queue.address]);
    expect((await ticket(sent.ticket!)).title).toBe(
      'A very long subject line that a client folded over two lines – café',
    );
  });
});

/** The captured outbound mails to `to`, once there are `count`. */
const mailsTo = (to: string, count: number) => mailsToIn(mailbox, to, count);

describe('a reply', () => {
  it('to the acknowledgement in the local mailbox lands on its ticket (Reply-To and In-Reply-To as sent)', async () => {
    const queue = await newQueue();
    const from = `${unique('ack')}@example.com`;
    const first = await mailTicket(queue, from);
    const [ack] = await mailsTo(from, 1);
    expect(ack!.subject).toContain(`[${queue.slug}-${first.id}]`);
    const replyTo = ack!.replyTo?.[0]?.address;
    expect(replyTo).toMatch(new RegExp(`^helpdesk\\+${first.id}\\.[a-z2-7]+\\.[a-z2-7]+@localhost$`));
    const sent = await send(
      gmailReply(
        { from, to: replyTo!, subject: `Re: ${ack!.subject}`, inReplyTo: ack!.messageId },
        'Thanks for the quick answer.',
      ),
      [replyTo!],
      from,
    );
    expect(sent.ticket).toBe(first.id);
    expect((await ticket(first.id)).followup_set.at(-1).comment).toBe('Thanks for the quick answer.');
  });

  it('joins its ticket by In-Reply-To (Gmail), with the quoted history stripped', async () => {
    const queue = await newQueue();
    const from = `${unique('g')}@gmail.example`;
    const first = await mailTicket(queue, from);
    const sent = await send(
      gmailReply({ from, to: queue.address, inReplyTo: first.messageId }, 'Still jammed this morning.'),
      [queue.address],
      from,
    );
    expect(sent.response).toContain(`followup on ticket ${first.id}`);
    const t = await ticket(first.id);
    expect(t.followup_set).toHaveLength(2);
    // Unsigned, not through its Reply-To: the From is a claim, so the followup is private (issue 32).
    expect(t.followup_set[1]).toMatchObject({
      comment: 'Still jammed this morning.',
      title: `E-Mail Received from ${from} (unverified)`,
      public: false,
    });
  });

  it('joins its ticket by References (Apple Mail), stripped of its quote', async () => {
    const queue = await newQueue();
    const from = `${unique('m')}@icloud.example`;
    const first = await mailTicket(queue, from);
    const sent = await send(
      appleMailReply({ from, to: queue.address, inReplyTo: first.messageId }, 'Thanks, it works now.'),
      [queue.address],
      from,
    );
    expect(sent.ticket).toBe(first.id);
    expect((await ticket(first.id)).followup_set[1].comment).toBe('Thanks, it works now.');
  });

  it('joins its ticket by the subject tag when the sender is the submitter (Outlook, no thread headers)', async () => {
    const queue = await newQueue();
    const from = `${unique('o')}@outlook.example`;
    const first = await mailTicket(queue, from);
    const sent = await send(
      outlookReply(
        { from, to: queue.address, subject: `RE: [${queue.slug}-${first.id}] Printer jammed` },
        'Can someone come by?',
      ),
      [queue.address],
      from,
    );
    expect(sent.ticket).toBe(first.id);
    expect((await ticket(first.id)).followup_set[1].comment).toBe('Can someone come by?');
  });

  it('joins its ticket by its verified Reply-To address; a forged one opens a ticket of its own', async () => {
    const queue = await newQueue();
    const from = `${unique('r')}@example.com`;
    const first = await mailTicket(queue, from);
    const address = replyAddress(queue.address, first.id, SECRET);
    const answered = await send(
      await compose({ from, to: address, subject: 'Re: no tag, no thread headers' }, { text: 'By the reply address.' }),
      [address],
      from,
    );
    expect(answered.ticket).toBe(first.id);
    const forged = address.replace(/\.([a-z2-7]+)@/, '.aaaaaaaaaaaaaaaa@');
    const guessed = await send(
      await compose({ from: 'guesser@evil.example', to: forged }, { text: 'Guessed.' }),
      [forged],
      'guesser@evil.example',
    );
    expect(guessed.ticket).not.toBe(first.id);
    expect((await ticket(first.id)).followup_set.map((f: Json) => f.comment)).toEqual([
      'Hello, the printer on floor 2 is jammed again.',
      'By the reply address.',
    ]);
  });

  it('joins its ticket by the subject tag from one of its CCs', async () => {
    const queue = await newQueue();
    const cc = `${unique('cc')}@example.com`;
    const sent = await send(
      await compose({ from: 'owner@example.com', to: queue.address }),
      [queue.address],
      'owner@example.com',
    );
    expect((await own.api.call('POST', `/api/tickets/${sent.ticket}/cc/`, { json: { email: cc } })).status).toBe(201);
    const reply = await send(
      await compose(
        { from: cc, to: queue.address, subject: `Re: [${queue.slug}-${sent.ticket}] A question` },
        { text: 'Me too.' },
      ),
      [queue.address],
      cc,
    );
    expect(reply.ticket).toBe(sent.ticket);
  });

  it(
    "from a stranger using someone else's subject tag opens a ticket of its " + 'own, titled without that tag',
    async () => {
      const queue = await newQueue();
      const first = await mailTicket(queue, `${unique('owner')}@example.com`);
      const sent = await send(
        await compose(
          {
            from: 'stranger@evil.example',
            to: queue.address,
            subject: `Re: [${queue.slug}-${first.id}] Printer jammed`,
          },
          { text: 'I am in your ticket.' },
        ),
        [queue.address],
        'stranger@evil.example',
      );
      expect(sent.ticket).not.toBe(first.id);
      expect((await ticket(first.id)).followup_set).toHaveLength(1);
      expect(await ticket(sent.ticket!)).toMatchObject({
        submitter_email: 'stranger@evil.example',
        title: 'Printer jammed',
      });
      // The tag after a forward prefix, and a tag of something else (not a queue's) kept as the sender wrote it.
      const forwarded = await send(
        await compose(
          {
            from: 'stranger@evil.example',
            to: queue.address,
            subject: `[${queue.slug}-${first.id}] Fwd: [JIRA-12] Printer jammed`,
          },
          { text: 'Again.' },
        ),
        [queue.address],
        'stranger@evil.example',
      );
      expect((await ticket(forwarded.ticket!)).title).toBe('[JIRA-12] Printer jammed');
    },
  );

  it('to a closed ticket, through the Reply-To mailed to its sender, reopens it', async () => {
    const queue = await newQueue();
    const from = `${unique('c')}@example.com`;
    const first = await mailTicket(queue, from);
    const replyTo = (await mailsTo(from, 1))[0]!.replyTo![0]!.address!;
    expect((await own.api.call('PATCH', `/api/tickets/${first.id}/`, { json: { status: 4 } })).status).toBe(200);
    await send(gmailReply({ from, to: replyTo, inReplyTo: first.messageId }, 'It broke again.'), [replyTo], from);
    const t = await ticket(first.id);
    expect(t.status).toBe(2);
    expect(t.followup_set[1]).toMatchObject({
      new_status: 2,
      title: `Ticket Re-Opened by E-Mail Received from ${from}`,
    });
  });

  it('to a merged ticket goes to the ticket it was merged into', async () => {
    const queue = await newQueue();
    const from = `${unique('mg')}@example.com`;
    const target = await mailTicket(queue, from, 'Target');
    const merged = await mailTicket(queue, from, 'Duplicate');
    expect((await own.api.call('PATCH', `/api/tickets/${merged.id}/`, { json: { merged_to: target.id } })).status).toBe(
      200,
    );
    const sent = await send(
      gmailReply({ from, to: queue.address, inReplyTo: merged.messageId }, 'Any news?'),
      [queue.address],
      from,
    );
    expect(sent.ticket).toBe(target.id);
    expect((await ticket(target.id)).followup_set.map((f: Json) => f.comment)).toContain('Any news?');
  });

  it('delivered twice is applied once', async () => {
    const queue = await newQueue();
    const from = `${unique('d')}@example.com`;
    const first = await mailTicket(queue, from);
    const raw = gmailReply({ from, to: queue.address, inReplyTo: first.messageId, messageId: newMessageId() }, 'Once.');
    expect((await send(raw, [queue.address], from)).ticket).toBe(first.id);
    expect((await send(raw, [queue.address], from)).response).toContain('already received');
    expect((await ticket(first.id)).followup_set).toHaveLength(2);
  });
});

describe('what creates nothing', () => {
  it('an out-of-office answer', async () => {
    const queue = await newQueue();
    const sent = await createsNoTicket(queue, () =>
      send(outOfOffice({ from: 'away@example.com', to: queue.address }), [queue.address]),
    );
    expect(sent.response).toMatch(/dropped \(auto-reply/);
  });

  it(
    'a bounce (DSN) to the return path of a mail sent to its failed recipient puts that recipient on the ' +
      'suppression list',
    async () => {
      const queue = await newQueue();
      const gone = `${unique('gone')}@example.com`;
      await mailTicket(queue, gone);
      const [ack] = await mailsTo(gone, 1);
      const returnPath = ack!.headers.find((h) => h.key === 'return-path')!.value.replace(/[<>]/g, '');
      const sent = await createsNoTicket(queue, () =>
        send(
          dsnBounce({ from: 'mailer-daemon@mx.example.com', to: returnPath }, gone, ack!.messageId!),
          [returnPath],
          '',
        ),
      );
      expect(sent.response).toContain(`permanent failures: ${gone}`);
      const list = await own.api.call('GET', '/api/mail/suppressions');
      expect(list.status, list.text).toBe(200);
      expect((Array.isArray(list.body) ? list.body : list.body.results).map((x: Json) => x.address)).toContain(gone);
    },
  );

  it('list mail', async () => {
    const queue = await newQueue();
    const sent = await createsNoTicket(queue, async () =>
      send(
        await compose({
          from: 'news@lists.example',
          to: queue.address,
          headers: { 'List-Id': '<news.lists.example>', 'List-Unsubscribe': '<mailto:u@lists.example>' },
        }),
        [queue.address],
      ),
    );
    expect(sent.response).toMatch(/dropped \(list mail/);
  });

  it("mail from the helpdesk's own address (a loop)", async () => {
    const queue = await newQueue();
    const sent = await createsNoTicket(queue, async () =>
      send(await compose({ from: 'helpdesk@localhost', to: queue.address }), [queue.address]),
    );
    expect(sent.response).toMatch(/dropped \(loop/);
  });

  it(`more than ${RATE} new tickets from one sender in an hour: the rest are held`, async () => {
    const queue = await newQueue();
    const from = `${unique('loop')}@example.com`;
    const results: Sent[] = [];
    for (let i = 0; i <= RATE; i++)
      results.push(await send(await compose({ from, to: queue.address, subject: `Auto ${i}` }), [queue.address], from));
    expect(results.slice(0, RATE).every((r) => r.ticket !== undefined)).toBe(true);
    expect(results[RATE]!.response).toMatch(/held \(rate/);

    // Kept for operators: listed by the CLI, and released by it into a ticket.
    const listed = await cli(['list-mail-problems']);
    expect(listed.code, listed.stderr).toBe(0);
    const problem = JSON.parse(listed.stdout).find((p: Json) => p.sender === from);
    expect(problem).toMatchObject({ kind: 'held', reason: expect.stringMatching(/^rate/) });
    const retried = await cli(['retry-mail', problem.id, '--release']);
    expect(retried.code, retried.stderr).toBe(0);
    const applied = JSON.parse(retried.stdout);
    expect(applied.outcome).toBe('ticket');
    expect((await ticket(applied.ticket)).title).toBe(`Auto ${RATE}`);
    expect(JSON.parse((await cli(['list-mail-problems'])).stdout).map((p: Json) => p.id)).not.toContain(problem.id);
    // Three CLI processes (a tsx start each) and four messages: 20 s alone, near 30 under load.
  }, 90_000);

  it(`mail with no sender address shares one allowance: past ${RATE} new tickets an hour it is held`, async () => {
    const queue = await newQueue();
    const results: Sent[] = [];
    for (let i = 0; i <= RATE; i++) {
      const message = `To: ${queue.address}\r\nSubject: No sender ${i}\r\nMessage-ID: <${unique('ns')}@x>\r\n\r\nBody.`;
      // Neither a From nor an envelope sender: nothing to key the allowance on but their absence.
      results.push(await send(Buffer.from(message), [queue.address], ''));
    }
    expect(results.slice(0, RATE).map((r) => r.ticket !== undefined)).toEqual(Array(RATE).fill(true));
    expect(results[RATE]!.response).toContain(
      `held (rate: over ${RATE} new tickets from mail without a sender address in an hour)`,
    );
  });
});

describe('refusals', () => {
  it('a recipient no queue answers at is refused at RCPT', async () => {
    const sent = await send(await compose({ from: 'x@example.com', to: 'nobody@localhost' }), ['nobody@localhost']);
    expect(sent).toMatchObject({ accepted: false, code: 550 });
  });

  it('a message over 40 MB is refused with 552', async () => {
    const queue = await newQueue();
    const big = Buffer.concat([
      await compose({ from: 'big@example.com', to: queue.address }),
      Buffer.alloc(41 * 1024 * 1024, 'a'),
    ]);
    expect(await send(big, [queue.address])).toMatchObject({ accepted: false, code: 552 });
  });

  it('a MIME bomb (parts nested 60 deep) is refused with 554, the reason said', async () => {
    const queue = await newQueue();
    const sent = await createsNoTicket(queue, () =>
      send(nestedBomb({ from: 'bomb@example.com', to: queue.address }, 60), [queue.address]),
    );
    expect(sent).toMatchObject({ accepted: false, code: 554 });
    expect(sent.response).toMatch(/nested deeper than 20/);
  });
});

describe('npm start with port 2525 taken', () => {
  it('listens for mail on a free port instead, and says so', async () => {
    // Hold 2525 (unless something else already does: then that is the case under test anyway).
    const holder = createServer();
    await new Promise<void>((done) => holder.once('error', () => done()).listen(2525, '127.0.0.1', () => done()));
    const runtime = await spawnApiRuntime({ ...onSharedEngines('mail-in-port'), HELPDESK_SMTP_PORT: '' });
    try {
      expect(runtime.smtpPort).not.toBe(2525);
      expect(runtime.output()).toContain(`SMTP port 2525 is taken: using ${runtime.smtpPort}`);
    } finally {
      await runtime.stop();
      holder.close();
    }
  }, 120_000);
});
