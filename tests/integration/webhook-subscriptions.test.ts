/**
 * Webhook subscriptions end to end (issue 15): a runtime of this file's own, with one environment
 * receiver configured, and a real HTTP receiver on loopback. Subscriptions are made over HTTP;
 * change events are written into the runtime's table as the change feed's items are (`type`
 * `change-event`), and reach the subscriptions through the table's stream, as on AWS; and changes
 * made over the API become such events through the stream consumer (consumer/change-feed.ts). Signatures
 * are checked with the `standardwebhooks` package, as a receiver would.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor, unique, type Json } from './client';
import { onSharedEngines } from './shared-engines';
import { spawnApiRuntime, type SpawnedRuntime } from './spawn-runtime';
import { startReceiver, type Receiver, type Received } from './webhook-receiver';
import type { ChangeEvent, EventType } from '../../shared/domain/events';

const ENV_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

let receiver: Receiver;
let runtime: SpawnedRuntime;
let api: ReturnType<typeof clientFor>;
let table: { client: DynamoDBDocumentClient; name: string };

beforeAll(async () => {
  receiver = await startReceiver((r) => (r.path.startsWith('/failing') ? 503 : 200));
  const engines = onSharedEngines();
  runtime = await spawnApiRuntime({
    ...engines,
    HELPDESK_NEW_TICKET_WEBHOOK_URLS: `${receiver.url}/env-new?token=abc`,
    HELPDESK_WEBHOOK_SECRET: ENV_SECRET,
    HELPDESK_WEBHOOK_TIMEOUT: '1',
    HELPDESK_WEBHOOK_RETRY_DELAYS: '0.3,0.3',
  });
  api = clientFor(runtime.url);
  const dynamo = new DynamoDBClient({
    endpoint: engines.AWS_ENDPOINT_URL_DYNAMODB,
    region: engines.AWS_REGION,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  table = { client: DynamoDBDocumentClient.from(dynamo), name: engines.TABLE_NAME! };
});

afterAll(async () => {
  await runtime?.stop();
  await receiver?.stop();
  table?.client.destroy();
});

async function subscribe(path: string, events: EventType[], extra: Record<string, unknown> = {}): Promise<Json> {
  const reply = await api.call('POST', '/api/webhooks/', { json: { url: `${receiver.url}${path}`, events, ...extra } });
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

let sequence = 0;
/** Writes a change event as the change feed does (one item, `type: change-event`); returns it. */
async function writeChangeEvent(event: EventType, fields: Partial<ChangeEvent> = {}): Promise<ChangeEvent> {
  sequence += 1;
  const change: ChangeEvent = {
    id: `evt_${Date.now().toString(36).padStart(10, '0')}${String(sequence).padStart(16, '0')}`,
    event,
    created: new Date().toISOString(),
    ticket: 7,
    followup: null,
    attachment: null,
    actor: null,
    source: 'unknown',
    changes: null,
    data: { id: 7, title: 'Printer on fire' },
    ...fields,
  };
  // The key is the change feed's business (its own partition); the dispatcher reads `type` only.
  await table.client.send(
    new PutCommand({
      TableName: table.name,
      Item: { PK: 'TEST_EVENTS', SK: change.id, type: 'change-event', ...change },
    }),
  );
  return change;
}

const at = (path: string) => (r: Received) => r.path === path;

function verifyWith(secret: string, r: Received): unknown {
  return new Webhook(secret).verify(r.body, {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  });
}

describe('managing subscriptions', () => {
  it('a created subscription shows its secret once, and never again', async () => {
    const created = await subscribe('/crm', ['ticket.updated', 'ticket.created'], { description: 'CRM sync' });
    expect(created).toMatchObject({
      url: `${receiver.url}/crm`,
      events: ['ticket.created', 'ticket.updated'],
      description: 'CRM sync',
      enabled: true,
      read_only: false,
    });
    expect(created.id).toMatch(/^sub_[0-9a-z]{26}$/);
    expect(created.secret).toMatch(/^whsec_/);
    const shown = await api.call('GET', `/api/webhooks/${created.id}/`);
    expect(shown.status).toBe(200);
    expect(shown.body).not.toHaveProperty('secret');
    const listed = (await api.call('GET', '/api/webhooks/?page_size=100')).body;
    expect(JSON.stringify(listed)).not.toContain(created.secret);
    expect(listed.results.map((s: Json) => s.id)).toContain(created.id);
  });

  it('bad input is a 400 saying what is wrong, and nothing is created', async () => {
    const before = (await api.call('GET', '/api/webhooks/?page_size=100')).body.count as number;
    const cases: [unknown, string][] = [
      [{ url: 'http://169.254.169.254/latest', events: ['ticket.created'] }, 'url'],
      [{ url: 'ftp://hooks.example.com/', events: ['ticket.created'] }, 'url'],
      [{ url: 'https://hooks.example.com/', events: [] }, 'events'],
      [{ url: 'https://hooks.example.com/', events: ['ticket.exploded'] }, 'events'],
      [{ url: 'https://hooks.example.com/', events: 'ticket.created' }, 'events'],
      [{ events: ['ticket.created'] }, 'url'],
    ];
    for (const [body, field] of cases) {
      const reply = await api.call('POST', '/api/webhooks/', { json: body });
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(reply.body)).toEqual([field]);
    }
    expect(
      (await api.call('POST', '/api/webhooks/', { json: { url: 'http://10.0.0.8/', events: ['ticket.created'] } })).body
        .url[0],
    ).toMatch(/private/);
    expect((await api.call('GET', '/api/webhooks/?page_size=100')).body.count).toBe(before);
  });

  it('only superusers may see or manage subscriptions', async () => {
    const user = await api.createUser();
    expect((await api.call('GET', '/api/webhooks/', { auth: user.auth })).status).toBe(403);
    expect(
      (
        await api.call('POST', '/api/webhooks/', {
          auth: user.auth,
          json: { url: `${receiver.url}/x`, events: ['ticket.created'] },
        })
      ).status,
    ).toBe(403);
  });

  it(
    "the environment's receivers are listed read-only, without their query strings; " + 'changing them is a 409',
    async () => {
      const listed = (await api.call('GET', '/api/webhooks/?page_size=100')).body;
      const fromEnvironment = listed.results.filter((s: Json) => s.read_only);
      expect(fromEnvironment).toEqual([
        expect.objectContaining({
          id: 'env_new_ticket_0',
          url: `${receiver.url}/env-new?…`,
          events: ['ticket.created'],
          source: 'HELPDESK_NEW_TICKET_WEBHOOK_URLS',
          enabled: true,
        }),
      ]);
      expect((await api.call('GET', '/api/webhooks/env_new_ticket_0/')).body).toEqual(fromEnvironment[0]);
      for (const [method, path, json] of [
        ['PATCH', '/api/webhooks/env_new_ticket_0/', { enabled: false }],
        ['DELETE', '/api/webhooks/env_new_ticket_0/', undefined],
        ['POST', '/api/webhooks/env_new_ticket_0/rotate-secret', {}],
      ] as const) {
        const reply = await api.call(method, path, json === undefined ? {} : { json });
        expect(reply.status, `${method} ${path}`).toBe(409);
        expect(reply.body.detail).toMatch(/environment.*read-only/);
      }
      // ...and they keep working as before: a new ticket still reaches it, signed with the deployment's secret.
      const ticket = (await api.createTicket({ title: unique('env') })).body;
      const [r] = await receiver.waitFor(
        1,
        (x) => x.path.startsWith('/env-new') && JSON.parse(x.body).ticket?.id === ticket.id,
      );
      expect(verifyWith(ENV_SECRET, r!)).toMatchObject({ ticket: { id: ticket.id } });
    },
  );

  it('unknown ids are 404; a deleted subscription is gone', async () => {
    const created = await subscribe('/to-delete', ['ticket.deleted']);
    expect((await api.call('DELETE', `/api/webhooks/${created.id}/`)).status).toBe(204);
    expect((await api.call('GET', `/api/webhooks/${created.id}/`)).status).toBe(404);
    expect((await api.call('DELETE', `/api/webhooks/${created.id}/`)).status).toBe(404);
    expect((await api.call('PATCH', '/api/webhooks/sub_nope/', { json: { enabled: false } })).status).toBe(404);
  });
});

describe('deliveries', () => {
  it('a subscription receives the events it listens to, signed with its own secret, and the log names it', async () => {
    const sub = await subscribe('/updates', ['ticket.updated']);
    const other = await subscribe('/deletes', ['ticket.deleted']);
    const event = await writeChangeEvent('ticket.updated', {
      changes: { title: { old: 'Printer', new: 'Printer on fire' } },
      actor: { id: 3, username: 'agent' },
      source: 'api',
    });
    const [r] = await receiver.waitFor(1, at('/updates'));
    expect(verifyWith(sub.secret, r!)).toEqual({
      type: 'ticket.updated',
      timestamp: event.created,
      data: {
        id: event.id,
        event: 'ticket.updated',
        created: event.created,
        ticket: 7,
        followup: null,
        attachment: null,
        actor: { id: 3, username: 'agent' },
        source: 'api',
        changes: event.changes,
        data: event.data,
      },
    });
    expect(() => verifyWith(other.secret, r!)).toThrow();
    expect(() => verifyWith(ENV_SECRET, r!)).toThrow();
    expect(r!.headers['webhook-id']).toMatch(/^msg_[0-9a-z]{26}$/);
    // Recorded in the delivery log, delivered, with its subscription.
    await expect
      .poll(async () => (await api.call('GET', `/api/webhook-deliveries/${String(r!.headers['webhook-id'])}/`)).body, {
        timeout: 10_000,
      })
      .toMatchObject({ event: 'ticket.updated', subscription: sub.id, status: 'delivered', attempts: 1 });
    expect(receiver.received.filter(at('/deletes'))).toEqual([]);
  });

  it(
    "the delivery log shows a receiver's scheme, host and shortened path, not the secret a chat receiver keeps " +
      'in it (issue 25)',
    async () => {
      const sub = await subscribe('/services/T0001/B0001/chatsecret0123456789', ['attachment.deleted']);
      await writeChangeEvent('attachment.deleted', { attachment: 5 });
      const [r] = await receiver.waitFor(1, at('/services/T0001/B0001/chatsecret0123456789'));
      await expect
        .poll(
          async () => (await api.call('GET', `/api/webhook-deliveries/${String(r!.headers['webhook-id'])}/`)).body,
          {
            timeout: 10_000,
          },
        )
        .toMatchObject({ subscription: sub.id, url: `${receiver.url}/services/…` });
      const log = (await api.call('GET', '/api/webhook-deliveries/?page_size=100')).body;
      expect(JSON.stringify(log)).not.toContain('chatsecret');
    },
  );

  it('a disabled subscription receives nothing; enabled again, it does', async () => {
    const off = await subscribe('/off', ['followup.deleted']);
    await subscribe('/on', ['followup.deleted']);
    const disabled = await api.call('PATCH', `/api/webhooks/${off.id}/`, { json: { enabled: false } });
    expect(disabled.body).toMatchObject({ enabled: false, disabled_reason: null });
    await writeChangeEvent('followup.deleted', { followup: 3 });
    // The event's deliveries are recorded in one dispatch: once one arrived, there is no other.
    await receiver.waitFor(1, at('/on'));
    const log = (await api.call('GET', '/api/webhook-deliveries/?page_size=100')).body;
    expect(log.results.filter((d: Json) => d.subscription === off.id)).toEqual([]);
    expect((await api.call('PATCH', `/api/webhooks/${off.id}/`, { json: { enabled: true } })).body.enabled).toBe(true);
    await writeChangeEvent('followup.deleted', { followup: 4 });
    await receiver.waitFor(1, at('/off'));
    await receiver.waitFor(2, at('/on'));
  });

  it("a payload leaves out what only staff see: private followups' content and staff-only custom fields", async () => {
    const sub = await subscribe('/private', ['followup.created', 'ticket.updated']);
    const field = `internal_${unique('f')
      .replace(/[^a-z0-9]/gi, '')
      .slice(-8)}`;
    expect(
      (
        await api.call('POST', '/api/custom-fields/', {
          json: { name: field, label: 'Internal', data_type: 'varchar', max_length: 50, staff_only: true },
        })
      ).status,
    ).toBe(201);
    await writeChangeEvent('followup.created', {
      followup: 9,
      data: { id: 9, ticket: 7, public: false, comment: 'the safe code is 1234', title: 'Internal' },
    });
    await writeChangeEvent('ticket.updated', {
      changes: { [`custom_${field}`]: { old: null, new: 'vip' }, priority: { old: 3, new: 1 } },
      data: {
        id: 7,
        priority: 1,
        [`custom_${field}`]: 'vip',
        followup_set: [
          { id: 1, public: true },
          { id: 9, public: false, comment: 'the safe code is 1234' },
        ],
      },
    });
    const [followup, ticket] = await receiver.waitFor(2, at('/private'));
    const payloads = [verifyWith(sub.secret, followup!), verifyWith(sub.secret, ticket!)] as Json[];
    const byType = Object.fromEntries(payloads.map((p) => [p.type, p.data]));
    expect(byType['followup.created'].data).toEqual({ id: 9, ticket: 7, public: false });
    expect(byType['ticket.updated'].changes).toEqual({ priority: { old: 3, new: 1 } });
    expect(byType['ticket.updated'].data).toEqual({ id: 7, priority: 1, followup_set: [{ id: 1, public: true }] });
    expect(JSON.stringify(payloads)).not.toMatch(/1234|vip/);
  });
});

describe('changes made over the API', () => {
  it(
    'a subscription receives a signed ticket.updated for a PATCH, with the changed fields and the same event the ' +
      'feed lists',
    async () => {
      const sub = await subscribe('/patched', ['ticket.updated', 'ticket.status_changed']);
      const ticket = (await api.createTicket({ title: 'Printer', priority: 3 })).body;
      expect(
        (await api.call('PATCH', `/api/tickets/${ticket.id}/`, { json: { title: 'Printer on fire', priority: 1 } }))
          .status,
      ).toBe(200);
      const [r] = await receiver.waitFor(1, (x) => x.path === '/patched');
      const payload = verifyWith(sub.secret, r!) as Json;
      expect(payload).toMatchObject({
        type: 'ticket.updated',
        data: {
          event: 'ticket.updated',
          ticket: ticket.id,
          followup: null,
          changes: { title: { old: 'Printer', new: 'Printer on fire' }, priority: { old: 3, new: 1 } },
        },
      });
      expect(payload.data.data).toMatchObject({ id: ticket.id, title: 'Printer on fire', priority: 1 });
      expect(payload.data.id).toMatch(/^evt_/);
      expect(payload.timestamp).toBe(payload.data.created);
      // No status change, no ticket.status_changed: one delivery only.
      expect(receiver.received.filter(at('/patched'))).toHaveLength(1);
      // The feed lists the same event (its horizon passes a few seconds after the change), staff-only
      // custom fields included: the payload policy leaves them out of deliveries.
      await expect
        .poll(
          async () =>
            ((await api.call('GET', '/api/events/?limit=1000')).body.results as Json[]).find(
              (e) => e.id === payload.data.id,
            ),
          { timeout: 15_000, interval: 250 },
        )
        .toMatchObject(payload.data);
    },
  );
});

describe('private text and the resolution (issue 25)', () => {
  it("a private followup's comment as the resolution reaches no subscriber; the feed shows it to staff", async () => {
    const sub = await subscribe('/resolution', ['ticket.updated', 'ticket.status_changed']);
    const ticket = (await api.createTicket({ title: unique('private-resolution'), priority: 3 })).body;
    const note = unique('the-safe-code-is');
    expect(
      (
        await api.call('POST', '/api/followups/', {
          json: { ticket: ticket.id, title: 'Internal', comment: note, new_status: 3, public: false },
        })
      ).status,
    ).toBe(201);
    const [updated, statusChanged] = await receiver.waitFor(
      2,
      (x) => x.path === '/resolution' && JSON.parse(x.body).data.ticket === ticket.id,
    );
    const payloads = [verifyWith(sub.secret, updated!), verifyWith(sub.secret, statusChanged!)] as Json[];
    const byType = Object.fromEntries(payloads.map((p) => [p.type, p.data]));
    expect(byType['ticket.updated'].changes).toEqual({ status: { old: 1, new: 3 } });
    expect(byType['ticket.updated'].data).toMatchObject({ status: 3, resolution: null });
    expect(byType['ticket.status_changed'].data).toMatchObject({ status: 3, resolution: null });
    expect(JSON.stringify(payloads)).not.toContain(note);
    // Another private followup on the resolved ticket changes nothing a subscriber may see: nothing is sent.
    const second = await api.call('POST', '/api/followups/', {
      json: { ticket: ticket.id, title: 'Note', comment: unique('internal-again') },
    });
    expect(second.status).toBe(201);
    // The feed (staff) lists both changes with the text, as GET shows staff, and without the policy's marks.
    const feed = async () =>
      ((await api.call('GET', '/api/events/?limit=1000')).body.results as Json[]).filter(
        (e) => e.ticket === ticket.id && e.event === 'ticket.updated',
      );
    await expect.poll(async () => (await feed()).length, { timeout: 15_000, interval: 250 }).toBe(2);
    const listed = await feed();
    expect(listed[0]!.changes.resolution).toEqual({ old: null, new: note });
    for (const e of listed) expect(e).not.toHaveProperty('private_fields');
    // A visible change after it, in the stream behind it, is sent; the hidden one before it was not.
    expect((await api.call('PATCH', `/api/tickets/${ticket.id}/`, { json: { priority: 1 } })).status).toBe(200);
    const ofTicket = (x: Received) => x.path === '/resolution' && JSON.parse(x.body).data.ticket === ticket.id;
    const all = await receiver.waitFor(3, ofTicket);
    const changes = all.map((x) => JSON.stringify((verifyWith(sub.secret, x) as Json).data.changes)).sort();
    expect(changes).toEqual(
      [{ priority: { old: 3, new: 1 } }, { status: { old: 1, new: 3 } }, { status: { old: 1, new: 3 } }].map((c) =>
        JSON.stringify(c),
      ),
    );
    expect(receiver.received.filter(ofTicket)).toHaveLength(3);
  });

  it('a PATCH of a staff-only field alone sends subscribers nothing (issue 25)', async () => {
    const sub = await subscribe('/staff-only-patch', ['ticket.updated']);
    const field = `internal_${unique('p')
      .replace(/[^a-z0-9]/gi, '')
      .slice(-8)}`;
    expect(
      (
        await api.call('POST', '/api/custom-fields/', {
          json: { name: field, label: 'Internal', data_type: 'varchar', max_length: 50, staff_only: true },
        })
      ).status,
    ).toBe(201);
    const ticket = (await api.createTicket({ title: unique('staff-only'), priority: 3 })).body;
    expect(
      (await api.call('PATCH', `/api/tickets/${ticket.id}/`, { json: { [`custom_${field}`]: 'vip' } })).status,
    ).toBe(200);
    expect((await api.call('PATCH', `/api/tickets/${ticket.id}/`, { json: { priority: 1 } })).status).toBe(200);
    // The second change is sent; the first, in the stream before it, was not.
    const [r] = await receiver.waitFor(
      1,
      (x) => x.path === '/staff-only-patch' && JSON.parse(x.body).data.ticket === ticket.id,
    );
    expect((verifyWith(sub.secret, r!) as Json).data.changes).toEqual({ priority: { old: 3, new: 1 } });
    expect(
      receiver.received.filter((x) => x.path === '/staff-only-patch' && JSON.parse(x.body).data.ticket === ticket.id),
    ).toHaveLength(1);
  });
});

describe('ping', () => {
  it("reports the receiver's answer: a 2xx, a failure status, no answer", async () => {
    const ok = await subscribe('/ping-ok', ['ticket.created']);
    const pinged = await api.call('POST', `/api/webhooks/${ok.id}/ping`);
    expect(pinged.status).toBe(200);
    expect(pinged.body).toEqual({ id: expect.stringMatching(/^msg_/), delivered: true, status: 200, error: null });
    const [r] = await receiver.waitFor(1, at('/ping-ok'));
    expect(verifyWith(ok.secret, r!)).toEqual({
      type: 'webhook.ping',
      timestamp: expect.any(String),
      data: { subscription: ok.id },
    });
    expect(r!.headers['webhook-id']).toBe(pinged.body.id);

    const failing = await subscribe('/failing', ['ticket.created']);
    expect((await api.call('POST', `/api/webhooks/${failing.id}/ping`)).body).toMatchObject({
      delivered: false,
      status: 503,
      error: null,
    });

    const closedPort = await new Promise<number>((done) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => done(port));
      });
    });
    const nobody = (
      await api.call('POST', '/api/webhooks/', {
        json: { url: `http://127.0.0.1:${closedPort}/`, events: ['ticket.created'] },
      })
    ).body;
    // In words, not the socket's text (issue 25): no code, no address.
    expect((await api.call('POST', `/api/webhooks/${nobody.id}/ping`)).body).toMatchObject({
      delivered: false,
      status: null,
      error: 'connection refused',
    });
  });

  it('says a TLS failure in words (issue 25)', async () => {
    // https to the plain-HTTP receiver: the handshake fails.
    const tls = (
      await api.call('POST', '/api/webhooks/', {
        json: { url: `${receiver.url.replace('http:', 'https:')}/tls`, events: ['ticket.created'] },
      })
    ).body;
    const answer = (await api.call('POST', `/api/webhooks/${tls.id}/ping`)).body;
    expect(answer).toMatchObject({ delivered: false, status: null, error: expect.stringMatching(/^TLS failed/) });
    expect(answer.error).not.toMatch(/EPROTO|SSL|routines|127\.0\.0\.1/i);
  });

  it(
    'a stored URL the rules now refuse is not sent to: an IP literal is checked ' + 'again at send time (issue 25)',
    async () => {
      const sub = await subscribe('/moved', ['ticket.created']);
      // As a URL stored before a rule existed, or written around the API: a private address literal.
      await table.client.send(
        new UpdateCommand({
          TableName: table.name,
          Key: { PK: 'WEBHOOK_SUBSCRIPTIONS', SK: `SUBSCRIPTION#${sub.id}` },
          UpdateExpression: 'SET #url = :url',
          ExpressionAttributeNames: { '#url': 'url' },
          ExpressionAttributeValues: { ':url': 'http://10.0.0.8:9001/in' },
        }),
      );
      expect((await api.call('POST', `/api/webhooks/${sub.id}/ping`)).body).toMatchObject({
        delivered: false,
        status: null,
        error: 'not sent: a private or reserved address',
      });
    },
  );
});

describe('rotating the secret', () => {
  it('signs with both secrets during the grace period, and with the new one only after it', async () => {
    const sub = await subscribe('/rotating', ['ticket.created']);
    const rotated = await api.call('POST', `/api/webhooks/${sub.id}/rotate-secret`, { json: { keep_previous_for: 2 } });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(sub.secret);
    expect(rotated.body.previous_secret_expires).toEqual(expect.any(String));
    expect((await api.call('GET', `/api/webhooks/${sub.id}/`)).body).not.toHaveProperty('secret');

    const during = await api.call('POST', `/api/webhooks/${sub.id}/ping`);
    const [r] = await receiver.waitFor(1, (x) => x.headers['webhook-id'] === during.body.id);
    expect(String(r!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifyWith(sub.secret, r!)).toMatchObject({ type: 'webhook.ping' });
    expect(verifyWith(rotated.body.secret, r!)).toMatchObject({ type: 'webhook.ping' });

    // Once the grace period is over, only the new secret signs.
    let after: Received | undefined;
    await expect
      .poll(
        async () => {
          const ping = await api.call('POST', `/api/webhooks/${sub.id}/ping`);
          [after] = await receiver.waitFor(1, (x) => x.headers['webhook-id'] === ping.body.id);
          return String(after!.headers['webhook-signature']).split(' ').length;
        },
        { timeout: 10_000, interval: 500 },
      )
      .toBe(1);
    expect(verifyWith(rotated.body.secret, after!)).toMatchObject({ type: 'webhook.ping' });
    expect(() => verifyWith(sub.secret, after!)).toThrow();
  });

  it('rotation refuses a grace period out of range', async () => {
    const sub = await subscribe('/rotating-bad', ['ticket.created']);
    const reply = await api.call('POST', `/api/webhooks/${sub.id}/rotate-secret`, {
      json: { keep_previous_for: 8 * 24 * 3600 },
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ keep_previous_for: [expect.stringMatching(/less than or equal to 604800/)] });
  });
});

describe('the example receiver (examples/webhook-receiver.ts, as the README tour runs it)', () => {
  it("verifies a subscription's ping with its secret and refuses another's", async () => {
    const sub = (
      await api.call('POST', '/api/webhooks/', { json: { url: 'http://127.0.0.1:9/', events: ['ticket.created'] } })
    ).body;
    const child = spawn(process.execPath, ['--import', 'tsx', 'examples/webhook-receiver.ts'], {
      cwd: resolve(import.meta.dirname, '../..'),
      env: { ...process.env, WEBHOOK_SECRET: sub.secret, PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      await expect.poll(() => /listening on (http:\S+)/.exec(output)?.[1], { timeout: 20_000 }).toBeDefined();
      const url = /listening on (http:\S+)/.exec(output)![1]!;
      expect((await api.call('PATCH', `/api/webhooks/${sub.id}/`, { json: { url } })).status).toBe(200);
      expect((await api.call('POST', `/api/webhooks/${sub.id}/ping`)).body).toMatchObject({
        delivered: true,
        status: 204,
      });
      expect(output).toMatch(new RegExp(`verified webhook.ping msg_\\S+ \\{"subscription":"${sub.id}"\\}`));

      const other = (await api.call('POST', '/api/webhooks/', { json: { url, events: ['ticket.created'] } })).body;
      expect((await api.call('POST', `/api/webhooks/${other.id}/ping`)).body).toMatchObject({
        delivered: false,
        status: 400,
      });
    } finally {
      child.kill('SIGTERM');
    }
  });
});

describe('the limit of 100 subscriptions (issue 25)', () => {
  it('holds under concurrent creates, and a delete makes room again', { timeout: 120_000 }, async () => {
    // The environment's receivers are listed first, and are not subscriptions.
    const count = async () => {
      const page = (await api.call('GET', '/api/webhooks/?page_size=100')).body;
      return (page.count as number) - (page.results as Json[]).filter((s) => s.read_only).length;
    };
    // Disabled fillers: they count, and receive nothing from the other tests' changes.
    const filler = (i: number) => ({
      json: { url: `${receiver.url}/filler-${i}`, events: ['ticket.created'], enabled: false },
    });
    const made: string[] = [];
    for (let start = await count(); start < 98; start += 10) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(10, 98 - start) }, (_, i) =>
          api.call('POST', '/api/webhooks/', filler(start + i)),
        ),
      );
      for (const reply of batch) {
        expect(reply.status, reply.text).toBe(201);
        made.push(reply.body.id);
      }
    }
    expect(await count()).toBe(98);
    const burst = await Promise.all(
      Array.from({ length: 12 }, (_, i) => api.call('POST', '/api/webhooks/', filler(1000 + i))),
    );
    const created = burst.filter((r) => r.status === 201);
    made.push(...created.map((r) => r.body.id as string));
    expect(created).toHaveLength(2);
    for (const refused of burst.filter((r) => r.status !== 201)) {
      expect(refused.status, refused.text).toBe(400);
      expect(refused.body).toEqual({ non_field_errors: [expect.stringMatching(/100 subscriptions already/)] });
    }
    expect(await count()).toBe(100);
    // Without its count (subscriptions made before it was kept, or an operator deleting it), the
    // count is rebuilt from a listing: still full.
    await table.client.send(
      new DeleteCommand({ TableName: table.name, Key: { PK: 'WEBHOOK_SUBSCRIPTIONS', SK: 'COUNT' } }),
    );
    expect((await api.call('POST', '/api/webhooks/', filler(1999))).status).toBe(400);
    expect((await api.call('DELETE', `/api/webhooks/${made.pop()}/`)).status).toBe(204);
    expect((await api.call('POST', '/api/webhooks/', filler(2000))).status).toBe(201);
    expect((await api.call('POST', '/api/webhooks/', filler(2001))).status).toBe(400);
    await Promise.all(made.map((id) => api.call('DELETE', `/api/webhooks/${id}/`)));
  });
});
