/**
 * The change feed end to end (issue 15): changes made over HTTP become events through the table's
 * stream, and `GET /api/events/` lists them after a cursor, in order, across pages. This file runs its
 * own runtime in-process with the stream poller off (HELPDESK_STREAM_POLL_MS=0): each test drains the
 * stream itself. The settle horizon is 0, so an event is readable as soon as it is written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryCommand, type DynamoDB } from '../../shared/aws/dynamodb';
import { clientFor, multipart, type Json } from './client';
import { startInProcessRuntime } from './in-process-runtime';

let runtime: { url: string; stop(): Promise<void>; drainTableStream(): Promise<void> };
let api: ReturnType<typeof clientFor>;
let dynamo: DynamoDB;
let recordChangeEvents: typeof import('../../shared/consumer/change-feed').recordChangeEvents;

beforeAll(async () => {
  runtime = await startInProcessRuntime({ HELPDESK_STREAM_POLL_MS: '0', HELPDESK_EVENTS_SETTLE_MS: '0' });
  api = clientFor(runtime.url);
  ({ dynamo } = await import('../../shared/aws/clients'));
  ({ recordChangeEvents } = await import('../../shared/consumer/change-feed'));
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
});

/** Every event after `after`, following `next`; and the cursor to poll from. */
async function feed(
  after?: string | null,
  limit?: number,
): Promise<{ events: Json[]; cursor: string | null; pages: number }> {
  const events: Json[] = [];
  let pages = 0;
  let cursor = after ?? null;
  const query = new URLSearchParams({ ...(after ? { after } : {}), ...(limit ? { limit: String(limit) } : {}) });
  let path: string | null = `/api/events/?${query.toString()}`;
  while (path) {
    const reply = await api.call('GET', path);
    expect(reply.status, reply.text).toBe(200);
    pages += 1;
    events.push(...reply.body.results);
    cursor = reply.body.cursor;
    path = reply.body.next
      ? new URL(reply.body.next as string).pathname + new URL(reply.body.next as string).search
      : null;
  }
  return { events, cursor, pages };
}

/** The cursor at the end of the feed as it is now (everything so far applied). */
async function end(): Promise<string | null> {
  await runtime.drainTableStream();
  return (await feed(null, 1000)).cursor;
}

/** Drains the stream, then the events since `cursor` (the horizon is the current millisecond: wait for it to pass). */
async function since(cursor: string | null, count: number, limit?: number) {
  await runtime.drainTableStream();
  let got: Awaited<ReturnType<typeof feed>> | undefined;
  await expect
    .poll(async () => (got = await feed(cursor, limit)).events.length, { timeout: 5000, interval: 20 })
    .toBeGreaterThanOrEqual(count);
  return got!;
}

const kinds = (events: Json[]) =>
  events.map(
    (e) => `${e.event} ${e.ticket}${e.followup ? `/${e.followup}` : ''}${e.attachment ? `/a${e.attachment}` : ''}`,
  );

describe('events for every change', () => {
  it('a new ticket: ticket.created and its opening followup', async () => {
    const cursor = await end();
    const ticket = (await api.createTicket({ title: 'Feed one' })).body;
    const { events } = await since(cursor, 2);
    expect(kinds(events)).toEqual([
      `ticket.created ${ticket.id}`,
      `followup.created ${ticket.id}/${ticket.followup_set[0].id}`,
    ]);
    expect(events[0]).toMatchObject({ changes: null, data: { id: ticket.id, title: 'Feed one', status: 1 } });
    expect(events[0].id).toMatch(/^evt_/);
  });

  it(
    'a PATCH gives ticket.updated with exactly the changed fields, old and new; a status change also ' +
      'ticket.status_changed',
    async () => {
      const ticket = (await api.createTicket({ title: 'Before', priority: 3 })).body;
      const cursor = await end();
      expect(
        (
          await api.call('PATCH', `/api/tickets/${ticket.id}/`, {
            json: { title: 'After', priority: 1, description: ticket.description },
          })
        ).status,
      ).toBe(200);
      const first = await since(cursor, 1);
      expect(kinds(first.events)).toEqual([`ticket.updated ${ticket.id}`]);
      expect(first.events[0].changes).toEqual({ title: { old: 'Before', new: 'After' }, priority: { old: 3, new: 1 } });
      expect(first.events[0].data).toMatchObject({ title: 'After', priority: 1 });

      expect((await api.call('PATCH', `/api/tickets/${ticket.id}/`, { json: { status: 3 } })).status).toBe(200);
      const second = await since(first.cursor, 2);
      expect(kinds(second.events)).toEqual([`ticket.updated ${ticket.id}`, `ticket.status_changed ${ticket.id}`]);
      expect(second.events[1].changes).toEqual({ status: { old: 1, new: 3 } });
      // The collection re-keyed under the new status (the consumer's own work) gives nothing more.
      expect((await since(second.cursor, 0)).events).toEqual([]);
    },
  );

  it(
    'followups and attachments: created, updated, deleted; the opening followup edited is an update, not a ' +
      'creation',
    async () => {
      const ticket = (await api.createTicket({ title: 'Children' })).body;
      const opening = ticket.followup_set[0].id as number;
      const cursor = await end();
      expect(
        (await api.call('PATCH', `/api/followups/${opening}/`, { json: { comment: 'Edited opening' } })).status,
      ).toBe(200);
      const added = await api.call(
        'POST',
        '/api/followups/',
        multipart({ ticket: ticket.id, title: 'Log', comment: 'With a file', public: 'true' }, [
          { field: 'attachments', name: 'log.txt', content: 'log' },
        ]),
      );
      expect(added.status, added.text).toBe(201);
      const followup = added.body.id as number;
      const attachment = added.body.followupattachment_set[0].id as number;
      expect((await api.call('PATCH', `/api/followups/${followup}/`, { json: { public: false } })).status).toBe(200);
      expect((await api.call('DELETE', `/api/followups/${followup}/`)).status).toBe(204);
      const { events } = await since(cursor, 6);
      expect(kinds(events).slice(0, 4)).toEqual([
        `followup.updated ${ticket.id}/${opening}`,
        `followup.created ${ticket.id}/${followup}`,
        `attachment.created ${ticket.id}/${followup}/a${attachment}`,
        `followup.updated ${ticket.id}/${followup}`,
      ]);
      // One transaction: the order of its records is the stream's.
      expect(kinds(events).slice(4).sort()).toEqual([
        `attachment.deleted ${ticket.id}/${followup}/a${attachment}`,
        `followup.deleted ${ticket.id}/${followup}`,
      ]);
      expect(events[0].changes).toEqual({ comment: { old: ticket.followup_set[0].comment, new: 'Edited opening' } });
      expect(events[3].changes).toEqual({ public: { old: true, new: false } });
      // An attachment carries its followup's `public` (the subscriptions' payload policy reads it): the
      // followup was public when the file came, private when it went.
      expect(events[2].data).toMatchObject({
        id: attachment,
        ticket: ticket.id,
        followup,
        filename: 'log.txt',
        public: true,
      });
      expect(events.find((e) => e.event === 'attachment.deleted').data).toMatchObject({
        id: attachment,
        public: false,
      });
    },
  );

  it(
    'a merge is ticket.updated of merged_to (its pointer in the target gives nothing); deleting the target ' +
      'deletes both',
    async () => {
      const target = (await api.createTicket({ title: 'Target' })).body;
      const source = (await api.createTicket({ title: 'Source' })).body;
      const cursor = await end();
      expect((await api.call('PATCH', `/api/tickets/${source.id}/`, { json: { merged_to: target.id } })).status).toBe(
        200,
      );
      const merged = await since(cursor, 1);
      expect(kinds(merged.events)).toEqual([`ticket.updated ${source.id}`]);
      expect(merged.events[0].changes).toEqual({ merged_to: { old: null, new: target.id } });
      expect((await api.call('DELETE', `/api/tickets/${target.id}/`)).status).toBe(204);
      const deleted = await since(merged.cursor, 2);
      expect(kinds(deleted.events).sort()).toEqual(
        [`ticket.deleted ${source.id}`, `ticket.deleted ${target.id}`].sort(),
      );
    },
  );

  it('a ticket deleted is ticket.deleted, without an event per followup removed with it', async () => {
    const ticket = (await api.createTicket({ title: 'Doomed' })).body;
    await api.call('POST', '/api/followups/', { json: { ticket: ticket.id, comment: 'One more' } });
    const cursor = await end();
    expect((await api.call('DELETE', `/api/tickets/${ticket.id}/`)).status).toBe(204);
    const { events } = await since(cursor, 1);
    expect(kinds(events)).toEqual([`ticket.deleted ${ticket.id}`]);
    expect(events[0].data).toMatchObject({ id: ticket.id, title: 'Doomed' });
  });
});

describe('the feed', () => {
  it(
    'after a cursor: exactly the events since, in order, across pages, and the ' + 'cursor to poll from at the end',
    async () => {
      const cursor = await end();
      const tickets: Json[] = [];
      for (let i = 0; i < 5; i++) tickets.push((await api.createTicket({ title: `Paged ${i}` })).body);
      const paged = await since(cursor, 10, 3);
      expect(paged.pages).toBe(4);
      expect(kinds(paged.events)).toEqual(
        tickets.flatMap((t) => [`ticket.created ${t.id}`, `followup.created ${t.id}/${t.followup_set[0].id}`]),
      );
      expect(new Set(paged.events.map((e) => e.id)).size).toBe(10);
      // At the end: nothing new, the same cursor back, no next link.
      const idle = await api.call('GET', `/api/events/?after=${paged.cursor}`);
      expect(idle.body).toEqual({ next: null, previous: null, cursor: paged.cursor, results: [] });
    },
  );

  it('a batch applied again puts the same items, in time or late: no new item, the same ids', async () => {
    const cursor = await end();
    const ticket = (await api.createTicket({ title: 'Replayed' })).body;
    const first = await since(cursor, 2);
    // The stream records of that create, read back as the consumer got them.
    const { tableChangeOf } = await import('../../shared/consumer/stream-records');
    const { DynamoDBStreamsClient, DescribeStreamCommand, GetShardIteratorCommand, GetRecordsCommand } =
      await import('@aws-sdk/client-dynamodb-streams');
    const { DescribeTableCommand, DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
    const streams = new DynamoDBStreamsClient({ endpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB });
    const arn = (await new DynamoDBClient({}).send(new DescribeTableCommand({ TableName: process.env.TABLE_NAME })))
      .Table!.LatestStreamArn;
    const records = [];
    for (const shard of (await streams.send(new DescribeStreamCommand({ StreamArn: arn }))).StreamDescription!
      .Shards!) {
      const iterator = (
        await streams.send(
          new GetShardIteratorCommand({ StreamArn: arn, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON' }),
        )
      ).ShardIterator;
      records.push(
        ...((await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }))).Records ?? []),
      );
    }
    streams.destroy();
    const again = records.map(tableChangeOf).filter((c) => c.keys.PK === `TICKET#${ticket.id}`);
    expect(again.length).toBeGreaterThan(0);

    // The consumer's clock is injected: at the records' own time every event is in time, and goes
    // where it belongs (where the original write put it too, unless that write came late).
    const ids = first.events.map((e) => e.id);
    const inTime = Math.min(...again.map((c) => c.stream!.at));
    // Read from the table, not the feed: a late write goes at the (injected) current time, past the horizon.
    const listed = async () =>
      (
        (
          await dynamo.send(
            new QueryCommand({
              TableName: process.env.TABLE_NAME,
              KeyConditionExpression: 'PK = :pk',
              ExpressionAttributeValues: { ':pk': 'EVENTS' },
              ConsistentRead: true,
            }),
          )
        ).Items ?? []
      )
        .filter((i) => ids.includes(String(i.id)))
        .map((i) => `${String(i.id)} ${String(i.SK)}`)
        .sort();
    await recordChangeEvents(again, () => inTime);
    const placed = await listed();
    expect([...new Set(placed.map((p) => p.split(' ')[0]))].sort()).toEqual([...ids].sort());
    // Retried in time: the very same items, nothing new (and no insert for the dispatcher).
    await recordChangeEvents(again, () => inTime);
    expect(await listed()).toEqual(placed);
    // Retried an hour late: found where they belong, not written again at the end.
    await recordChangeEvents(again, () => Date.now() + 3_600_000);
    expect(await listed()).toEqual(placed);
  });

  it(
    'a batch that failed on AWS is replayed from its failure message (replay-stream): its events reach the feed ' +
      'once, even if the batch is applied again later',
    async () => {
      const cursor = await end();
      // Written, and not applied: as a batch that failed in CountTickets on every retry.
      const ticket = (await api.createTicket({ title: 'Failed batch' })).body;
      const { DynamoDBStreamsClient, DescribeStreamCommand, GetShardIteratorCommand, GetRecordsCommand } =
        await import('@aws-sdk/client-dynamodb-streams');
      const { DescribeTableCommand, DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
      const streams = new DynamoDBStreamsClient({ endpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB });
      const streamArn = (
        await new DynamoDBClient({}).send(new DescribeTableCommand({ TableName: process.env.TABLE_NAME }))
      ).Table!.LatestStreamArn!;
      const batches = [];
      for (const shard of (await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }))).StreamDescription!
        .Shards!) {
        const iterator = (
          await streams.send(
            new GetShardIteratorCommand({
              StreamArn: streamArn,
              ShardId: shard.ShardId,
              ShardIteratorType: 'TRIM_HORIZON',
            }),
          )
        ).ShardIterator;
        const mine = (
          (await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }))).Records ?? []
        ).filter((r) => r.dynamodb?.Keys?.PK?.S === `TICKET#${ticket.id}`);
        if (mine.length) {
          batches.push({
            shardId: shard.ShardId!,
            startSequenceNumber: mine[0]!.dynamodb!.SequenceNumber!,
            endSequenceNumber: mine.at(-1)!.dynamodb!.SequenceNumber!,
            streamArn,
          });
        }
      }
      streams.destroy();
      expect(batches.length).toBeGreaterThan(0);
      // What `aws sqs receive-message` prints for the failure queue's messages.
      const received = JSON.stringify({
        Messages: batches.map((b) => ({
          MessageId: 'm',
          Body: JSON.stringify({ version: '1.0', DDBStreamBatchInfo: { ...b, batchSize: 1 } }),
        })),
      });

      const { failedBatches, replayBatch } = await import('../../cli/stream');
      let replayed = 0;
      for (const batch of failedBatches(received)) replayed += await replayBatch(batch);
      expect(replayed).toBeGreaterThan(0);
      const created = (events: Json[]) => events.filter((e) => e.event === 'ticket.created' && e.ticket === ticket.id);
      await expect.poll(async () => created((await feed(cursor, 1000)).events).length).toBe(1);

      // Replayed again, then read by the consumer as usual: still one event, and the ticket counted once.
      for (const batch of failedBatches(received)) await replayBatch(batch);
      await runtime.drainTableStream();
      expect(created((await feed(cursor, 1000)).events)).toHaveLength(1);
      const listed = await api.call('GET', `/api/tickets/?queue=${ticket.queue}&ordering=-id`);
      expect(listed.body.results.filter((t: Json) => t.id === ticket.id)).toHaveLength(1);
    },
  );

  it('a bad cursor or limit is a 400 saying so; only staff may read the feed', async () => {
    for (const query of ['after=nonsense', 'after=MjAyNg', 'limit=0', 'limit=ten']) {
      const reply = await api.call('GET', `/api/events/?${query}`);
      expect(reply.status, query).toBe(400);
      expect(Object.keys(reply.body)).toEqual([query.split('=')[0]]);
    }
    const user = await api.createUser();
    expect((await api.call('GET', '/api/events/', { auth: user.auth })).status).toBe(403);
    expect((await api.call('GET', '/api/events/', { auth: null })).status).toBe(401);
  });

  it('a cursor the feed did not give out is a 400, even a well-formed position far ahead (issue 25)', async () => {
    const given = await end();
    expect(given).not.toBeNull();
    // What a cursor used to be (the position, base64url) names a position: one far ahead answered
    // 200 and echoed it, and its holder never saw another event.
    const position = Buffer.from(given!, 'base64url').toString();
    const ahead = position.replace(/^\d{4}/, '2099');
    for (const forged of [
      Buffer.from(ahead).toString('base64url'),
      Buffer.from(ahead.replace(/\.[\w-]+$/, '.AAAAAAAAAAAAAAAAAAAAAA')).toString('base64url'),
      Buffer.from(position.replace(/\.[\w-]+$/, '')).toString('base64url'),
    ]) {
      const reply = await api.call('GET', `/api/events/?after=${forged}`);
      expect(reply.status, forged).toBe(400);
      expect(reply.body).toEqual({ after: [expect.stringMatching(/^Not a cursor of this feed/)] });
    }
    expect((await api.call('GET', `/api/events/?after=${given}`)).status).toBe(200);
  });

  it('items live in their own partition with a 30-day TTL', async () => {
    await end();
    const { Items } = await dynamo.send(
      new QueryCommand({
        TableName: process.env.TABLE_NAME,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': 'EVENTS' },
        Limit: 1,
      }),
    );
    const item = Items![0]!;
    expect(item.type).toBe('change-event');
    expect(item.expires_at).toBeGreaterThan(Date.now() / 1000 + 29 * 86_400);
  });
});
