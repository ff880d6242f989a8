/**
 * The inbound mail rules (shared/domain/mail-in.ts) and the parser's limits (shared/mail-in/parse.ts), on a corpus of
 * header shapes.
 */
import EmailReplyParser from 'email-reply-parser';
import { describe, expect, it, vi } from 'vitest';
import {
  MAX_HEADER_BYTES,
  MAX_MIME_PARTS,
  MAX_HEADER_LINES,
  MAX_MAIL_TEXT_BYTES,
  MAX_THREAD_IDS,
  REPLY_WINDOW,
  headerLines,
  threadIdsOf,
  classify,
  cleanSubject,
  headerMap,
  htmlToText,
  messageIds,
  permanentFailures,
  planMailFollowup,
  planMailTicket,
  priorityOf,
  replyWindow,
  subjectTags,
  withoutOwnTags,
  withoutTag,
  type MailFacts,
} from '../../shared/domain/mail-in';
import { MailRefused, parseMail, replyOf } from '../../shared/mail-in/parse';
import { dsnBounce, legacyCharset, misdeclaredUtf8, nestedBomb, windows1252Headers } from '../fixtures/mail/corpus';
import { ticketRecord } from './fixtures';

const OWN = new Set(['support@localhost', 'helpdesk@localhost']);

function facts(headers: Record<string, string>, overrides: Partial<MailFacts> = {}): MailFacts {
  return {
    headers: headerMap(Object.entries(headers).map(([key, value]) => ({ key, value }))),
    from: 'person@example.com',
    subject: 'Hi',
    partTypes: [],
    ownAddresses: OWN,
    ...overrides,
  };
}

describe('classify', () => {
  it('accepts a letter', () => {
    expect(classify(facts({}))).toEqual({ action: 'accept', notes: [] });
  });

  // What auto-replies, out-of-office answers and list mail carry, as Exchange, Gmail, Zimbra,
  // mailing list managers and vacation programs write them.
  const dropped: [string, Record<string, string>, RegExp][] = [
    ['RFC 3834 auto-replied', { 'Auto-Submitted': 'auto-replied' }, /auto-reply/],
    ['RFC 3834 auto-generated', { 'Auto-Submitted': 'auto-generated' }, /auto-reply/],
    ['Zimbra vacation', { 'Auto-Submitted': 'auto-replied (vacation)' }, /auto-reply/],
    ['Precedence bulk', { Precedence: 'bulk' }, /Precedence/],
    ['Precedence junk', { Precedence: 'junk' }, /Precedence/],
    ['Precedence list', { Precedence: 'list' }, /Precedence/],
    ['Precedence auto_reply', { Precedence: 'auto_reply' }, /Precedence/],
    ['Precedence with a comment', { Precedence: 'bulk (mailing)' }, /Precedence/],
    ['X-Autoreply', { 'X-Autoreply': 'yes' }, /x-autoreply/],
    ['X-Autorespond', { 'X-Autorespond': 'Out of office' }, /x-autorespond/],
    ['X-Auto-Response-Suppress All (Exchange OOF)', { 'X-Auto-Response-Suppress': 'All' }, /X-Auto-Response-Suppress/],
    [
      'X-Auto-Response-Suppress DR, AutoReply',
      { 'X-Auto-Response-Suppress': 'DR, AutoReply' },
      /X-Auto-Response-Suppress/,
    ],
    ['List-Id', { 'List-Id': '<dev.lists.example.org>' }, /list mail/],
    ['List-Unsubscribe', { 'List-Unsubscribe': '<mailto:leave@example.org>' }, /list mail/],
  ];
  it.each(dropped)('drops %s', (_name, headers, reason) => {
    const verdict = classify(facts(headers));
    expect(verdict.action).toBe('drop');
    expect(verdict.action === 'drop' && verdict.reason).toMatch(reason);
  });

  it('keeps Auto-Submitted: no, and X-Auto-Response-Suppress values that are not auto-replies', () => {
    expect(classify(facts({ 'Auto-Submitted': 'no', 'X-Auto-Response-Suppress': 'RN, NRN' })).action).toBe('accept');
    expect(classify(facts({ 'Auto-Submitted': 'no (a person wrote this)' })).action).toBe('accept');
  });

  it('reads every Auto-Submitted and Precedence header: a leading `no` hides no automatic one after it', () => {
    const repeated = (name: string, values: string[]) => ({
      ...facts({}),
      headers: headerMap(values.map((value) => ({ key: name, value }))),
    });
    expect(classify(repeated('Auto-Submitted', ['no', 'auto-generated'])).action).toBe('drop');
    expect(classify(repeated('Precedence', ['normal', 'bulk'])).action).toBe('drop');
  });

  it('keeps every value of a header that repeats, in order, in time linear in the repeats', () => {
    const headers = headerMap(
      Array.from({ length: 50_000 }, (_, i) => ({ key: i % 2 ? 'X-A' : 'x-a', value: `${i}` })),
    );
    expect(headers.get('x-a')).toHaveLength(50_000);
    expect(headers.get('x-a')!.slice(0, 3)).toEqual(['0', '1', '2']);
  });

  it('drops mailer-daemon and postmaster senders', () => {
    expect(classify(facts({}, { from: 'MAILER-DAEMON@mx.example.com'.toLowerCase() })).action).toBe('drop');
    expect(classify(facts({}, { from: 'postmaster@example.com' })).action).toBe('drop');
  });

  it("drops the helpdesk's own mail (loops), by From and by X-Loop", () => {
    expect(classify(facts({}, { from: 'support@localhost' }))).toMatchObject({
      action: 'drop',
      reason: expect.stringMatching(/^loop/),
    });
    expect(classify(facts({ 'X-Loop': 'helpdesk@localhost' }))).toMatchObject({
      action: 'drop',
      reason: expect.stringMatching(/^loop/),
    });
  });

  it('knows its own addresses plus-addressed too (a reply address, a bounce address) as loops', () => {
    for (const from of ['support+1.zsfsf3j4bjtqohkx.7dwdsdjhjzphh6we@localhost', 'support+b.0000000018@localhost']) {
      expect(classify(facts({}, { from })), from).toMatchObject({
        action: 'drop',
        reason: expect.stringMatching(/^loop/),
      });
    }
    expect(classify(facts({ 'X-Loop': 'Support+1.abc@localhost' })).action).toBe('drop');
    expect(classify(facts({}, { from: 'support+1@elsewhere.example' })).action).toBe('accept');
  });

  it('knows a DSN by its report type or its delivery-status part', () => {
    expect(
      classify(facts({ 'Content-Type': 'multipart/report; report-type=delivery-status; boundary="x"' })).action,
    ).toBe('bounce');
    expect(classify(facts({}, { partTypes: ['text/plain', 'message/delivery-status'] })).action).toBe('bounce');
  });

  it("follows SES's verdicts: virus dropped; spam and DMARC under reject held; SPF and DKIM failures noted", () => {
    expect(classify(facts({}, { verdicts: { virus: 'FAIL' } })).action).toBe('drop');
    expect(classify(facts({}, { verdicts: { spam: 'FAIL' } })).action).toBe('hold');
    expect(classify(facts({}, { verdicts: { dmarc: 'FAIL', dmarcPolicy: 'REJECT' } })).action).toBe('hold');
    expect(
      classify(facts({}, { verdicts: { dmarc: 'FAIL', dmarcPolicy: 'none', spf: 'FAIL', dkim: 'FAIL' } })),
    ).toEqual({
      action: 'accept',
      notes: ['SPF failed', 'DKIM failed', 'DMARC failed'],
    });
  });
});

describe('permanentFailures', () => {
  it('names only the recipients that failed for good', () => {
    const report = [
      'Reporting-MTA: dns; mx.example.com',
      '',
      'Final-Recipient: rfc822; Gone@Example.com',
      'Action: failed',
      'Status: 5.1.1',
      '',
      'Final-Recipient: rfc822;<later@example.com>',
      'Action: delayed',
      'Status: 4.4.1',
      '',
      'Original-Recipient: rfc822; full@example.com',
      'Action: failed',
      'Status: 4.2.2',
    ].join('\r\n');
    expect(permanentFailures(report)).toEqual(['gone@example.com']);
  });
});

describe('the letter', () => {
  it.each([
    ['Re: Printer', 'Printer'],
    ['RE: Fwd: AW: SV: Printer', 'Printer'],
    ['Re[2]: Printer', 'Printer'],
    ['Automatic reply: Printer', 'Printer'],
    ['  ', 'Comment from e-mail'],
    ['Regarding the printer', 'Regarding the printer'],
  ])('title of %j is %j', (subject, title) => expect(cleanSubject(subject)).toBe(title));

  it('finds subject tags anywhere, with their slug and id, each once in the order they first come', () => {
    expect(subjectTags('Re: [it-support-42] Printer [sales-7] [it-support-42] [sales-7] [sales-07]')).toEqual([
      { slug: 'it-support', ticket: 42 },
      { slug: 'sales', ticket: 7 },
    ]);
  });

  it.each([
    ['Re: [support-1] Printer on fire', 'Printer on fire'],
    ['[support-1] Re: Printer on fire', 'Printer on fire'],
    ['Printer on fire [it-support-42]', 'Printer on fire'],
    ['Re: [JIRA-12] Printer [support-1] on fire', '[JIRA-12] Printer on fire'],
    ['[support-1]', 'Comment from e-mail'],
    ['Re: [Support-1] Printer', '[Support-1] Printer'],
  ])("a new ticket's title from %j, the queues' tags out, is %j", (subject, title) =>
    expect(cleanSubject(withoutOwnTags(subject, new Set(['support', 'it-support'])))).toBe(title),
  );

  it("takes upstream's priorities (Priority, Importance) and X-Priority 1 or 2", () => {
    const p = (h: Record<string, string>) =>
      priorityOf(headerMap(Object.entries(h).map(([key, value]) => ({ key, value }))));
    expect([
      p({ Importance: 'High' }),
      p({ Priority: 'urgent' }),
      p({ 'X-Priority': '1 (Highest)' }),
      p({ 'X-Priority': '3' }),
      p({}),
    ]).toEqual([2, 2, 2, 3, 3]);
  });

  it('reads thread ids in order, once each', () => {
    expect(messageIds('<a@x>', '<b@x> <a@x>\r\n <c@x>')).toEqual(['<a@x>', '<b@x>', '<c@x>']);
  });

  it('turns HTML into readable text, scripts and styles gone', () => {
    expect(htmlToText('<style>p{}</style><p>One &lt;two&gt;</p><p>&#8364;&#x263A;</p><script>x()</script>')).toBe(
      'One <two>\n€☺',
    );
  });

  it('reads a plus-addressed reply address as its base address', () => {
    expect(withoutTag('Support+42.abc@Localhost')).toBe('support@localhost');
  });

  it('reopens a closed ticket, and only a closed one', () => {
    const letter = { sender: 'a@example.com', subject: 'Re: x', body: 'again', messageId: '<m@x>', priority: 3 };
    expect(planMailFollowup(letter, ticketRecord({ status: 4 }), null, new Date()).ticketChanges).toMatchObject({
      status: 2,
    });
    expect(planMailFollowup(letter, ticketRecord({ status: 3 }), null, new Date()).ticketChanges).toEqual({});
  });

  it(`cuts a text to ${MAX_MAIL_TEXT_BYTES} bytes of UTF-8, whole characters: a ticket's record holds it twice`, () => {
    // 100,000 characters of 3 bytes each, twice in the record, failed the ingest on DynamoDB's item limit.
    const body = `a${'\u20ac'.repeat(100_000)}`;
    const letter = { sender: 'a@example.com', subject: 'Log', body, messageId: '<m@x>', priority: 3 };
    const { ticket, opening } = planMailTicket(letter, 1, {}, null, new Date());
    const cutNote = '\n[cut: the whole message is kept]';
    expect(ticket.description).toBe(`a${'\u20ac'.repeat(33_333)}${cutNote}`);
    expect(opening.comment).toBe(ticket.description);
    expect(planMailFollowup({ ...letter, body }, ticketRecord({}), null, new Date()).followup.comment).toBe(
      ticket.description,
    );
    const ascii = 'x'.repeat(MAX_MAIL_TEXT_BYTES);
    expect(planMailTicket({ ...letter, body: ascii }, 1, {}, null, new Date()).ticket.description).toBe(ascii);
  });
});

describe('parseMail', () => {
  const e = { from: 'a@example.com', to: 'support@localhost' };
  const raw = (headers: string, body = 'Hello.') =>
    Buffer.from(`${headers}To: support@localhost\r\nSubject: s\r\nMessage-ID: <m@x>\r\n\r\n${body}`);

  it('refuses a header block of more lines than DKIM and DMARC can check in time; counts folded lines', async () => {
    const folded = `From: a@example.com\r\nX-Long: a${'\r\n b'.repeat(MAX_HEADER_LINES)}\r\n`;
    await expect(parseMail(raw(folded))).rejects.toThrow(`a header block of more than ${MAX_HEADER_LINES} lines`);
    expect(headerLines(raw('From: a@example.com\r\n'), 100)).toBe(4);
    expect(headerLines(Buffer.from('A: 1\nB: 2\n\nbody\n'), 100)).toBe(2);
    expect((await parseMail(raw(`From: a@example.com\r\nX-Long: a${'\r\n b'.repeat(100)}\r\n`))).body).toBe('Hello.');
  });

  it('reads an address longer than RFC 5321 allows as none (a 2 KB From could not be a key)', async () => {
    const long = `${'a'.repeat(2100)}@long.example`;
    const mail = await parseMail(raw(`From: ${long}\r\nCc: ${long}, b@example.com\r\n`));
    expect(mail.from).toBe('');
    expect(mail.fromAsGiven).toBe('');
    expect(mail.cc).toEqual(['b@example.com']);
  });

  it('reads the reply in time linear in the text: blank runs cut to two lines, long lines kept whole', () => {
    expect(replyOf(`hi${'\n \u3000'.repeat(20_000)}\nx`)).toBe('hi\n\n\nx');
    const line = `${'a on b at '.repeat(10_000)}end`;
    expect(replyOf(`Top ${line}\n\nOn Mon, Bob wrote:\n> earlier`).trim()).toBe(`Top ${line}`);
    // A long quoted line stays quoted (hidden), as a short one is.
    expect(replyOf(`Thanks!\n\n> ${line}\n> more`).trim()).toBe('Thanks!');
  });

  it('refuses more MIME parts than the limit as they are read (40 MB of empty parts held gigabytes)', async () => {
    // The message (here the multipart) is one part; each `--b` and its empty line one more.
    const head = 'From: a@example.com\r\nSubject: s\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n';
    const emptyParts = (n: number) => Buffer.from(`${head}${'--b\r\n\r\n'.repeat(n)}--b--\r\n`);
    expect((await parseMail(emptyParts(MAX_MIME_PARTS - 1))).parts).toEqual([]);
    await expect(parseMail(emptyParts(MAX_MIME_PARTS))).rejects.toThrow(
      new MailRefused(`more than ${MAX_MIME_PARTS} MIME parts`),
    );
    await expect(parseMail(emptyParts(4_000_000))).rejects.toThrow(`more than ${MAX_MIME_PARTS} MIME parts`);
  });

  it('refuses MIME nested past the limit, and reads what is within it', async () => {
    await expect(parseMail(nestedBomb(e, 60))).rejects.toThrow(MailRefused);
    expect((await parseMail(nestedBomb(e, 5))).body).toBe('core');
  });

  it('keeps the delivery-status part of a bounce apart from the files', async () => {
    const mail = await parseMail(dsnBounce(e, 'gone@example.com', '<sent@localhost>'));
    expect(permanentFailures(mail.deliveryStatus!)).toEqual(['gone@example.com']);
    expect(mail.parts.map((p) => p.mimeType)).not.toContain('message/delivery-status');
  });

  it(
    'reads an unknown charset as Latin-1 (readable), and counts bytes that fit no charset instead of passing ' +
      'them off as text',
    async () => {
      expect((await parseMail(legacyCharset(e, 'x-unknown-charset', Buffer.from([0x43, 0x61, 0x66, 0xe9])))).body).toBe(
        'Café',
      );
      // A Shift_JIS lead byte with nothing after it: no character.
      const broken = await parseMail(legacyCharset(e, 'shift_jis', Buffer.from([0x41, 0x20, 0x82])));
      expect(broken).toMatchObject({ body: 'A \uFFFD', undecodable: 1, misdeclared: 0 });
    },
  );

  it(
    'reads a part labelled UTF-8 (or unlabelled) that is not UTF-8 as Windows-1252, and counts it; real UTF-8 ' +
      'stays UTF-8',
    async () => {
      for (const charset of ['utf-8', 'UTF8', undefined]) {
        expect(await parseMail(misdeclaredUtf8(e, charset)), String(charset)).toMatchObject({
          body: 'Café naïve €',
          undecodable: 0,
          misdeclared: 1,
        });
      }
      const utf8 = await parseMail(legacyCharset(e, 'utf-8', Buffer.from('Café naïve €')));
      expect(utf8).toMatchObject({ body: 'Café naïve €', undecodable: 0, misdeclared: 0 });
    },
  );

  it(
    'reads raw header bytes that are not UTF-8 as Windows-1252, in every part (the lines unchanged but for ' +
      'them); UTF-8 headers (RFC 6532) stay UTF-8',
    async () => {
      const old = await parseMail(windows1252Headers(e));
      expect(old).toMatchObject({
        subject: 'Café crème – 10 €',
        from: 'a@example.com',
        to: ['support@localhost'],
        body: 'Plain body.',
        undecodable: 0,
        misencodedHeaders: 2,
      });
      expect(old.headers.get('from')).toEqual(['"René Dupont" <a@example.com>']);
      const utf8 = await parseMail(raw('From: "Zoë" <a@example.com>\r\nX-Note: naïve ✓\r\n'));
      expect(utf8).toMatchObject({ undecodable: 0, misencodedHeaders: 0 });
      expect(utf8.headers.get('x-note')).toEqual(['naïve ✓']);
      const file = await parseMail(
        Buffer.from(
          [
            'From: a@example.com',
            'Subject: s',
            'Content-Type: multipart/mixed; boundary="b"',
            '',
            '--b',
            'Content-Type: text/plain',
            '',
            'See the file.',
            '--b',
            'Content-Type: text/plain; name="r\xe9sum\xe9.txt"',
            'Content-Disposition: attachment; filename="r\xe9sum\xe9.txt"',
            '',
            'CV',
            '--b--',
            '',
          ].join('\r\n'),
          'latin1',
        ),
      );
      expect(file).toMatchObject({ body: 'See the file.', undecodable: 0, misencodedHeaders: 2 });
      expect(file.parts.map((p) => p.filename)).toEqual(['résumé.txt']);
    },
  );

  it('copies a 7bit or 8bit body as its lines come, not through a Blob of a part per line, byte for byte', async () => {
    const lines = Array.from({ length: 5_000 }, (_, i) => `${i};caf\xe9`);
    // Lines across the decoder's blocks (up to 64 KB), and lines longer than one.
    const file = [...lines, 'x'.repeat(100_000), ...lines, 'y'.repeat(70_000), '', 'end'];
    const message = Buffer.from(
      [
        'From: a@example.com',
        'Subject: s',
        'Content-Type: multipart/mixed; boundary="b"',
        '',
        '--b',
        'Content-Type: text/plain; charset=iso-8859-1',
        '',
        ...lines,
        '--b',
        'Content-Type: text/csv; name="x.csv"',
        'Content-Transfer-Encoding: 8bit',
        '',
        ...file,
        '--b--',
        '',
      ].join('\r\n'),
      'latin1',
    );
    const blob = vi.spyOn(globalThis, 'Blob');
    try {
      const mail = await parseMail(message);
      expect(mail.body).toBe(lines.join('\n').replaceAll('\xe9', 'é'));
      expect(mail.parts[0]!.data.equals(Buffer.from(`${file.join('\n')}\n`, 'latin1'))).toBe(true);
      // Neither body went through a Blob of a part per line.
      expect(blob.mock.calls.filter(([parts]) => (parts?.length ?? 0) > 100)).toEqual([]);
    } finally {
      blob.mockRestore();
    }
  });

  it('holds raw 8-bit headers to the header limit as received, before the repair adds to them', async () => {
    const padded = (bytes: number) =>
      Buffer.concat([Buffer.from('From: a@example.com\r\nX-Pad: '), Buffer.alloc(bytes, 0xe9), raw('\r\n')]);
    const within = await parseMail(padded(MAX_HEADER_BYTES - 1_000));
    expect(within.headers.get('x-pad')![0]).toBe('é'.repeat(MAX_HEADER_BYTES - 1_000));
    await expect(parseMail(padded(MAX_HEADER_BYTES))).rejects.toThrow(`headers larger than ${MAX_HEADER_BYTES} bytes`);
  });
});

describe('the reply window', () => {
  it('is the whole text up to REPLY_WINDOW characters, past it the head cut at a line end', () => {
    const short = 'a\n'.repeat(REPLY_WINDOW / 2);
    expect(replyWindow(short)).toEqual({ head: short, cut: false });
    const long = `${'line\n'.repeat(REPLY_WINDOW / 5)}more`;
    expect(replyWindow(long)).toEqual({ head: 'line\n'.repeat(REPLY_WINDOW / 5 - 1) + 'line', cut: true });
  });

  it('counts no white space that a stored body drops: spaces and blank lines ahead of the words', () => {
    const blank = `${'\n'.repeat(REPLY_WINDOW)}${' \t\n'.repeat(REPLY_WINDOW)}`;
    const spaced = `${' '.repeat(REPLY_WINDOW * 2)}first\n${blank}last`;
    // Nothing left out: the note that the body was read from the head is not given.
    expect(replyWindow(spaced)).toEqual({ head: 'first\n\nlast', cut: false });
    expect(replyWindow(`${'x\n'.repeat(REPLY_WINDOW / 2)}${' \n'.repeat(REPLY_WINDOW)}`).cut).toBe(false);
    expect(replyWindow(`${'x\n'.repeat(REPLY_WINDOW / 2)}${' \n'.repeat(REPLY_WINDOW)}y`).cut).toBe(true);
  });

  it('cuts a text of one line at REPLY_WINDOW, never between the halves of a surrogate pair', () => {
    expect(replyWindow('x'.repeat(REPLY_WINDOW * 2))).toEqual({ head: 'x'.repeat(REPLY_WINDOW), cut: true });
    const split = `${'x'.repeat(REPLY_WINDOW - 1)}😀${'x'.repeat(10)}`;
    expect(replyWindow(split).head).toBe('x'.repeat(REPLY_WINDOW - 1));
  });

  it('reads a text of 5 million blank lines, and one of 13 million short lines, from the window', async () => {
    const mail = (body: string) =>
      parseMail(Buffer.from(`From: a@example.com\r\nSubject: s\r\nContent-Type: text/plain\r\n\r\n${body}`));
    // The blank-run expression ran out of stack on the whole text (RangeError) before the window.
    expect((await mail(`${'\r\n'.repeat(5_000_000)}end\r\n`)).body).toBe('end');
    const lines = await mail('x\r\n'.repeat(13_000_000));
    expect(lines.body).toBe(Array.from({ length: REPLY_WINDOW / 2 }, () => 'x').join('\n'));
    expect(lines.textLength).toBe(26_000_000);
  });

  it('reads the reply of a 4 MB text from its head alone, and says how long the text is', async () => {
    const quoted = '> the nightly export failed again with a timeout\n'.repeat(80_000);
    const text = `The printer is broken.\n\nOn Mon, 30 Nov 2026, Ann <ann@example.com> wrote:\n${quoted}`;
    const message = Buffer.from(`From: a@example.com\r\nSubject: s\r\n\r\n${text}`);
    const read = vi.spyOn(EmailReplyParser.prototype, 'parseReply');
    try {
      const mail = await parseMail(message);
      expect(mail.body).toBe('The printer is broken.');
      expect(mail.textLength).toBe(text.length);
      expect(mail.replyCut).toBe(true);
      expect(read.mock.calls.map(([given]) => given.length <= REPLY_WINDOW)).toEqual([true]);
      // Longer than the window by white space alone: every word read, so no note (ingest.ts) that some were not.
      const padded = await parseMail(Buffer.from(`From: a@example.com\r\nSubject: s\r\n\r\n${' '.repeat(1_000_000)}x`));
      expect([padded.body, padded.replyCut]).toEqual(['x', false]);
    } finally {
      read.mockRestore();
    }
  });
});

describe('threadIdsOf', () => {
  it("keeps In-Reply-To's id and the newest References, at most MAX_THREAD_IDS, overlong ids left out", () => {
    const refs = Array.from({ length: 1000 }, (_, i) => `<r${i}@x>`);
    const long = `<${'a'.repeat(998)}@x>`;
    const ids = threadIdsOf('<parent@x>', [...refs, long].join(' '));
    expect(ids).toHaveLength(MAX_THREAD_IDS);
    expect(ids[0]).toBe('<parent@x>');
    expect(ids.at(-1)).toBe('<r999@x>');
    expect(ids).not.toContain(long);
    expect(threadIdsOf(undefined, '<a@x> <b@x>')).toEqual(['<a@x>', '<b@x>']);
    expect(threadIdsOf('<a@x>', '<a@x> <b@x>')).toEqual(['<a@x>', '<b@x>']);
  });
});
