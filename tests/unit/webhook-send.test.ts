/**
 * One webhook POST (shared/webhooks/send.ts) against a real server on loopback: the receiver rules
 * hold at send time for every URL, IP literals included (issue 25), and failures are told in words.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postWebhook } from '../../shared/webhooks/send';

let server: Server;
let url: string;
let hits = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    hits += 1;
    req.resume();
    res.end('ok');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}/in`;
});

afterAll(() => new Promise<void>((done) => server.close(() => done())));

const send = (to: string, allowLoopback: boolean) => postWebhook(to, {}, '{}', { timeoutMs: 2000, allowLoopback });

describe('at send time', () => {
  it(
    'a loopback IP literal is sent to in the local runtime only (no lookup checks a literal: the URL is checked ' +
      'again)',
    async () => {
      expect(await send(url, true)).toEqual({ status: 200 });
      const before = hits;
      expect(await send(url, false)).toEqual({
        error: 'not sent: a loopback address (allowed only in the local runtime)',
      });
      expect(await send(url.replace('127.0.0.1', '[::ffff:0:7f00:1]'), false)).toEqual({
        error: 'not sent: a loopback address (allowed only in the local runtime)',
      });
      expect(hits).toBe(before);
    },
  );

  it(
    'private, metadata and translated addresses, and http outside the local ' + 'runtime, are never connected to',
    async () => {
      for (const [to, reason] of [
        ['http://10.0.0.8:9001/in', 'a private or reserved address'],
        ['http://169.254.169.254/latest/meta-data/', 'a link-local or cloud metadata address'],
        ['http://[64:ff9b:1::a9fe:a9fe]/', 'a private or reserved address'],
        ['http://[::ffff:0:a9fe:a9fe]/', 'a link-local or cloud metadata address'],
      ] as const) {
        expect(await send(to, true)).toEqual({ error: `not sent: ${reason}` });
      }
      expect(await send('http://hooks.example.com/in', false)).toEqual({
        error: 'not sent: only https URLs are allowed outside the local runtime',
      });
    },
  );

  it('a refused connection is said in words, its code kept for the logs only', async () => {
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((done) => closed.close(() => done()));
    const outcome = await send(`http://127.0.0.1:${port}/`, true);
    expect(outcome.error).toBe('connection refused');
    expect(outcome.detail).toMatch(/^ECONNREFUSED/);
  });
});
