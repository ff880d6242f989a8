/**
 * Mail believes whoever writes (issue 32), over SMTP to a runtime of its own: hostile text, forged
 * senders, forged bounces, amplification and the lower limits, each shown on what it did before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unique, type Json } from './client';
import { MAX_CCS_PER_TICKET } from '../../shared/domain/mail-settings';
import { mailsTo as mailsToIn, sendRaw, newMailQueue, readTicket, type Sent } from './mail-helpers';
import { cliOnTable } from './table-cli';
import { useOwnRuntime } from './own-runtime';
import { onSharedEngines } from './shared-engines';
import { compose, dsnBounce, newMessageId } from '../fixtures/mail/corpus';

const SECRET = 'mail-trust-test-secret-0123456789abcdefghijklmn';
const engines = onSharedEngines('mail-trust');
const mailbox = mkdtempSync(join(tmpdir(), 'helpdesk-mail-trust-'));
afterAll(() => rmSync(mailbox, { recursive: true, force: true }));

/** customer.example signs its mail (DKIM) and publishes DMARC: its messages are verified for their From. */
const DOMAIN = 'customer.example';
const key = generateKeyPairSync('rsa', { modulusLength: 2048 });
const dnsFile = join(mailbox, 'dns.json');
writeFileSync(
  dnsFile,
  JSON.stringify({
    [`TXT:sel._domainkey.${DOMAIN}`]: [
      [`v=DKIM1; k=rsa; p=${key.publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`],
    ],
    [`TXT:_dmarc.${DOMAIN}`]: [['v=DMARC1; p=reject']],
  }),
);
const dkim = {
  domainName: DOMAIN,
  keySelector: 'sel',
  privateKey: key.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
};

/** A message as `options` say, DKIM-signed by customer.example when `signed`. */
async function message(options: Mail.Options, signed: boolean): Promise<Buffer> {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  const info = await transport.sendMail({
    messageId: newMessageId(),
    text: 'Hello.',
    ...options,
    ...(signed ? { dkim } : {}),
  });
  return info.message as Buffer;
}

const own = useOwnRuntime({
  ...engines,
  HELPDESK_MAILBOX_DIR: mailbox,
  HELPDESK_MAIL_FROM: 'Helpdesk <helpdesk@localhost>',
  HELPDESK_MAIL_SECRET: SECRET,
  // Seconds, not minutes: what the quadratic code took for these inputs (issue 32: 19.6 s at 160 KB).
  HELPDESK_MAIL_IN_PARSE_BUDGET_MS: '10000',
  HELPDESK_MAIL_IN_DNS_FILE: dnsFile,
  HELPDESK_MAIL_IN_TICKETS_PER_SENDER_HOUR: '3',
  HELPDESK_MAIL_IN_REPLIES_PER_TICKET_HOUR: '4',
});
const mailsTo = (to: string, count: number) => mailsToIn(mailbox, to, count);

/** A staff user, made before any mail is read (the ingest keeps users by address for a minute). */
const sam = `${unique('sam')}@${DOMAIN}`;
/** Two users with one address (upstream allows it), and one with an address of their own. */
const shared = `${unique('Pat')}@${DOMAIN}`;
const kimAddress = `${unique('kim')}@${DOMAIN}`;
let kim: number;
beforeAll(async () => {
  const created = await cliOnTable(engines, ['create-user', unique('sam'), '--email', sam, '--staff'], {
    input: 'sam-password-123456\n',
    env: { HELPDESK_MAIL_SECRET: SECRET },
  });
  expect(created.code, created.stderr).toBe(0);
  for (const email of [shared, shared.toLowerCase()]) await own.api.createUser({ email });
  await own.api.createUser({ email: kimAddress });
  kim = (await own.api.call('GET', `/api/users/?email=${encodeURIComponent(kimAddress)}`)).body.results[0].id;
}, 60_000);

const send = (raw: Buffer, to: string[], from?: string): Promise<Sent> => sendRaw(own.runtime.smtpPort, raw, to, from);

const newQueue = () => newMailQueue(own.api, 'tq');
const ticket = (id: number) => readTicket(own.api, id);

const MB = 1024 * 1024;

describe('hostile text', () => {
  it.each([
    ['a text line of 1 MB of spaces, then x', { text: `${' '.repeat(MB)}x` }, 'x'],
    ['an HTML body of 1 MB of "<"', { text: undefined, html: `${'<'.repeat(MB)}` }, '<'.repeat(MB).slice(0, 100_000)],
    [
      'an HTML body of 1 MB of unclosed <script> tags',
      { text: undefined, html: `ok${'<script>'.repeat(MB / 8)}` },
      'ok',
    ],
  ])('%s becomes a ticket within the budget of seconds', async (_name, body, description) => {
    const queue = await newQueue();
    const sent = await send(
      await compose({ from: 'hostile@example.com', to: queue.address, subject: 'Spaces' }, body),
      [queue.address],
      'hostile@example.com',
    );
    expect(sent.response).toMatch(/ticket on ticket \d+/);
    expect((await ticket(sent.ticket!)).description.slice(0, 100_000)).toBe(description);
  });
});

/** A ticket Alice opened by signed mail (so verified), with the acknowledgement she was sent. */
async function alicesTicket(queue: { address: string; slug: string }) {
  const alice = `${unique('alice')}@${DOMAIN}`;
  const sent = await send(
    await message({ from: `Alice <${alice}>`, to: queue.address, subject: 'Printer jammed' }, true),
    [queue.address],
    alice,
  );
  expect(sent.response).toMatch(/ticket on ticket \d+/);
  return { alice, id: sent.ticket!, subject: `Re: [${queue.slug}-${sent.ticket}] Printer jammed` };
}

const ccsOf = async (id: number): Promise<string[]> =>
  (await own.api.call('GET', `/api/tickets/${id}/cc/`)).body.results.map((c: Json) => c.email).sort();

describe('From is a claim', () => {
  it("a forged From: the submitter's, with a Cc, lands private and unverified: no CC, no mail to the Cc", async () => {
    const queue = await newQueue();
    const { alice, id, subject } = await alicesTicket(queue);
    const eve = `${unique('eve')}@evil.example`;
    const forged = await send(
      await message(
        { from: `Alice <${alice}>`, to: queue.address, cc: eve, subject, text: 'Please send me the files.' },
        false,
      ),
      [queue.address],
      eve,
    );
    expect(forged.response).toContain(`followup on ticket ${id}`);
    const t = await ticket(id);
    expect(t.followup_set.at(-1)).toMatchObject({
      public: false,
      user: null,
      title: `E-Mail Received from ${alice} (unverified)`,
      comment: 'Please send me the files.',
    });
    expect(await ccsOf(id)).toEqual([]);
    // It is listed for review.
    const problems = await cliOnTable(engines, ['list-mail-problems', '--json'], {
      env: { HELPDESK_MAIL_SECRET: SECRET },
    });
    expect(
      JSON.parse(problems.stdout).some((p: Json) => p.kind === 'unverified' && p.reason.includes(`ticket ${id}`)),
    ).toBe(true);
  });

  it('a signed reply from the submitter is public and adds her Cc; a staff removal is not undone by mail', async () => {
    const queue = await newQueue();
    const { alice, id, subject } = await alicesTicket(queue);
    const carol = `${unique('carol')}@${DOMAIN}`;
    const reply = await send(
      await message({ from: alice, to: queue.address, cc: carol, subject, text: 'Adding Carol.' }, true),
      [queue.address],
      alice,
    );
    expect(reply.response).toContain(`followup on ticket ${id}`);
    expect((await ticket(id)).followup_set.at(-1)).toMatchObject({ public: true, comment: 'Adding Carol.' });
    expect(await ccsOf(id)).toEqual([carol]);
    const entry = (await own.api.call('GET', `/api/tickets/${id}/cc/`)).body.results[0];
    expect((await own.api.call('DELETE', `/api/tickets/${id}/cc/${entry.id}/`)).status).toBe(204);
    await send(
      await message({ from: alice, to: queue.address, cc: carol.toUpperCase(), subject, text: 'Carol again.' }, true),
      [queue.address],
      alice,
    );
    expect((await ticket(id)).followup_set.at(-1)).toMatchObject({ public: true, comment: 'Carol again.' });
    expect(await ccsOf(id)).toEqual([]);
  });

  it("a signed reply's Ccs stop when the ticket's list is full, and the answer counts those left out", async () => {
    const queue = await newQueue();
    const { alice, id, subject } = await alicesTicket(queue);
    for (let n = 1; n < MAX_CCS_PER_TICKET; n++) {
      const added = await own.api.call('POST', `/api/tickets/${id}/cc/`, { json: { email: `cc${n}@example.com` } });
      expect(added.status, added.text).toBe(201);
    }
    const carols = [1, 2, 3].map((n) => `${unique(`carol${n}`)}@${DOMAIN}`);
    const reply = await send(
      await message({ from: alice, to: queue.address, cc: carols, subject, text: 'Adding three.' }, true),
      [queue.address],
      alice,
    );
    expect(reply.response).toContain(`followup on ticket ${id}`);
    expect(reply.response).toContain(
      `2 more addresses not added as CCs: the ticket's list holds ${MAX_CCS_PER_TICKET}`,
    );
    const list = (await own.api.call('GET', `/api/tickets/${id}/cc/?page_size=100`)).body;
    expect(list.count).toBe(MAX_CCS_PER_TICKET);
    expect(list.results.at(-1).email).toBe(carols[0]);
  });

  it('a reply through the Reply-To mailed to the submitter is hers, signed or not', async () => {
    const queue = await newQueue();
    const { alice, id, subject } = await alicesTicket(queue);
    const [ack] = await mailsTo(alice, 1);
    const replyTo = ack!.replyTo![0]!.address!;
    const sent = await send(
      await message({ from: alice, to: replyTo, subject, text: 'Through the token.' }, false),
      [replyTo],
      alice,
    );
    expect(sent.ticket).toBe(id);
    expect((await ticket(id)).followup_set.at(-1)).toMatchObject({ public: true, comment: 'Through the token.' });
    // The same address from anyone else proves nothing.
    const bob = `${unique('bob')}@${DOMAIN}`;
    await send(await message({ from: bob, to: replyTo, subject, text: 'Not Alice.' }, false), [replyTo], bob);
    expect((await ticket(id)).followup_set.at(-1)).toMatchObject({ public: false, comment: 'Not Alice.' });
  });

  it(
    'a forged staff From is credited to nobody and changes nothing, even signed ' + "by the staff user's domain",
    async () => {
      const queue = await newQueue();
      const { id, subject } = await alicesTicket(queue);
      for (const signed of [false, true]) {
        await send(
          await message({ from: `Sam <${sam}>`, to: queue.address, subject, text: `As staff (${signed}).` }, signed),
          [queue.address],
          sam,
        );
        expect((await ticket(id)).followup_set.at(-1)).toMatchObject({
          public: false,
          user: null,
          comment: `As staff (${signed}).`,
        });
      }
    },
  );

  it("a forged From: the submitter's does not reopen her closed ticket", async () => {
    const queue = await newQueue();
    const { alice, id, subject } = await alicesTicket(queue);
    expect((await own.api.call('PATCH', `/api/tickets/${id}/`, { json: { status: 4 } })).status).toBe(200);
    await send(
      await message({ from: alice, to: queue.address, subject, text: 'Reopen please.' }, false),
      [queue.address],
      'eve@evil.example',
    );
    const t = await ticket(id);
    expect(t.status).toBe(4);
    expect(t.followup_set.at(-1)).toMatchObject({ public: false, new_status: null, comment: 'Reopen please.' });
  });
});

describe('CCs only by those entitled', () => {
  it(
    "a stranger's unsigned new ticket adds no CCs; a signed one at most ten, never the helpdesk's own " +
      'plus-address',
    async () => {
      const queue = await newQueue();
      const many = Array.from({ length: 40 }, (_, i) => `cc${i}@elsewhere.example`);
      const stranger = await send(
        await message({ from: `${unique('s')}@nowhere.example`, to: queue.address, cc: many }, false),
        [queue.address],
      );
      expect(await ccsOf(stranger.ticket!)).toEqual([]);
      const [local] = queue.address.split('@');
      const signed = await send(
        await message(
          { from: `${unique('d')}@${DOMAIN}`, to: queue.address, cc: [`${local}+x@localhost`, ...many] },
          true,
        ),
        [queue.address],
      );
      const ccs = await ccsOf(signed.ticket!);
      expect(ccs).toHaveLength(10);
      expect(ccs.some((a) => a.startsWith(local!))).toBe(false);
    },
  );
});

describe('bounces only for what we sent', () => {
  it("a stranger's delivery report naming the submitter and staff suppresses nobody", async () => {
    const queue = await newQueue();
    const { alice } = await alicesTicket(queue);
    for (const victim of [alice, sam]) {
      const sent = await send(
        dsnBounce(
          { from: `Eve <${unique('eve')}@evil.example>`, to: queue.address },
          victim,
          newMessageId('localhost'),
        ),
        [queue.address],
      );
      expect(sent.response).toContain(`not ours, not acted on: ${victim}`);
    }
    const listed = (await own.api.call('GET', '/api/mail/suppressions')).body.results.map((x: Json) => x.address);
    expect(listed).not.toContain(alice);
    expect(listed).not.toContain(sam);
  });
});

describe('no amplification', () => {
  it("the author of a reply is not mailed it back; its ticket's CC is", async () => {
    const queue = await newQueue();
    const alice = `${unique('alice')}@${DOMAIN}`;
    const carol = `${unique('carol')}@elsewhere.example`;
    const opened = await send(
      await message({ from: alice, to: queue.address, cc: carol, subject: 'Loop' }, true),
      [queue.address],
      alice,
    );
    const id = opened.ticket!;
    await send(
      await message({ from: alice, to: queue.address, subject: `Re: [${queue.slug}-${id}] Loop`, text: 'More.' }, true),
      [queue.address],
      alice,
    );
    const kinds = async (to: string) =>
      (await own.api.call('GET', `/api/tickets/${id}/emails/`)).body.results
        .filter((m: Json) => m.recipients.includes(to))
        .map((m: Json) => m.kind);
    await expect.poll(() => kinds(carol), { timeout: 15_000 }).toContain('updated_cc');
    expect(await kinds(alice)).toEqual(['newticket_submitter']);
  });

  it('new tickets are limited per sender, plus-addressing and case folded', async () => {
    const queue = await newQueue();
    const local = unique('rl');
    const outcomes: string[] = [];
    for (const from of [
      `${local}+0@x.example`,
      `${local}+1@x.example`,
      `${local.toUpperCase()}@X.example`,
      `${local}+3@x.example`,
    ]) {
      outcomes.push((await send(await compose({ from, to: queue.address }), [queue.address], from)).response);
    }
    expect(outcomes.slice(0, 3).every((r) => /ticket on ticket/.test(r))).toBe(true);
    expect(outcomes[3]).toMatch(/held \(rate: over 3 new tickets/);
  });

  it('replies are limited per ticket', async () => {
    const queue = await newQueue();
    const { alice, id, subject } = await alicesTicket(queue);
    const outcomes: string[] = [];
    for (let i = 0; i < 5; i++)
      outcomes.push(
        (
          await send(
            await message({ from: alice, to: queue.address, subject, text: `Reply ${i}` }, true),
            [queue.address],
            alice,
          )
        ).response,
      );
    expect(outcomes.slice(0, 4).every((r) => r.includes(`followup on ticket ${id}`))).toBe(true);
    expect(outcomes[4]).toMatch(new RegExp(`held \\(rate: over 4 replies to ticket ${id}`));
  });
});

describe('one rule for addresses', () => {
  it('an address two users share credits neither; an address one user has credits them', async () => {
    const queue = await newQueue();
    const opened = async (from: string) => {
      const sent = await send(await message({ from, to: queue.address, subject: 'Who?' }, true), [queue.address], from);
      return { sent, first: (await ticket(sent.ticket!)).followup_set[0] };
    };
    const both = await opened(shared);
    expect(both.first.user).toBeNull();
    expect(both.sent.response).toContain(`2 users have the address ${shared.toLowerCase()}: credited to none of them`);
    expect((await opened(kimAddress)).first.user).toBe(kim);
  });

  it('a sender is stored as written and found by its address in any case', async () => {
    const queue = await newQueue();
    const written = `${unique('Corpus-C')}@example.com`;
    const sent = await send(await compose({ from: written, to: queue.address }), [queue.address], written);
    expect((await ticket(sent.ticket!)).submitter_email).toBe(written);
    for (const asked of [written.toLowerCase(), written.toUpperCase()]) {
      await expect
        .poll(
          async () =>
            (await own.api.call('GET', `/api/tickets/?submitter_email=${encodeURIComponent(asked)}`)).body.results.map(
              (t: Json) => t.id,
            ),
          { timeout: 15_000 },
        )
        .toEqual([sent.ticket]);
    }
  });
});

describe('outsiders', () => {
  it("a CC who is not staff gets the submitter's view (no priority, submitter, assignee); a staff CC all", async () => {
    const queue = await newQueue();
    const submitter = `${unique('ann')}@${DOMAIN}`;
    const { body: t } = await own.api.createTicket({
      queue: queue.id,
      submitter_email: submitter,
      priority: 1,
      title: 'Outsiders',
    });
    const outsider = `${unique('out')}@elsewhere.example`;
    for (const email of [outsider, sam])
      expect((await own.api.call('POST', `/api/tickets/${t.id}/cc/`, { json: { email } })).status).toBe(201);
    const update = { ticket: t.id, title: 'Update', comment: 'Looking into it.', public: true };
    expect((await own.api.call('POST', '/api/followups/', { json: update })).status).toBe(201);
    // The update's mail (a CC added before the opening's mail was queued gets that one too).
    const about = async (to: string) => {
      let found: Awaited<ReturnType<typeof mailsTo>>[number] | undefined;
      await expect
        .poll(
          async () => (found = (await mailsTo(to, 1)).find((m) => m.subject?.includes(`${t.id}] Outsiders (Updated)`))),
          {
            timeout: 15_000,
          },
        )
        .toBeDefined();
      return found!;
    };
    const [outside, staff] = [await about(outsider), await about(sam)];
    expect(outside.text).toContain('Looking into it.');
    for (const part of [outside.text, outside.html]) {
      expect(part).not.toContain(submitter);
      expect(part).not.toContain('Priority');
    }
    expect(staff.text).toContain(`Submitter: ${submitter}`);
    expect(staff.text).toContain('Priority: ');
  });
});

describe('unverified followups', () => {
  it('tell the assignee (staff) only: never the submitter nor a CC', async () => {
    const queue = await newQueue();
    const { alice, id, subject } = await alicesTicket(queue);
    const samId = (await own.api.call('GET', `/api/users/?email=${encodeURIComponent(sam)}`)).body.results[0].id;
    expect((await own.api.call('PATCH', `/api/tickets/${id}/`, { json: { assigned_to: samId } })).status).toBe(200);
    const carol = `${unique('carol')}@elsewhere.example`;
    expect((await own.api.call('POST', `/api/tickets/${id}/cc/`, { json: { email: carol } })).status).toBe(201);
    await send(
      await message({ from: alice, to: queue.address, subject, text: 'Forged.' }, false),
      [queue.address],
      'eve@evil.example',
    );
    const updates = async (to: string) =>
      (await own.api.call('GET', `/api/tickets/${id}/emails/`)).body.results
        .filter((m: Json) => m.recipients.includes(to) && m.kind.startsWith('updated_'))
        .map((m: Json) => m.kind);
    await expect.poll(() => updates(sam), { timeout: 15_000 }).toEqual(['updated_owner']);
    // A staff followup after it: once its mails are logged, every mail of the forged one is.
    const staffReply = { ticket: id, title: 'Update', comment: 'Staff here.', public: true };
    expect((await own.api.call('POST', '/api/followups/', { json: staffReply })).status).toBe(201);
    await expect.poll(() => updates(carol), { timeout: 15_000 }).toEqual(['updated_cc']);
    expect(await updates(alice)).toEqual(['updated_submitter']);
    expect(await updates(sam)).toEqual(['updated_owner', 'updated_owner']);
  });

  it('are released through the API: the followup made public, nothing else', async () => {
    const queue = await newQueue();
    const { alice, id, subject } = await alicesTicket(queue);
    expect((await own.api.call('PATCH', `/api/tickets/${id}/`, { json: { status: 4 } })).status).toBe(200);
    const carol = `${unique('carol')}@elsewhere.example`;
    const forged = await message({ from: alice, to: queue.address, cc: carol, subject, text: 'Review me.' }, false);
    await send(forged, [queue.address], 'eve@evil.example');
    const problems = async () =>
      (await own.api.call('GET', '/api/mail/problems/?page_size=1000')).body.results as Json[];
    const listed = (await problems()).find((p) => p.kind === 'unverified' && p.reason.includes(`on ticket ${id} `));
    expect(listed).toMatchObject({ sender: alice, recipients: [queue.address] });
    const released = await own.api.call('POST', `/api/mail/problems/${encodeURIComponent(listed!.id)}/release/`);
    expect(released.status, released.text).toBe(200);
    expect(released.body).toMatchObject({ ticket: id, public: true, comment: 'Review me.', user: null });
    const t = await ticket(id);
    expect(t.followup_set.at(-1)).toMatchObject({ public: true, comment: 'Review me.' });
    expect(t.status).toBe(4);
    expect(await ccsOf(id)).toEqual([]);
    expect((await problems()).map((p) => p.id)).not.toContain(listed!.id);
    const again = await own.api.call('POST', `/api/mail/problems/${encodeURIComponent(listed!.id)}/release/`);
    expect(again.status).toBe(404);
  });

  it('a held message released through the API becomes its ticket, once (superusers only)', async () => {
    const queue = await newQueue();
    // Over the rate of new tickets (3 an hour here): the fourth is held.
    const flood = `${unique('flood')}@x.example`;
    const subjects = [1, 2, 3, 4].map((i) => `Flood ${i} ${unique('s')}`);
    for (const subject of subjects)
      await send(await compose({ from: flood, to: queue.address, subject }), [queue.address], flood);
    const problems = async () =>
      (await own.api.call('GET', '/api/mail/problems/?page_size=1000')).body.results as Json[];
    const held = (await problems()).find((p) => p.kind === 'held' && p.sender === flood)!;
    expect(held.reason).toContain('rate');
    const path = `/api/mail/problems/${encodeURIComponent(held.id)}/release/`;
    const staff = await own.api.createUser();
    const staffId = (await own.api.call('GET', `/api/users/?email=${encodeURIComponent(staff.email)}`)).body.results[0]
      .id;
    expect((await own.api.call('PATCH', `/api/users/${staffId}/`, { json: { is_staff: true } })).status).toBe(200);
    expect((await own.api.call('POST', path, { auth: staff.auth })).status).toBe(403);

    // Two at once: one runs it, the other is told it is being released (or, once done, that it is gone).
    const [released, other] = (await Promise.all([own.api.call('POST', path), own.api.call('POST', path)])).sort(
      (a, b) => a.status - b.status,
    );
    expect(released.status, released.text).toBe(200);
    expect([404, 409]).toContain(other.status);
    expect(other.body.detail).toMatch(/being released already|released already/);
    expect(released.body).toMatchObject({ title: `E-Mail Received from ${flood}`, public: true });
    const opened = await ticket(released.body.ticket);
    expect(opened).toMatchObject({ queue: queue.id, title: subjects[3], submitter_email: flood });
    expect((await problems()).map((p) => p.id)).not.toContain(held.id);
    const again = await own.api.call('POST', path);
    expect(again.status).toBe(404);
    expect(again.body.detail).toContain('released already');
    // Listings follow the table's stream: the four tickets, the released one among them, once.
    const list = async () =>
      (await own.api.call('GET', `/api/tickets/?queue=${queue.id}&page_size=100`)).body.results as Json[];
    await expect.poll(async () => (await list()).map((t) => t.title).sort()).toEqual([...subjects].sort());

    // One more from the same sender, to a queue then deleted: held, released, not applied (no queue answers), so
    // listed again as a new problem, one attempt more; nothing runs it again by itself.
    const gone = await newQueue();
    await send(await compose({ from: flood, to: gone.address }), [gone.address], flood);
    const heldAgain = (await problems()).find((p) => p.kind === 'held' && p.recipients.includes(gone.address))!;
    expect((await own.api.call('DELETE', `/api/queues/${gone.id}/`)).status).toBe(204);
    const failed = await own.api.call('POST', `/api/mail/problems/${encodeURIComponent(heldAgain.id)}/release/`);
    expect(failed.status, failed.text).toBe(409);
    expect(failed.body.detail).toMatch(/^Not applied: refused \(no queue answers .*\): kept again as problem /);
    const kept = (await problems()).filter((p) => p.recipients.includes(gone.address));
    expect(kept).toEqual([expect.objectContaining({ kind: 'failed', attempts: 2 })]);
    expect(failed.body.detail).toContain(kept[0]!.id);
  });
});
