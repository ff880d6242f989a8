/**
 * The AWS webhook workers' own logic (the stream reader's webhook consumer, shared/webhooks/stream-dispatch.ts run by
 * functions/stream/consume.ts; the sweep, functions/webhooks/dispatch.ts; deliver.ts): what they
 * report to Lambda and send to SQS for each outcome. The dispatch and delivery service they call is
 * covered over HTTP by tests/integration/webhooks.test.ts; here it is replaced to choose outcomes.
 */
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startAwsStandIn } from './aws-stand-in';
import type { DynamoDBStreamEvent, SQSEvent } from 'aws-lambda';

const dispatchEvent = vi.fn();
const attemptDelivery = vi.fn();
const eventsWrittenBefore = vi.fn();
const recordDeadLettered = vi.fn();
/** SQS: a loopback stand-in for its JSON protocol (shared/aws/sqs.ts), which answers `{}`. */
const sqs = await startAwsStandIn();
/** What the workers sent to SQS: operation and input. */
const sqsSent = () =>
  sqs.seen.map(({ headers, body }) => ({
    operation: String(headers['x-amz-target']).replace('AmazonSQS.', ''),
    input: body,
  }));

vi.mock('../../shared/webhooks/service', () => ({ dispatchEvent, attemptDelivery }));
vi.mock('../../shared/store/deliveries', () => ({ recordDeadLettered }));
vi.mock('../../shared/store/outbox', async (original) => ({ ...(await original<object>()), eventsWrittenBefore }));
vi.mock('../../shared/webhooks/context', () => ({ webhookContext: () => ({ marker: 'ctx' }) }));
process.env.AWS_ENDPOINT_URL_SQS = sqs.endpoint;
process.env.HELPDESK_WEBHOOK_QUEUE_URL = 'https://sqs.example/deliveries';
process.env.HELPDESK_WEBHOOK_DEAD_LETTER_URL = 'https://sqs.example/dead-letters';
process.env.HELPDESK_STREAM_RETRY_QUEUES = JSON.stringify({ 'webhook dispatch': 'https://sqs.example/webhook-retry' });
const { handler: dispatch, STRANDED_AFTER_MS } = await import('../../functions/webhooks/dispatch');
const { handler: read } = await import('../../functions/stream/consume');
const { handler: retry } = await import('../../functions/stream/retry');
const { handler: deliver } = await import('../../functions/webhooks/deliver');

beforeEach(() => {
  for (const f of [dispatchEvent, attemptDelivery, eventsWrittenBefore, recordDeadLettered]) f.mockReset();
  sqs.seen.length = 0;
});
afterAll(() => sqs.close());

const outboxImage = (id: string) => ({
  PK: { S: 'OUTBOX' },
  SK: { S: `EVENT#${id}` },
  type: { S: 'webhook-event' },
  id: { S: id },
  event: { S: 'ticket.created' },
  ticket: { N: '7' },
  followup: { NULL: true },
  base_url: { S: 'https://api.example' },
  created: { S: '2026-11-24T10:00:00.000Z' },
});
const streamEvent = (ids: string[]): DynamoDBStreamEvent => ({
  Records: ids.map((id, i) => ({
    eventName: 'INSERT',
    dynamodb: { SequenceNumber: String(100 + i), NewImage: outboxImage(id) as never },
  })),
});

describe('dispatch (the stream reader)', () => {
  it('dispatches each inserted outbox event, as the API wrote it', async () => {
    dispatchEvent.mockResolvedValue(undefined);
    expect(await read(streamEvent(['a', 'b']))).toEqual({});
    expect(dispatchEvent.mock.calls.map(([e]) => e)).toEqual(
      ['a', 'b'].map((id) => ({
        id,
        event: 'ticket.created',
        ticket: 7,
        followup: null,
        base_url: 'https://api.example',
        created: '2026-11-24T10:00:00.000Z',
      })),
    );
    expect(sqsSent()).toEqual([]);
  });

  it(
    'stops at the first failing record (stream order) and puts its records on its retry queue, which dispatches ' +
      'them again',
    async () => {
      dispatchEvent.mockResolvedValueOnce(undefined).mockRejectedValueOnce(new Error('table busy'));
      const event = streamEvent(['a', 'b', 'c']);
      expect(await read(event)).toEqual({ retried: ['webhook dispatch'] });
      expect(dispatchEvent).toHaveBeenCalledTimes(2);
      const [sent] = sqsSent();
      expect(sent).toMatchObject({
        operation: 'SendMessage',
        input: { QueueUrl: 'https://sqs.example/webhook-retry', DelaySeconds: 30 },
      });
      const body = String((sent!.input as { MessageBody: string }).MessageBody);
      expect(JSON.parse(body)).toEqual({ consumer: 'webhook dispatch', records: event.Records });

      dispatchEvent.mockReset().mockResolvedValue(undefined);
      const message = { messageId: 'm1', body, attributes: { ApproximateReceiveCount: '1' } };
      expect(await retry({ Records: [message] } as unknown as SQSEvent)).toEqual({ batchItemFailures: [] });
      expect(dispatchEvent.mock.calls.map(([e]) => (e as { id: string }).id)).toEqual(['a', 'b', 'c']);
      dispatchEvent.mockRejectedValue(new Error('still busy'));
      expect(await retry({ Records: [message] } as unknown as SQSEvent)).toEqual({
        batchItemFailures: [{ itemIdentifier: 'm1' }],
      });
    },
  );
});

describe('dispatch (schedule)', () => {
  it('dispatches the events still in the outbox an hour after they were written', async () => {
    const stranded = [{ id: 'old' }, { id: 'older' }];
    eventsWrittenBefore.mockResolvedValue(stranded);
    dispatchEvent.mockResolvedValue(undefined);
    const before = Date.now();
    expect(await dispatch()).toEqual({
      dispatched: 2,
    });
    const cutoff = (eventsWrittenBefore.mock.calls[0]![0] as Date).getTime();
    expect(cutoff).toBeGreaterThanOrEqual(before - STRANDED_AFTER_MS);
    expect(cutoff).toBeLessThanOrEqual(Date.now() - STRANDED_AFTER_MS);
    expect(dispatchEvent.mock.calls.map(([e]) => e)).toEqual(stranded);
  });

  it('fails the run when a dispatch fails (the next run tries again)', async () => {
    eventsWrittenBefore.mockResolvedValue([{ id: 'old' }]);
    dispatchEvent.mockRejectedValue(new Error('queue down'));
    await expect(dispatch()).rejects.toThrow('queue down');
  });
});

const sqsEvent = (deliveries: string[]): SQSEvent => ({
  Records: deliveries.map(
    (delivery, i) => ({ messageId: `m${i}`, receiptHandle: `r${i}`, body: JSON.stringify({ delivery }) }) as never,
  ),
});

describe('deliver', () => {
  it('a delivered or skipped message is consumed', async () => {
    attemptDelivery.mockResolvedValueOnce({ state: 'delivered' }).mockResolvedValueOnce({ state: 'skipped' });
    expect(await deliver(sqsEvent(['d1', 'd2']))).toEqual({ batchItemFailures: [] });
    expect(sqsSent()).toEqual([]);
  });

  it('a retry hides the message until its next attempt and reports it, so SQS keeps it', async () => {
    attemptDelivery.mockResolvedValue({ state: 'retry', inSeconds: 300 });
    expect(await deliver(sqsEvent(['d1']))).toEqual({ batchItemFailures: [{ itemIdentifier: 'm0' }] });
    expect(sqsSent()).toHaveLength(1);
    expect(sqsSent()[0]).toEqual({
      operation: 'ChangeMessageVisibility',
      input: { QueueUrl: 'https://sqs.example/deliveries', ReceiptHandle: 'r0', VisibilityTimeout: 300 },
    });
  });

  it('a delivery whose schedule is spent goes to the dead-letter queue (its alarm) and leaves this one', async () => {
    attemptDelivery.mockResolvedValue({ state: 'failed', deadLetter: true });
    expect(await deliver(sqsEvent(['d1']))).toEqual({ batchItemFailures: [] });
    expect(sqsSent()[0]).toEqual({
      operation: 'SendMessage',
      input: { QueueUrl: 'https://sqs.example/dead-letters', MessageBody: JSON.stringify({ delivery: 'd1' }) },
    });
    expect(recordDeadLettered.mock.calls).toEqual([['d1']]);
  });

  const DEAD_LETTER_FAILS =
    'a dead-letter put that fails reports the message for another receive and leaves the delivery due for the put';
  it(DEAD_LETTER_FAILS, async () => {
    attemptDelivery.mockResolvedValue({ state: 'failed', deadLetter: true });
    sqs.always = { status: 500, body: { __type: 'InternalError', message: 'injected' } };
    try {
      expect(await deliver(sqsEvent(['d1']))).toEqual({ batchItemFailures: [{ itemIdentifier: 'm0' }] });
    } finally {
      sqs.always = undefined;
    }
    expect(recordDeadLettered).not.toHaveBeenCalled();
  });

  it("a subscription's delivery whose schedule is spent only leaves the queue: no dead letter, no alarm", async () => {
    attemptDelivery.mockResolvedValue({ state: 'failed', deadLetter: false });
    expect(await deliver(sqsEvent(['d1']))).toEqual({ batchItemFailures: [] });
    expect(sqsSent()).toEqual([]);
  });

  it('an error of our own reports the message for another receive; the others of the batch go on', async () => {
    attemptDelivery.mockRejectedValueOnce(new Error('throttled')).mockResolvedValueOnce({ state: 'delivered' });
    expect(await deliver(sqsEvent(['d1', 'd2']))).toEqual({ batchItemFailures: [{ itemIdentifier: 'm0' }] });
  });
});
