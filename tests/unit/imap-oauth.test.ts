/**
 * The OAuth 2.0 token sources of an IMAP mailbox (shared/mail-in/oauth.ts) against a token endpoint
 * on loopback: what each grant sends (its client assertion verified with the key's public half), a
 * token kept until 5 minutes before it expires and then renewed (the source's clock moved on), and a
 * refusal in the endpoint's words. The credentials' checks (shared/domain/imap-oauth.ts) too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { parseOAuthCredentials } from '../../shared/domain/imap-oauth';
import { parseImapUrl } from '../../shared/domain/mail-in-imap';
import { RENEW_EARLY_MS, SignInRefused, tokenSource } from '../../shared/mail-in/oauth';
import { selfSignedCertificate } from '../fixtures/certificates';

const USER = 'support@example.com';
let server: Server;
let tokenUrl: string;
const requests: Record<string, string>[] = [];
let answer: () => { status: number; body: unknown } = () => ({
  status: 200,
  body: { access_token: `token-${requests.length}`, expires_in: 3600, token_type: 'Bearer' },
});

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      requests.push(Object.fromEntries(new URLSearchParams(body)));
      const { status, body: reply } = answer();
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  tokenUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;

describe('token sources', () => {
  it('Entra ID with a client secret: client credentials for Exchange Online IMAP', async () => {
    requests.length = 0;
    const credentials = parseOAuthCredentials(
      'entra',
      JSON.stringify({
        tenant: 'contoso.onmicrosoft.com',
        client_id: 'app-1',
        client_secret: 's3cret',
        token_url: tokenUrl,
      }),
    );
    expect(await tokenSource(credentials, USER).token()).toBe('token-1');
    expect(requests).toEqual([
      {
        grant_type: 'client_credentials',
        client_id: 'app-1',
        client_secret: 's3cret',
        scope: 'https://outlook.office365.com/.default',
      },
    ]);
  });

  it('Entra ID with a certificate: a client assertion signed with its key, x5t its thumbprint', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'entra-'));
    try {
      const { keyPath, certPath } = selfSignedCertificate(dir, '/CN=helpdesk-imap');
      const [key, certificate] = [readFileSync(keyPath, 'utf8'), readFileSync(certPath, 'utf8')];
      requests.length = 0;
      const credentials = parseOAuthCredentials(
        'entra',
        JSON.stringify({ tenant: 'tenant-id', client_id: 'app-2', certificate, private_key: key, token_url: tokenUrl }),
      );
      await tokenSource(credentials, USER).token();
      const [sent] = requests;
      expect(sent).toMatchObject({
        grant_type: 'client_credentials',
        client_id: 'app-2',
        scope: 'https://outlook.office365.com/.default',
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      });
      expect(sent!.client_secret).toBeUndefined();
      const cert = new X509Certificate(certificate);
      const { payload } = await jwtVerify(sent!.client_assertion!, cert.publicKey, { audience: tokenUrl });
      expect(payload).toMatchObject({ iss: 'app-2', sub: 'app-2' });
      expect(payload.jti).toEqual(expect.any(String));
      expect(payload.exp! - payload.iat!).toBeLessThanOrEqual(600);
      expect(decodeProtectedHeader(sent!.client_assertion!)).toMatchObject({
        alg: 'RS256',
        x5t: createHash('sha1').update(cert.raw).digest('base64url'),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a Google service account: a JWT for the mailbox's user (domain-wide delegation), Gmail's scope", async () => {
    requests.length = 0;
    const keyFile = {
      type: 'service_account',
      client_email: 'helpdesk@project.iam.gserviceaccount.com',
      private_key: privatePem,
      private_key_id: 'key-7',
      token_uri: tokenUrl,
    };
    await tokenSource(parseOAuthCredentials('google-service-account', JSON.stringify(keyFile)), USER).token();
    const [sent] = requests;
    expect(sent!.grant_type).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
    const { payload, protectedHeader } = await jwtVerify(sent!.assertion!, publicKey, {
      audience: tokenUrl,
      issuer: keyFile.client_email,
      subject: USER,
    });
    expect(payload.scope).toBe('https://mail.google.com/');
    expect(protectedHeader).toMatchObject({ alg: 'RS256', kid: 'key-7' });
  });

  it("a Google user's refresh token", async () => {
    requests.length = 0;
    const credentials = { client_id: 'cid', client_secret: 'csecret', refresh_token: 'rt-1', token_url: tokenUrl };
    await tokenSource(parseOAuthCredentials('google-refresh-token', JSON.stringify(credentials)), USER).token();
    expect(requests).toEqual([
      { grant_type: 'refresh_token', client_id: 'cid', client_secret: 'csecret', refresh_token: 'rt-1' },
    ]);
  });

  it('keeps a token until 5 minutes before it expires, then renews it; forgets one the server refused', async () => {
    requests.length = 0;
    let clock = Date.parse('2026-11-28T12:00:00Z');
    const source = tokenSource(
      parseOAuthCredentials(
        'google-refresh-token',
        JSON.stringify({ client_id: 'c', client_secret: 's', refresh_token: 'r', token_url: tokenUrl }),
      ),
      USER,
      { now: () => clock },
    );
    const tokens = await Promise.all([source.token(), source.token()]); // asked for at once: one request
    expect(tokens).toEqual(['token-1', 'token-1']);
    clock += 3600_000 - RENEW_EARLY_MS - 1;
    expect(await source.token()).toBe('token-1');
    expect(requests).toHaveLength(1);
    clock += 1;
    expect(await source.token()).toBe('token-2');
    source.invalidate();
    expect(await source.token()).toBe('token-3');
    expect(requests).toHaveLength(3);
  });

  it("a refusal is a SignInRefused in the endpoint's words; a server error is not", async () => {
    const credentials = parseOAuthCredentials(
      'entra',
      JSON.stringify({ tenant: 't', client_id: 'app', client_secret: 'expired', token_url: tokenUrl }),
    );
    answer = () => ({
      status: 401,
      body: {
        error: 'invalid_client',
        error_description: 'AADSTS7000222: The provided client secret keys are expired.',
      },
    });
    const refusal = tokenSource(credentials, USER).token();
    await expect(refusal).rejects.toThrow(SignInRefused);
    await expect(refusal).rejects.toThrow(
      /refused entra credentials for support@example.com: 401 invalid_client: AADSTS7000222/,
    );
    answer = () => ({ status: 503, body: {} });
    const outage = tokenSource(credentials, USER).token();
    await expect(outage).rejects.toThrow('answered 503');
    await expect(outage).rejects.not.toThrow(SignInRefused);
  });
});

describe('settings', () => {
  it('auth= in the mailbox URL, password by default', () => {
    const base = 'imaps://support%40example.com@outlook.office365.com/INBOX';
    expect(parseImapUrl(base).auth).toBe('password');
    expect(parseImapUrl(`${base}?auth=entra`).auth).toBe('entra');
    expect(() => parseImapUrl(`${base}?auth=oauth`)).toThrow(/auth= must be one of password, entra/);
  });

  it.each([
    ['entra', '{"tenant":"t","client_id":"a"}', /either "client_secret" or both "certificate" and "private_key"/],
    ['entra', '{"tenant":"t/../x","client_id":"a","client_secret":"s"}', /tenant must be/],
    [
      'entra',
      '{"tenant":"t","client_id":"a","client_secret":"s","token_url":"http://login.example.com/t"}',
      /https:\/\//,
    ],
    ['google-service-account', '{"client_email":"x@y"}', /need "private_key"/],
    ['google-refresh-token', 'not json', /must be JSON/],
  ] as const)('refuses %s credentials %s', (auth, text, message) => {
    expect(() => parseOAuthCredentials(auth, text)).toThrow(message);
  });
});
