/**
 * A typed webhook receiver: verifies each delivery's signature (`standardwebhooks`), checks the body
 * against the payload schemas of the API's OpenAPI document (its `webhooks` section, saved by the
 * generation step as generated/openapi.json), and hands on a value of the generated types: a change
 * event (`WebhookEventPayload`, `type` one of the event types) or a ping (`WebhookPingPayload`).
 *
 * The client program (client.ts) starts one to subscribe and ping; alone it prints what it gets:
 *
 *   WEBHOOK_SECRET=whsec_... npx tsx examples/typed-client/receiver.ts    (127.0.0.1:4000, or PORT)
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Webhook } from 'standardwebhooks';
import type { components } from './generated/schema';

export type ChangeEventPayload = components['schemas']['WebhookEventPayload'];
export type PingPayload = components['schemas']['WebhookPingPayload'];
/** What a subscription's receiver is posted: `type` tells which. */
export type WebhookPayload = ChangeEventPayload | PingPayload;

/** The document the types were generated from: its schemas check each body at run time. */
const DOCUMENT = new URL('./generated/openapi.json', import.meta.url);

function payloadValidator() {
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  ajv.addSchema({ $id: 'openapi.json', ...JSON.parse(readFileSync(DOCUMENT, 'utf8')) }, undefined, undefined, false);
  // The generated type and the schema it was generated from, checked together.
  return ajv.compile<WebhookPayload>({
    anyOf: [
      { $ref: 'openapi.json#/components/schemas/WebhookEventPayload' },
      { $ref: 'openapi.json#/components/schemas/WebhookPingPayload' },
    ],
  });
}

export interface Receiver {
  url: string;
  /** Sets the subscription's signing secret (known once subscribed); until then every delivery is refused. */
  trust(secret: string): void;
  close(): Promise<void>;
}

const headerRecord = (headers: IncomingHttpHeaders): Record<string, string> =>
  Object.fromEntries(
    Object.entries(headers).flatMap(([name, value]) => (typeof value === 'string' ? [[name, value]] : [])),
  );

/**
 * Listens on 127.0.0.1 (a free port unless given); `onPayload` gets each verified, checked payload and its
 * `webhook-id`.
 */
export async function startReceiver(
  onPayload: (payload: WebhookPayload, webhookId: string) => void,
  port = 0,
): Promise<Receiver> {
  const isPayload = payloadValidator();
  let webhook: Webhook | undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers = headerRecord(req.headers);
      let verified: unknown;
      try {
        // Throws unless a `v1,` signature matches and the timestamp is within 5 minutes.
        verified = webhook?.verify(Buffer.concat(chunks).toString('utf8'), headers);
      } catch {
        verified = undefined;
      }
      if (!isPayload(verified)) {
        res.writeHead(400).end();
        return;
      }
      onPayload(verified, headers['webhook-id'] ?? '');
      res.writeHead(204).end(); // any 2xx: delivered
    });
  });
  await new Promise<void>((listening) => server.listen(port, '127.0.0.1', listening));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}/webhooks`,
    trust: (secret) => (webhook = new Webhook(secret)),
    close: () => new Promise<void>((closed) => server.close(() => closed())),
  };
}

/** Describes a payload: the event types and the ping narrow on `type`. */
export function describePayload(payload: WebhookPayload): string {
  if (payload.type === 'webhook.ping')
    return `ping for subscription ${payload.data.subscription} at ${payload.timestamp}`;
  const event = payload.data;
  const followup = event.followup === null ? '' : `, followup ${event.followup}`;
  const changed = event.changes ? `, changed ${Object.keys(event.changes).join(', ')}` : '';
  return `${payload.type} ${event.id}: ticket ${event.ticket}${followup}${changed}`;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const receiver = await startReceiver(
    (payload, id) => console.log(id, describePayload(payload)),
    Number(process.env.PORT ?? 4000),
  );
  receiver.trust(process.env.WEBHOOK_SECRET ?? '');
  console.log(`listening on ${receiver.url}`);
}
