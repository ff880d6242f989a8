/**
 * Ignored senders (upstream's IgnoreEmail) on every way in: the local SMTP server, SES's function
 * (the raw message in the mail bucket, the receipt event to functions/mail-in/ingest), and an IMAP
 * mailbox (a hoodiecrow server on loopback, polled once by pollMailbox). Matched without regard to
 * case, by pattern, per queue; recorded (outcome `ignored`, which rule), never a ticket; a mailbox
 * leaves the message there, read, when the rule says so, and marks it done otherwise.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import hoodiecrow from 'hoodiecrow-imap';
import nodemailer from 'nodemailer';
import type { AddressInfo } from 'node:net';
import type { SESEvent } from 'aws-lambda';
import { clientFor, unique, type Json } from './client';
import { startInProcessRuntime, type InProcessRuntime } from './in-process-runtime';
import { compose, newMessageId } from '../fixtures/mail/corpus';

let runtime: InProcessRuntime;
let api: ReturnType<typeof clientFor>;
const queues: Record<'a' | 'b', { id: number; address: string }> = {} as never;
const rules: Json[] = [];

beforeAll(async () => {
  runtime = await startInProcessRuntime({ HELPDESK_MAIL_TRANSPORT: 'off' });
  api = clientFor(runtime.url);
  for (const name of ['a', 'b'] as const) {
    const slug = unique(`ig${name}`);
    const reply = await api.call('POST', '/api/queues/', { json: { title: slug, slug } });
    expect(reply.status, reply.text).toBe(201);
    queues[name] = { id: reply.body.id, address: `${slug}@localhost` };
  }
  for (const json of [
    { name: 'Monitoring', email_address: '*@Noisy.Example', queues: [] },
    { name: 'Newsletter', email_address: 'News@Example.com', queues: [queues.a.id], keep_in_mailbox: true },
  ]) {
    const reply = await api.call('POST', '/api/ignored-senders/', { json });
    expect(reply.status, reply.text).toBe(201);
    rules.push(reply.body);
  }
}, 120_000);
afterAll(async () => {
  await runtime?.stop();
});

const ticketsFrom = async (email: string): Promise<Json[]> =>
  (await api.call('GET', `/api/tickets/?submitter_email=${encodeURIComponent(email)}`)).body.results;
const inbound = async (messageId: string) => (await import('../../shared/store/inbound-mail')).findInbound(messageId);

describe('ignored senders', () => {
  it("the API: lower-cased patterns, upstream's wildcards only, superusers only", async () => {
    expect(rules.map((r) => [r.email_address, r.queues, r.keep_in_mailbox])).toEqual([
      ['*@noisy.example', [], false],
      ['news@example.com', [queues.a.id], true],
    ]);
    expect(
      (await api.call('POST', '/api/ignored-senders/', { json: { name: 'x', email_address: 'a*b@example.com' } })).body,
    ).toEqual({
      email_address: ['Enter an e-mail address, or a pattern such as *@example.com or noreply@*.'],
    });
    const user = await api.createUser();
    expect((await api.call('GET', '/api/ignored-senders/', { auth: user.auth })).status).toBe(403);
    const made = await api.call('POST', '/api/ignored-senders/', { json: { name: 'Temp', email_address: 'temp@*' } });
    expect((await api.call('GET', `/api/ignored-senders/${made.body.id}/`)).body).toEqual(made.body);
    expect((await api.call('DELETE', `/api/ignored-senders/${made.body.id}/`)).status).toBe(204);
    expect((await api.call('GET', `/api/ignored-senders/${made.body.id}/`)).status).toBe(404);
  });

  it(
    'over SMTP: any case matches; a rule for one queue leaves mail to another ' + 'alone; recorded with its rule',
    async () => {
      const { startLocalSmtp } = await import('../../infra/local/smtp');
      const smtp = await startLocalSmtp(0);
      const send = async (from: string, to: string, messageId: string) => {
        const transport = nodemailer.createTransport({
          host: '127.0.0.1',
          port: smtp.port,
          secure: false,
          ignoreTLS: true,
        });
        try {
          return (
            await transport.sendMail({
              envelope: { from, to: [to] },
              raw: await compose({ from, to, subject: 'Hello', messageId }),
            })
          ).response;
        } finally {
          transport.close();
        }
      };
      try {
        const alert = newMessageId();
        expect(await send('Alerts@NOISY.example', queues.b.address, alert)).toContain(
          `Accepted: ignored (ignored sender: rule ${rules[0]!.id}`,
        );
        expect(await send('NEWS@example.com', queues.a.address, newMessageId())).toContain('Accepted: ignored');
        expect(await send('news@example.com', queues.b.address, newMessageId())).toMatch(/ticket on ticket \d+/);
        expect(await ticketsFrom('alerts@noisy.example')).toEqual([]);
        expect((await ticketsFrom('news@example.com')).map((t) => t.queue)).toEqual([queues.b.id]);
        expect(await inbound(alert)).toMatchObject({
          outcome: 'ignored',
          ticket: null,
          notes: [expect.stringContaining('*@noisy.example')],
        });
      } finally {
        await smtp.stop();
      }
    },
  );

  it("through SES's function: the stored message is ignored, not a ticket", async () => {
    const [{ putFile }, { config }, { handler }] = await Promise.all([
      import('../../shared/aws/s3'),
      import('../../shared/config'),
      import('../../functions/mail-in/ingest'),
    ]);
    const sesId = unique('ses');
    const messageId = newMessageId();
    await putFile(
      `inbound/${sesId}`,
      await compose({ from: 'pager@noisy.example', to: queues.a.address, subject: 'Disk full', messageId }),
      'message/rfc822',
      config.mailIn.bucket,
    );
    const event = {
      Records: [
        {
          ses: {
            mail: { messageId: sesId, timestamp: new Date().toISOString() },
            receipt: { recipients: [queues.a.address] },
          },
        },
      ],
    } as unknown as SESEvent;
    const [result] = await handler(event);
    expect(result).toMatchObject({ outcome: 'ignored', keepInMailbox: false });
    expect(await ticketsFrom('pager@noisy.example')).toEqual([]);
    expect((await inbound(messageId))?.outcome).toBe('ignored');
  });

  it(
    'from an IMAP mailbox: kept there (read) when the rule says so, else moved as every message; a second poll ' +
      'leaves it',
    async () => {
      const user = 'support@example.com';
      const server = hoodiecrow({
        plugins: ['ID', 'UIDPLUS', 'MOVE'],
        users: { [user]: { password: 'pw' } },
        storage: { INBOX: { messages: [] }, '': { folders: {} } },
      });
      await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
      try {
        const port = (server.server.address() as AddressInfo).port;
        for (const from of ['news@example.com', 'bot@noisy.example', 'person@example.com']) {
          server.appendMessage(
            'INBOX',
            [],
            new Date(),
            (await compose({ from, to: queues.a.address, subject: `From ${from}` })).toString('latin1'),
          );
        }
        const [{ pollMailbox }, { parseImapUrl }] = await Promise.all([
          import('../../shared/mail-in/imap'),
          import('../../shared/domain/mail-in-imap'),
        ]);
        const mailbox = parseImapUrl(
          `imap://${encodeURIComponent(user)}@127.0.0.1:${port}/INBOX?recipient=${queues.a.address}`,
        );
        expect((await pollMailbox(mailbox, 'pw')).outcomes).toEqual({ ignored: 2, ticket: 1 });
        const inFolder = (path: string) =>
          (server.getMailbox(path)?.messages ?? []).map((m) => [
            /From: (\S+)/.exec(m.raw)?.[1],
            m.flags.includes('\\Seen'),
          ]);
        expect(inFolder('INBOX')).toEqual([['news@example.com', true]]);
        expect(inFolder('Processed')).toEqual([
          ['bot@noisy.example', true],
          ['person@example.com', true],
        ]);
        // Read again (the mailbox moves what it is done with): found a duplicate, and left again.
        expect((await pollMailbox(mailbox, 'pw')).outcomes).toEqual({ duplicate: 1 });
        expect(inFolder('INBOX')).toEqual([['news@example.com', true]]);
        expect(await ticketsFrom('person@example.com')).toHaveLength(1);
      } finally {
        await new Promise<void>((done) => server.close(() => done()));
      }
    },
  );
});
