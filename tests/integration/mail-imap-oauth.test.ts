/**
 * An OAuth 2.0 mailbox (issue 36, item 3), end to end: `npm start` polls an IMAP server on loopback
 * (hoodiecrow-imap with SASL-IR and XOAUTH2, which takes only the access token issued last) every
 * 200 ms, signing in with a Google refresh token against a token endpoint on loopback whose tokens
 * live 302 s: kept until 5 minutes before they expire, each is renewed about 2 s after it was issued.
 * The endpoint then refuses, and then the IMAP server: each refusal is a mail problem in words, and the poller goes
 * on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import hoodiecrow from 'hoodiecrow-imap';
import { ImapFlow } from 'imapflow';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { unique, type Json } from './client';
import { mailCli } from './mail-helpers';
import { useOwnRuntime } from './own-runtime';
import { onSharedEngines } from './shared-engines';
import { compose } from '../fixtures/mail/corpus';

const SECRET = 'mail-imap-oauth-test-secret-0123456789abcdefghijkl';
const USER = 'support@example.com';
const PASSWORD = 'delivery-only-password';
const engines = onSharedEngines('mail-imap-oauth');

const users: Record<string, { password: string; xoauth2: { accessToken: string } }> = {
  [USER]: { password: PASSWORD, xoauth2: { accessToken: 'none issued yet' } },
};
const server = hoodiecrow({
  plugins: ['SASL-IR', 'XOAUTH2', 'ID', 'UIDPLUS', 'MOVE'],
  users,
  storage: { INBOX: { messages: [] }, '': { folders: {} } },
});
await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
afterAll(() => new Promise<void>((done) => server.close(() => done())));
const port = (server.server.address() as AddressInfo).port;

/** The token endpoint: each token it issues is the only one the IMAP server then takes. */
const issued: string[] = [];
const refusals: Record<string, string>[] = [];
let refusing = false;
/** While set, a token issued is not taken by the IMAP server either (the mailbox's permission withdrawn). */
let revoked = false;
const endpoint = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString()));
  req.on('end', () => {
    const form = Object.fromEntries(new URLSearchParams(body));
    const granted = form.grant_type === 'refresh_token' && form.refresh_token === 'refresh-1' && !refusing;
    if (!granted) {
      refusals.push(form);
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'invalid_grant', error_description: 'Token has been expired or revoked.' }));
      return;
    }
    const token = `token-${issued.length + 1}`;
    issued.push(token);
    users[USER]!.xoauth2.accessToken = revoked ? 'revoked' : token;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ access_token: token, expires_in: 302, token_type: 'Bearer' }));
  });
});
await new Promise<void>((done) => endpoint.listen(0, '127.0.0.1', done));
afterAll(() => new Promise<void>((done) => endpoint.close(() => done())));
const tokenUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/token`;

const queueSlug = unique('oauthq');
const queueAddress = `${queueSlug}@localhost`;
const own = useOwnRuntime({
  ...engines,
  HELPDESK_MAIL_SECRET: SECRET,
  HELPDESK_IMAP_URL:
    `imap://${encodeURIComponent(USER)}@127.0.0.1:${port}/INBOX` +
    `?recipient=${queueAddress}&auth=google-refresh-token`,
  HELPDESK_IMAP_PASSWORD: JSON.stringify({
    client_id: 'helpdesk.apps.googleusercontent.com',
    client_secret: 'client-secret',
    refresh_token: 'refresh-1',
    token_url: tokenUrl,
  }),
  HELPDESK_IMAP_POLL_SECONDS: '0.2',
});
beforeAll(async () => {
  const reply = await own.api.call('POST', '/api/queues/', { json: { title: 'OAuth', slug: queueSlug } });
  expect(reply.status, reply.text).toBe(201);
});

/** Puts a message in the INBOX, as the mail provider does (signing in with the password: delivery is not polling). */
async function deliver(from: string, subject: string): Promise<void> {
  const client = new ImapFlow({
    host: '127.0.0.1',
    port,
    secure: false,
    doSTARTTLS: false,
    auth: { user: USER, pass: PASSWORD },
    logger: false,
    disableAutoIdle: true,
  });
  await client.connect();
  try {
    const raw = await compose({ from, to: queueAddress, subject }, { text: 'Hello.' });
    expect(await client.append('INBOX', raw)).toBeTruthy();
  } finally {
    await client.logout();
  }
}

async function ticketOf(from: string): Promise<Json[]> {
  let found: Json[] = [];
  await expect
    .poll(
      async () =>
        (found = (await own.api.call('GET', `/api/tickets/?submitter_email=${encodeURIComponent(from)}`)).body
          .results as Json[]).length,
      { timeout: 20_000, interval: 100 },
    )
    .toBe(1);
  return found;
}

async function signInProblems(): Promise<Json[]> {
  const listed = await mailCli(engines, SECRET, ['list-mail-problems']);
  expect(listed.code, listed.stderr).toBe(0);
  return (JSON.parse(listed.stdout) as Json[]).filter((p) => p.kind === 'sign-in');
}

describe('an OAuth 2.0 mailbox', () => {
  it('signs in with XOAUTH2, reads the mail, and renews its token before it expires', async () => {
    const first = `${unique('oauth')}@example.com`;
    await deliver(first, 'Signed in by token');
    expect(await ticketOf(first)).toEqual([expect.objectContaining({ title: 'Signed in by token' })]);
    // Renewed (every ~2 s here) without a refusal; the server now takes only the newest token.
    const seen = issued.length;
    await expect.poll(() => issued.length, { timeout: 20_000, interval: 100 }).toBeGreaterThanOrEqual(seen + 2);
    const second = `${unique('oauth')}@example.com`;
    await deliver(second, 'After a renewal');
    expect(await ticketOf(second)).toHaveLength(1);
    expect(refusals).toEqual([]);
  });

  it("records a refused token as a mail problem in the endpoint's words, and goes on polling", async () => {
    refusing = true;
    await expect.poll(() => refusals.length, { timeout: 20_000, interval: 100 }).toBeGreaterThan(0);
    await expect
      .poll(async () => (await signInProblems()).map((p) => p.reason), { timeout: 20_000, interval: 500 })
      .toEqual([
        expect.stringMatching(
          new RegExp(
            '^refused: the token endpoint 127\\.0\\.0\\.1:\\d+ refused google-refresh-token credentials for ' +
              'support@example.com: 400 invalid_grant: Token has been expired or revoked\\.$',
          ),
        ),
      ]);
    refusing = false;
    const later = `${unique('later')}@example.com`;
    await deliver(later, 'After the refusal');
    expect(await ticketOf(later)).toHaveLength(1);
  });

  it('drops a token the IMAP server refuses, says so, and signs in with a new one', async () => {
    revoked = true;
    users[USER]!.xoauth2.accessToken = 'revoked';
    await expect
      .poll(async () => (await signInProblems()).map((p) => p.reason), { timeout: 20_000, interval: 500 })
      .toEqual([expect.stringMatching(/^refused: the IMAP server 127\.0\.0\.1 refused the access token for support@/)]);
    revoked = false;
    const after = `${unique('after')}@example.com`;
    await deliver(after, 'With a new token');
    expect(await ticketOf(after)).toHaveLength(1);
  });
});
