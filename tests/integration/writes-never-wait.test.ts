/**
 * No request waits for derived state (issue 33): while the stream consumer has records read and not
 * applied, a route's DynamoDB calls still go through. The consumer is held mid-batch (its calls
 * wait on a gate: the fault injected), and the test counts the routes' calls that reach DynamoDB
 * meanwhile; nothing is timed.
 *
 * Its own runtime in-process, the poller off (HELPDESK_STREAM_POLL_MS=0): the test drains the
 * stream itself, so it knows when the consumer is behind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoDB } from '../../shared/aws/dynamodb';
import { clientFor } from './client';
import { startInProcessRuntime } from './in-process-runtime';

let runtime: { url: string; stop(): Promise<void>; drainTableStream(): Promise<void> };
let api: ReturnType<typeof clientFor>;
let dynamo: DynamoDB;
let inStreamConsumer: () => boolean;
let startLocalTableStream: typeof import('../../infra/local/table-stream').startLocalTableStream;

beforeAll(async () => {
  runtime = await startInProcessRuntime({ HELPDESK_STREAM_POLL_MS: '0' });
  api = clientFor(runtime.url);
  ({ dynamo } = await import('../../shared/aws/clients'));
  ({ inStreamConsumer, startLocalTableStream } = await import('../../infra/local/table-stream'));
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
});

const count = async () => (await api.call('GET', '/api/tickets/?page_size=1')).body.count as number;

describe('writes never wait for the stream consumer', () => {
  it("a route's DynamoDB calls go through while the consumer has records read and not applied", async () => {
    await runtime.drainTableStream();
    const before = await count();
    let release = () => undefined as void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let consumerHeld = 0;
    let routeCalls = 0;
    // Innermost of the interceptors: a call counted here is on its way to DynamoDB, held by nothing before it.
    const remove = dynamo.intercept(
      async (_call, next) => {
        if (!inStreamConsumer()) {
          routeCalls++;
          return next();
        }
        consumerHeld++;
        await gate;
        return next();
      },
      { eachAttempt: true },
    );
    let drained = false;
    try {
      expect((await api.createTicket({ title: 'read by the consumer, not applied' })).status).toBe(201);
      const draining = runtime.drainTableStream().then(() => void (drained = true));
      await expect.poll(() => consumerHeld, { timeout: 30_000 }).toBeGreaterThan(0);

      const callsBefore = routeCalls;
      const created = await api.createTicket({ title: 'created while the consumer is behind' });
      expect(created.status).toBe(201);
      expect((await api.call('GET', `/api/tickets/${created.body.id}/`)).status).toBe(200);
      const followup = await api.call('POST', '/api/followups/', {
        json: { ticket: created.body.id, title: 'meanwhile', comment: 'no wait' },
      });
      expect(followup.status).toBe(201);
      // The count is the consumer's: nothing of the held batch is applied yet.
      expect(await count()).toBe(before);
      expect(routeCalls - callsBefore).toBeGreaterThanOrEqual(4);
      expect(drained).toBe(false);

      release();
      await draining;
      await runtime.drainTableStream();
      expect(await count()).toBe(before + 2);
    } finally {
      release();
      remove();
    }
  });
});

describe("the local stream's calls yield DynamoDB Local to the routes' (infra/local/consumer-yield.ts)", () => {
  it("go one at a time while a route's call is on the wire, and the route's call is not held by them", async () => {
    await runtime.drainTableStream();
    for (const title of ['one', 'two', 'three'])
      expect((await api.createTicket({ title: `applied while a route works: ${title}` })).status).toBe(201);
    let releaseRoute = () => undefined as void;
    const routeGate = new Promise<void>((resolve) => (releaseRoute = resolve));
    let holdRoute = true;
    let routeHeld = 0;
    let consumerOnWire = 0;
    let mostConsumerOnWire = 0;
    // Innermost: what is counted here is on the wire. The test holds one route call there, as a slow answer would.
    const remove = dynamo.intercept(
      async (_call, next) => {
        if (!inStreamConsumer()) {
          if (holdRoute) {
            holdRoute = false;
            routeHeld++;
            await routeGate;
          }
          return next();
        }
        mostConsumerOnWire = Math.max(mostConsumerOnWire, ++consumerOnWire);
        try {
          return await next();
        } finally {
          consumerOnWire--;
        }
      },
      { eachAttempt: true },
    );
    try {
      const page = api.call('GET', '/api/tickets/?page_size=1');
      await expect.poll(() => routeHeld, { timeout: 30_000 }).toBe(1);
      await runtime.drainTableStream();
      expect(mostConsumerOnWire).toBe(1);
      releaseRoute();
      expect((await page).status).toBe(200);
    } finally {
      releaseRoute();
      remove();
    }
  });
});

describe('the local stream yields to a burst', () => {
  // A poller of the test's own (the runtime's is off), told how many requests wait for a function's slot.
  it('holds off while requests wait for a slot, then applies what it held', async () => {
    await runtime.drainTableStream();
    const before = await count();
    let waiting = 1;
    let asked = 0;
    const stream = await startLocalTableStream({ intervalMs: 20, requestsWaiting: () => (asked++, waiting) });
    try {
      expect((await api.createTicket({ title: 'written in a burst' })).status).toBe(201);
      // Polled several times since the create, holding off each time: nothing applied.
      const askedBefore = asked;
      await expect.poll(() => asked, { timeout: 30_000 }).toBeGreaterThan(askedBefore + 3);
      expect(await count()).toBe(before);
      waiting = 0;
      await expect.poll(count, { timeout: 30_000 }).toBe(before + 1);
    } finally {
      await stream.stop();
    }
  });

  it('holds off no longer than its limit: in a burst that never ends, the backlog is still applied', async () => {
    await runtime.drainTableStream();
    const before = await count();
    const stream = await startLocalTableStream({ intervalMs: 20, requestsWaiting: () => 1, holdOffMaxMs: 200 });
    try {
      expect((await api.createTicket({ title: 'written in an endless burst' })).status).toBe(201);
      await expect.poll(count, { timeout: 30_000 }).toBe(before + 1);
    } finally {
      await stream.stop();
    }
  });
});

describe("the local stream's record times", () => {
  it("are the write's second, not DynamoDB Local's minute: a change's event is in time, not late-marked", async () => {
    const { QueryCommand } = await import('../../shared/aws/dynamodb');
    const { keys } = await import('../../shared/store/keys');
    const { config } = await import('../../shared/config');
    const lateMarks = async () =>
      (
        await dynamo.send(
          new QueryCommand({
            TableName: config.tableName,
            KeyConditionExpression: 'PK = :pk',
            ExpressionAttributeValues: { ':pk': keys.lateEventsPartition },
            Select: 'COUNT',
          }),
        )
      ).Count;
    await runtime.drainTableStream();
    const before = await lateMarks();
    for (let i = 0; i < 3; i++) expect((await api.createTicket({ title: `in time ${i}` })).status).toBe(201);
    await runtime.drainTableStream();
    expect(await lateMarks()).toBe(before);
  });
});
