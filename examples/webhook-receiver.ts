/**
 * A webhook receiver in a few lines: verifies each delivery's signature with the `standardwebhooks`
 * package, then prints the event. Run it with the subscription's secret:
 *
 *   WEBHOOK_SECRET=whsec_... npx tsx examples/webhook-receiver.ts      (listens on 127.0.0.1:4000, or PORT)
 *
 * typed-client/receiver.ts is the same receiver typed from the OpenAPI document's `webhooks`.
 */
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

const webhook = new Webhook(process.env.WEBHOOK_SECRET ?? '');

const server = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
  req.on('end', () => {
    try {
      // Throws unless a `v1,` signature matches and the timestamp is within 5 minutes.
      const event = webhook.verify(body, req.headers as Record<string, string>) as { type: string; data: unknown };
      console.log('verified', event.type, req.headers['webhook-id'], JSON.stringify(event.data));
      res.writeHead(204).end(); // any 2xx: delivered (deduplicate by webhook-id: delivery is at least once)
    } catch (error) {
      console.log('refused', (error as Error).message);
      res.writeHead(400).end();
    }
  });
});
server.listen(Number(process.env.PORT ?? 4000), '127.0.0.1', () =>
  console.log(`listening on http://127.0.0.1:${(server.address() as { port: number }).port}`),
);
