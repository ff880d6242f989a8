/** A real HTTP receiver on loopback for the webhook tests: records every POST, answers as told. */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** How to answer a request, the n-th (from 1) with its webhook-id: a status code, or 'hang'. */
export type Behaviour = (request: Received, n: number) => number | 'hang';

export interface Receiver {
  url: string;
  received: Received[];
  behaviour: Behaviour;
  /** Resolves once `count` requests match `which`, or fails after `ms`. */
  waitFor(count: number, which: (r: Received) => boolean, ms?: number): Promise<Received[]>;
  /** The requests answered 'hang' that are still open: neither released nor given up by the sender. */
  held(which: (r: Received) => boolean): Received[];
  /** Answers every request still held with `status`. */
  release(status?: number): void;
  stop(): Promise<void>;
}

export async function startReceiver(behaviour: Behaviour = () => 200): Promise<Receiver> {
  const received: Received[] = [];
  const hanging = new Map<ServerResponse, Received>();
  const counts = new Map<string, number>();
  const receiver: Receiver = {
    url: '',
    received,
    behaviour,
    async waitFor(count, which, ms = 20_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const seen = received.filter(which);
        if (seen.length >= count) return seen;
        if (Date.now() > deadline)
          throw new Error(`receiver got ${seen.length} of ${count} expected requests in ${ms} ms`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    held: (which) => [...hanging.values()].filter(which),
    release(status = 200) {
      for (const res of hanging.keys()) res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
      hanging.clear();
    },
    stop: () =>
      new Promise<void>((done) => {
        hanging.forEach((_, res) => res.destroy());
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = {
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      const id = String(req.headers['webhook-id'] ?? request.path);
      const n = (counts.get(id) ?? 0) + 1;
      counts.set(id, n);
      received.push(request);
      const answer = receiver.behaviour(request, n);
      if (answer === 'hang') {
        hanging.set(res, request);
        res.on('close', () => hanging.delete(res));
        return;
      }
      res.writeHead(answer, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  receiver.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return receiver;
}
