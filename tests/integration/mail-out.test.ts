/**
 * Email out end to end (issue 22): changes made over HTTP are mailed through the table's stream,
 * the mail consumer and the sender, into the local mailbox (one .eml per message, as sent), which
 * this file reads back with a MIME parser. Its own runtime, in-process (the retry test intercepts
 * the store's client), with the mailbox in a temporary folder.
 */
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import PostalMime from 'postal-mime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ticketOfReplyAddress, ticketOfThreadRoot } from '../../shared/domain/mail-threading';
import { basic, clientFor, form, unique, type Json } from './client';
import { startInProcessRuntime, type InProcessRuntime } from './in-process-runtime';

let runtime: InProcessRuntime;
let api: ReturnType<typeof clientFor>;
let mailbox: string;
let agent: { id: number; email: string; auth: string };
let queue: Json;

interface Captured {
  file: string;
  mode: number;
  from: string;
  to: string[];
  subject: string;
  headers: Map<string, string>;
  text: string;
  html: string;
  attachments: { filename: string | null; content: string }[];
}

/** Every message in the mailbox, parsed. */
async function captured(): Promise<Captured[]> {
  const files = (await readdir(mailbox).catch(() => [] as string[])).filter((f) => f.endsWith('.eml')).sort();
  return Promise.all(
    files.map(async (file) => {
      const path = join(mailbox, file);
      const mail = await PostalMime.parse(await readFile(path));
      return {
        file,
        mode: (await stat(path)).mode & 0o777,
        from: `${mail.from?.name} <${mail.from?.address}>`,
        to: (mail.to ?? []).map((t) => t.address!),
        subject: mail.subject ?? '',
        headers: new Map(mail.headers.map((h) => [h.key, h.value])),
        text: mail.text ?? '',
        html: mail.html ?? '',
        attachments: mail.attachments.map((a) => ({
          filename: a.filename,
          content: Buffer.from(a.content as ArrayBuffer).toString(),
        })),
      };
    }),
  );
}

/** The messages about ticket `id` (by its subject tag), once there are `count` of them. */
async function mailsOf(tag: string, count: number): Promise<Captured[]> {
  let mails: Captured[] = [];
  await expect
    .poll(async () => (mails = (await captured()).filter((m) => m.subject.startsWith(tag))).length, {
      timeout: 15_000,
      interval: 100,
    })
    .toBeGreaterThanOrEqual(count);
  return mails;
}

const to = (mails: Captured[], address: string) => mails.filter((m) => m.to.includes(address));

/** The ticket's mail log, once `count` mails are settled (sent or otherwise done). */
async function emailsOf(ticket: number, count: number): Promise<Json[]> {
  let results: Json[] = [];
  await expect
    .poll(
      async () => {
        const reply = await api.call('GET', `/api/tickets/${ticket}/emails/`);
        expect(reply.status, reply.text).toBe(200);
        results = reply.body.results;
        return results.filter((m) => m.status !== 'queued' && m.status !== 'sending').length;
      },
      { timeout: 15_000, interval: 100 },
    )
    .toBeGreaterThanOrEqual(count);
  return results;
}

async function followup(ticket: number, body: Record<string, unknown>, auth?: string): Promise<Json> {
  const reply = await api.call('POST', '/api/followups/', {
    json: { ticket, title: 'Update', ...body },
    ...(auth ? { auth } : {}),
  });
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

/** A queue made by another process: its item written here, without this process's store hearing of it. */
async function queueMadeElsewhere(title: string) {
  const [{ dynamo }, { keys }, { PutCommand }, { config }] = await Promise.all([
    import('../../shared/aws/clients'),
    import('../../shared/store/keys'),
    import('../../shared/aws/dynamodb'),
    import('../../shared/config'),
  ]);
  const slug = unique('elsewhere');
  const queue = {
    id: 800_000 + Math.floor(Math.random() * 199_999),
    title,
    slug,
    email_address: `${slug}@example.com`,
  };
  await dynamo.send(new PutCommand({ TableName: config.tableName, Item: { ...keys.queue(queue.id), ...queue } }));
  return queue;
}

beforeAll(async () => {
  mailbox = await mkdtemp(join(tmpdir(), 'helpdesk-mailbox-'));
  runtime = await startInProcessRuntime({ HELPDESK_MAILBOX_DIR: mailbox });
  api = clientFor(runtime.url);
  // A staff member with an address (the API makes users without staff rights).
  const { createUser } = await import('../../shared/store/users');
  const { newUserRecord } = await import('../../shared/domain/user');
  const username = unique('agent');
  const user = await createUser(
    await newUserRecord(
      { username, email: `${username}@example.com`, first_name: 'Ada', last_name: 'Agent' },
      'a-password-1',
      'staff',
    ),
  );
  agent = { id: user.id, email: user.email, auth: basic(username, 'a-password-1') };
  const slug = unique('mq');
  const reply = await api.call('POST', '/api/queues/', {
    json: {
      title: 'Mail Queue',
      slug,
      email_address: 'support@example.com',
      new_ticket_cc: 'new-cc@example.com',
      updated_ticket_cc: 'all-cc@example.com',
    },
  });
  expect(reply.status, reply.text).toBe(201);
  queue = reply.body;
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
  if (mailbox) await rm(mailbox, { recursive: true, force: true });
});

describe('a ticket created', () => {
  it(
    'by JSON: the submitter, the queue CCs and the assignee each get their mail, ' + 'threaded, from the queue',
    async () => {
      const ticket = (
        await api.createTicket({
          queue: queue.id,
          title: 'Printer <b>on fire</b>',
          submitter_email: 'sub@example.com',
          assigned_to: agent.id,
        })
      ).body;
      const tag = `[${queue.slug}-${ticket.id}]`;
      const mails = await mailsOf(tag, 4);
      expect(mails.map((m) => m.to.join()).sort()).toEqual(
        ['all-cc@example.com', agent.email, 'new-cc@example.com', 'sub@example.com'].sort(),
      );

      const [submitter] = to(mails, 'sub@example.com');
      expect(submitter!.subject).toBe(`${tag} Printer <b>on fire</b> (Opened)`);
      expect(submitter!.from).toBe('Mail Queue <support@example.com>');
      expect(submitter!.text).toContain('Thank you for your message.');
      expect(submitter!.text).toContain('Test description');
      expect(submitter!.html).toContain('Printer &lt;b&gt;on fire&lt;/b&gt;');
      expect(submitter!.mode).toBe(0o600);
      expect(to(mails, agent.email)[0]!.subject).toBe(`${tag} Printer <b>on fire</b> (Assigned to you)`);
      expect(to(mails, 'new-cc@example.com')[0]!.text).toContain('A new ticket has been opened.');

      // Threading: the ticket's root in References and In-Reply-To (the first mail of each thread),
      // a Reply-To naming the ticket, and the RFC 3834 headers.
      const secret = process.env.HELPDESK_MAIL_SECRET!;
      for (const m of mails) {
        const root = m.headers.get('references')!;
        expect(ticketOfThreadRoot(root, secret)).toBe(ticket.id);
        expect(m.headers.get('in-reply-to')).toBe(root);
        expect(
          ticketOfReplyAddress(
            m.headers.get('reply-to')!.split('<').pop()!.split('>')[0]!,
            secret,
            'support@example.com',
          ),
        ).toBe(ticket.id);
        expect(m.headers.get('auto-submitted')).toBe('auto-generated');
        expect(m.headers.get('x-auto-response-suppress')).toBe('All');
      }

      const log = await emailsOf(ticket.id, 4);
      expect(log.map((m) => `${m.kind} ${m.recipients.join()} ${m.status}`).sort()).toEqual(
        [
          `assigned_owner ${agent.email} sent`,
          'newticket_cc all-cc@example.com sent',
          'newticket_cc new-cc@example.com sent',
          'newticket_submitter sub@example.com sent',
        ].sort(),
      );
      expect(log.find((m) => m.kind === 'newticket_submitter').message_id).toBe(submitter!.headers.get('message-id'));
    },
  );

  it('by multipart, in a queue without an address: from <slug>@localhost, the file attached', async () => {
    const queue1 = (await api.call('GET', '/api/queues/1/')).body;
    const reply = await api.call('POST', '/api/tickets/', {
      form: form(
        { queue: 1, title: 'With a file', description: 'See attached', submitter_email: 'multi@example.com' },
        [{ field: 'attachment', name: 'notes.txt', type: 'text/plain', content: 'hello file' }],
      ),
    });
    expect(reply.status, reply.text).toBe(201);
    const [mail] = await mailsOf(`[${queue1.slug}-${reply.body.id}]`, 1);
    expect(mail!.to).toEqual(['multi@example.com']);
    expect(mail!.from).toBe(`${queue1.title} <${queue1.slug}@localhost>`);
    expect(mail!.attachments).toEqual([{ filename: 'notes.txt', content: 'hello file' }]);
  });

  it('the acting user gets nothing, even as submitter and assignee', async () => {
    const reply = await api.call('POST', '/api/tickets/', {
      auth: agent.auth,
      json: {
        queue: queue.id,
        title: 'My own',
        description: 'Mine',
        submitter_email: agent.email,
        assigned_to: agent.id,
      },
    });
    expect(reply.status, reply.text).toBe(201);
    const log = await emailsOf(reply.body.id, 2);
    expect(log.map((m) => m.recipients[0]).sort()).toEqual(['all-cc@example.com', 'new-cc@example.com']);
  });
});

describe('followups', () => {
  it(
    'a private followup mails nobody; a public one mails the submitter, the owner and the CCs, threaded after ' +
      'the first',
    async () => {
      const ticket = (
        await api.createTicket({
          queue: queue.id,
          title: 'Followed',
          submitter_email: 'follow@example.com',
          assigned_to: agent.id,
        })
      ).body;
      const tag = `[${queue.slug}-${ticket.id}]`;
      const [opened] = to(await mailsOf(tag, 4), 'follow@example.com');
      await followup(ticket.id, { comment: 'Internal: the customer is difficult', public: false });
      await followup(ticket.id, { comment: 'We are on it', public: true });
      // The stream is read in order: once the public followup's mails are logged, the private one's would be.
      const log = await emailsOf(ticket.id, 7);
      expect(
        log
          .filter((m) => m.kind.startsWith('updated_'))
          .map((m) => `${m.kind} ${m.recipients[0]}`)
          .sort(),
      ).toEqual(
        [
          'updated_cc all-cc@example.com',
          `updated_owner ${agent.email}`,
          'updated_submitter follow@example.com',
        ].sort(),
      );
      const mails = await mailsOf(tag, 7);
      expect(mails.some((m) => m.text.includes('Internal') || m.html.includes('Internal'))).toBe(false);
      const [update] = to(mails, 'follow@example.com').filter((m) => m.subject.endsWith('(Updated)'));
      expect(update!.text).toContain('We are on it');
      expect(update!.headers.get('in-reply-to')).toBe(opened!.headers.get('message-id'));
      expect(update!.headers.get('references')).toBe(
        `${opened!.headers.get('references')} ${opened!.headers.get('message-id')}`,
      );
    },
  );

  it('a resolve mails resolved_submitter with the resolution; the acting owner hears nothing of it', async () => {
    const ticket = (
      await api.createTicket({
        queue: queue.id,
        title: 'To resolve',
        submitter_email: 'res@example.com',
        assigned_to: agent.id,
      })
    ).body;
    await emailsOf(ticket.id, 4);
    await followup(ticket.id, { comment: 'Replaced the fuser.', public: true, new_status: 3 }, agent.auth);
    const log = await emailsOf(ticket.id, 6);
    expect(
      log
        .slice(4)
        .map((m) => `${m.kind} ${m.recipients[0]}`)
        .sort(),
    ).toEqual(['resolved_cc all-cc@example.com', 'resolved_submitter res@example.com']);
    const [resolved] = to(await mailsOf(`[${queue.slug}-${ticket.id}]`, 6), 'res@example.com').filter((m) =>
      m.subject.endsWith('(Resolved)'),
    );
    expect(resolved!.text).toContain('Your ticket has been resolved.');
    expect(resolved!.text).toContain('Resolution:\nReplaced the fuser.');
  });

  it("a PATCH mails nothing (as upstream's API)", async () => {
    const ticket = (await api.createTicket({ queue: queue.id, title: 'Patched', submitter_email: 'patch@example.com' }))
      .body;
    await emailsOf(ticket.id, 3);
    expect((await api.call('PATCH', `/api/tickets/${ticket.id}/`, { json: { status: 3 } })).status).toBe(200);
    await followup(ticket.id, { comment: 'After the patch', public: true });
    const log = await emailsOf(ticket.id, 5);
    expect(
      log
        .slice(3)
        .map((m) => m.kind)
        .sort(),
    ).toEqual(['updated_cc', 'updated_submitter']);
  });
});

describe('delivery', () => {
  it("mails from a queue made by another process, which mail's kept queues do not hold yet", async () => {
    const { queuesForMail } = await import('../../shared/store/queues');
    await queuesForMail(); // kept from here on
    const late = await queueMadeElsewhere('Made elsewhere');
    const ticket = (
      await api.createTicket({ queue: late.id, title: 'Late queue', submitter_email: 'late@example.com' })
    ).body;
    const [mail] = await mailsOf(`[${late.slug}-${ticket.id}]`, 1);
    expect(mail!.from).toBe(`Made elsewhere <${late.email_address}>`);
  });

  it('reads no mail before its claim, and its queue once for all its mails (kept a minute, read at once)', async () => {
    const [{ dynamo }, { currentFunction }, { getQueue, updateQueue }, { keys }] = await Promise.all([
      import('../../shared/aws/clients'),
      import('../../infra/local/table-access'),
      import('../../shared/store/queues'),
      import('../../shared/store/keys'),
    ]);
    // A change of the queue in this process: the queue kept for mail is forgotten, so this ticket's mail reads it.
    await updateQueue((await getQueue(queue.id))!, { title: queue.title });
    const calls: string[] = [];
    const remove = dynamo.intercept(async ({ operation, input }, next) => {
      const { Key, Item, ExpressionAttributeValues } = input as Record<string, Record<string, string> | undefined>;
      const partition = (Key?.PK ?? Item?.PK ?? ExpressionAttributeValues?.[':pk'] ?? '').replace(/#.*/, '#');
      const ofThisQueue = Key?.SK === keys.queue(queue.id).SK ? ' this queue' : '';
      calls.push(`${currentFunction()} ${operation} ${partition}${ofThisQueue}`);
      return next();
    });
    try {
      const ticket = (
        await api.createTicket({ queue: queue.id, title: 'Counted', submitter_email: 'count@example.com' })
      ).body;
      await emailsOf(ticket.id, 3);
    } finally {
      remove();
    }
    const of = (fn: string, call: string) => calls.filter((c) => c.startsWith(`${fn} `) && c.endsWith(call)).length;
    // Three mails (the submitter, the queue's two CC lists): each its claim and its outcome, no mail log item got by
    // key, and the queue got once for all of them (one process here, so the consumer's read serves the sender too; on
    // AWS each function reads it once a minute).
    expect(of('mail/send', ' UpdateItem MAIL#')).toBe(6);
    expect(of('mail/send', ' GetItem MAIL#')).toBe(0);
    expect(of('mail/queue', ' GetItem QUEUES this queue') + of('mail/send', ' GetItem QUEUES this queue')).toBe(1);
  });

  it('a retried stream batch sends nothing twice', async () => {
    const { dynamo } = await import('../../shared/aws/clients');
    let failed = 0;
    let mailPuts = 0;
    // The batch fails after its first mail is recorded (and queued): the stream poller reads it again.
    const remove = dynamo.intercept(async ({ operation, input }, next) => {
      const item = (input as { Item?: { PK?: string } }).Item;
      if (operation === 'PutItem' && item?.PK?.startsWith('MAIL#') && ++mailPuts === 2 && !failed) {
        failed += 1;
        throw Object.assign(new Error('injected: the batch fails here'), {
          name: 'InternalServerError',
          $metadata: { httpStatusCode: 500 },
        });
      }
      return next();
    });
    try {
      const ticket = (
        await api.createTicket({
          queue: queue.id,
          title: 'Retried',
          submitter_email: 'retry@example.com',
          assigned_to: agent.id,
        })
      ).body;
      const log = await emailsOf(ticket.id, 4);
      expect(failed).toBe(1);
      expect(log.map((m) => `${m.status} ${m.attempts}`)).toEqual(['sent 1', 'sent 1', 'sent 1', 'sent 1']);
      const mails = await mailsOf(`[${queue.slug}-${ticket.id}]`, 4);
      expect(mails.map((m) => m.to[0]).sort()).toEqual(
        ['all-cc@example.com', agent.email, 'new-cc@example.com', 'retry@example.com'].sort(),
      );
      // Settled: a second drain of the stream adds nothing.
      await runtime.drainTableStream();
      expect((await captured()).filter((m) => m.subject.startsWith(`[${queue.slug}-${ticket.id}]`))).toHaveLength(4);
    } finally {
      remove();
    }
  });
});

describe('mail in on the same runtime', () => {
  it(
    'looks its senders up without reading every user for every message: the ' + "users' partition once a minute",
    async () => {
      const [{ dynamo }, { ingest }, { compose }] = await Promise.all([
        import('../../shared/aws/clients'),
        import('../../shared/mail-in/ingest'),
        import('../fixtures/mail/corpus'),
      ]);
      const ticket = (
        await api.createTicket({ queue: queue.id, title: 'Tagged', submitter_email: 'tagged@example.com' })
      ).body;
      const subject = `Re: [${queue.slug}-${ticket.id}] Tagged`;
      const message = async (from: string, n: number) =>
        ingest({
          raw: await compose({ from, to: 'support@example.com', subject }),
          rawKey: `inbound/lookup-${n}`,
          recipients: ['support@example.com'],
        });
      let userReads = 0;
      const remove = dynamo.intercept(async ({ operation, input }, next) => {
        if (operation === 'Query' && JSON.stringify(input).includes('"USERS"')) userReads += 1;
        return next();
      });
      try {
        // Staff write into a ticket by its subject tag; a stranger with the same tag opens one of their own.
        const fromStaff = await message(agent.email, 1);
        const fromStranger = await message('stranger@example.com', 2);
        expect(fromStaff).toMatchObject({ outcome: 'followup', ticket: ticket.id });
        expect(fromStranger).toMatchObject({ outcome: 'ticket' });
        expect((fromStranger as { ticket: number }).ticket).not.toBe(ticket.id);
        expect(userReads).toBe(1);
      } finally {
        remove();
      }
    },
  );
});

describe('mail in over SMTP on the same runtime', () => {
  it(
    'reads the queues once a minute, not for every message, and reads them again before refusing an address (a ' +
      'queue made elsewhere)',
    async () => {
      const [{ dynamo }, { startLocalSmtp }, { compose }, { default: nodemailer }] = await Promise.all([
        import('../../shared/aws/clients'),
        import('../../infra/local/smtp'),
        import('../fixtures/mail/corpus'),
        import('nodemailer'),
      ]);
      const smtp = await startLocalSmtp(0);
      const send = async (to: string, from: string) => {
        const transport = nodemailer.createTransport({
          host: '127.0.0.1',
          port: smtp.port,
          secure: false,
          ignoreTLS: true,
        });
        try {
          return await transport
            .sendMail({ envelope: { from, to: [to] }, raw: await compose({ from, to, subject: 'Counting' }) })
            .then(
              (info) => info.response,
              (error: { responseCode?: number }) => error.responseCode,
            );
        } finally {
          transport.close();
        }
      };
      const requests: string[] = [];
      const remove = dynamo.intercept(async ({ operation, input }, next) => {
        requests.push(JSON.stringify(input).includes('"QUEUES"') && operation === 'Query' ? 'queues' : operation);
        return next();
      });
      const queueReads = () => requests.filter((r) => r === 'queues').length;
      try {
        await send('support@example.com', `${unique('warm')}@example.com`); // the queues are kept from here on
        requests.length = 0;
        for (let n = 0; n < 3; n++)
          expect(await send('support@example.com', `${unique('count')}@example.com`)).toMatch(/ticket on ticket \d+/);
        expect(queueReads()).toBe(0);

        const late = await queueMadeElsewhere('Late');
        requests.length = 0;
        const reply = await send(late.email_address, 'first@example.com');
        expect(reply).toMatch(/ticket on ticket \d+/);
        expect(queueReads()).toBe(1); // at RCPT, before refusing: the ingest finds it in what that read kept
        expect((await api.call('GET', `/api/tickets/${/on ticket (\d+)/.exec(String(reply))![1]}/`)).body.queue).toBe(
          late.id,
        );

        requests.length = 0;
        expect(await send('nobody@example.com', 'lost@example.com')).toBe(550);
        expect(queueReads()).toBe(1);
      } finally {
        remove();
        await smtp.stop();
      }
    },
  );
});
