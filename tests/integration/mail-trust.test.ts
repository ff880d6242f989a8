/**
 * Mail believes whoever writes (issue 32), over SMTP to a runtime of its own: hostile text, forged
 * senders, forged bounces, amplification and the lower limits, each shown on what it did before.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unique, type Json } from './client';
import { sendRaw, type Sent } from './mail-helpers';
import { useOwnRuntime } from './own-runtime';
import { onSharedEngines } from './shared-engines';
import { compose } from '../fixtures/mail/corpus';

const SECRET = 'mail-trust-test-secret-0123456789abcdefghijklmn';
const engines = onSharedEngines('mail-trust');
const mailbox = mkdtempSync(join(tmpdir(), 'helpdesk-mail-trust-'));
afterAll(() => rmSync(mailbox, { recursive: true, force: true }));
const own = useOwnRuntime({
  ...engines,
  HELPDESK_MAILBOX_DIR: mailbox,
  HELPDESK_MAIL_FROM: 'Helpdesk <helpdesk@localhost>',
  HELPDESK_MAIL_SECRET: SECRET,
  // Seconds, not minutes: what the quadratic code took for these inputs (issue 32: 19.6 s at 160 KB).
  HELPDESK_MAIL_IN_PARSE_BUDGET_MS: '10000',
});

const send = (raw: Buffer, to: string[], from?: string): Promise<Sent> => sendRaw(own.runtime.smtpPort, raw, to, from);

async function newQueue(): Promise<{ id: number; address: string; slug: string }> {
  const slug = unique('tq');
  const reply = await own.api.call('POST', '/api/queues/', { json: { title: `Trust ${slug}`, slug } });
  expect(reply.status, reply.text).toBe(201);
  return { id: reply.body.id, slug, address: `${slug}@localhost` };
}

async function ticket(id: number): Promise<Json> {
  const reply = await own.api.call('GET', `/api/tickets/${id}/`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

const MB = 1024 * 1024;

describe('hostile text', () => {
  it.each([
    ['a text line of 1 MB of spaces, then x', { text: `${' '.repeat(MB)}x` }, 'x'],
    ['an HTML body of 1 MB of "<"', { text: undefined, html: `${'<'.repeat(MB)}` }, '<'.repeat(MB).slice(0, 100_000)],
    ['an HTML body of 1 MB of unclosed <script> tags', { text: undefined, html: `ok${'<script>'.repeat(MB / 8)}` }, 'ok'],
  ])('%s becomes a ticket within the budget of seconds', async (_name, body, description) => {
    const queue = await newQueue();
    const sent = await send(await compose({ from: 'hostile@example.com', to: queue.address, subject: 'Spaces' }, body), [queue.address], 'hostile@example.com');
    expect(sent.response).toMatch(/ticket on ticket \d+/);
    expect((await ticket(sent.ticket!)).description.slice(0, 100_000)).toBe(description);
  });
});
