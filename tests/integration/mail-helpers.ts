/**
 * What the mail-in tests share: the operators' CLI on a runtime's table, and the mail the runtime
 * sent, read from its local mailbox (issue 22's capture folder).
 */
import { expect } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import PostalMime from 'postal-mime';
import nodemailer from 'nodemailer';
import { cliOnTable } from './table-cli';
import { unique, type clientFor, type Json } from './client';

/**
 * `npm run helpdesk -- <args> --json` on the table `engines` name (as on a deployed one: --table), with the mail secret
 * `secret`.
 */
export function mailCli(engines: Record<string, string>, secret: string, args: string[]) {
  return cliOnTable(engines, [...args, '--json'], { env: { HELPDESK_MAIL_SECRET: secret } });
}

/** The mails to `to` in the capture folder `mailbox`, once there are at least `count`. */
export async function mailsTo(mailbox: string, to: string, count: number) {
  let found: Awaited<ReturnType<typeof PostalMime.parse>>[] = [];
  await expect
    .poll(
      async () => {
        const all = await Promise.all(
          readdirSync(mailbox)
            .filter((f) => f.endsWith('.eml'))
            .map((f) => PostalMime.parse(readFileSync(join(mailbox, f)))),
        );
        found = all.filter((m) => (m.to ?? []).some((a) => a.address === to));
        return found.length;
      },
      { timeout: 15_000, interval: 200 },
    )
    .toBeGreaterThanOrEqual(count);
  return found;
}

/** What the local SMTP server answered a message. */
export interface Sent {
  accepted: boolean;
  code: number;
  response: string;
  ticket?: number;
}

/** Sends `raw` over SMTP to the runtime's port, envelope `from` → `to`; the answer, accepted or not. */
export async function sendRaw(port: number, raw: Buffer, to: string[], from = 'sender@example.com'): Promise<Sent> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
  try {
    const info = await transport.sendMail({ envelope: { from, to }, raw });
    const ticket = /on ticket (\d+)/.exec(info.response)?.[1];
    return { accepted: true, code: 250, response: info.response, ticket: ticket ? Number(ticket) : undefined };
  } catch (error) {
    const e = error as { responseCode?: number; response?: string; message: string };
    return { accepted: false, code: e.responseCode ?? 0, response: e.response ?? e.message };
  } finally {
    transport.close();
  }
}

type Api = ReturnType<typeof clientFor>;

/** A new queue (slug `<prefix>…`) and the address it answers at on the local runtime. */
export async function newMailQueue(api: Api, prefix: string): Promise<{ id: number; address: string; slug: string }> {
  const slug = unique(prefix);
  const reply = await api.call('POST', '/api/queues/', { json: { title: `Mail ${slug}`, slug } });
  expect(reply.status, reply.text).toBe(201);
  return { id: reply.body.id, slug, address: `${slug}@localhost` };
}

/** A ticket as staff read it. */
export async function readTicket(api: Api, id: number): Promise<Json> {
  const reply = await api.call('GET', `/api/tickets/${id}/`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}
