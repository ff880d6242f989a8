import { AsyncLocalStorage } from 'node:async_hooks';
import { Agent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { StandardRetryStrategy } from '@smithy/util-retry';
import { describe, expect, it } from 'vitest';
import { admitConsumerFirst, type ConsumerBacklog } from '../../infra/local/consumer-first';
import { DynamoDB, GetCommand } from '../../shared/aws/dynamodb';
import { DYNAMODB_RETRIES } from '../../shared/aws/clients';

/**
 * A client whose calls never leave the process: the innermost interceptor holds each one on "the
 * wire" until the test answers it, and says who is there.
 */
function heldClient(backlog?: ConsumerBacklog) {
  const dynamo = new DynamoDB(() => ({
    endpoint: 'http://127.0.0.1:9',
    region: 'eu-west-1',
    retryStrategy: new StandardRetryStrategy(DYNAMODB_RETRIES),
    maxAttempts: DYNAMODB_RETRIES.maxAttempts,
    transport: { attemptMs: 2_000, agents: { http: new Agent(), https: new HttpsAgent() } },
  }));
  const consumer = new AsyncLocalStorage<true>();
  const isConsumer = () => consumer.getStore() === true;
  admitConsumerFirst(dynamo, isConsumer, backlog, { limit: 3, whileConsumerBusy: 1, whileConsumerBehind: 0 });
  const onWire: { name: string; answer: () => void }[] = [];
  dynamo.intercept(
    async ({ input }, _next) => {
      await new Promise<void>((answer) => onWire.push({ name: String((input.Key as { PK: string }).PK), answer }));
      return {};
    },
    { eachAttempt: true },
  );
  const call = (name: string) => dynamo.send(new GetCommand({ TableName: 't', Key: { PK: name, SK: name } }));
  const consumerCall = (name: string) => consumer.run(true, () => call(name));
  const answer = (name: string) => onWire.splice(onWire.findIndex((c) => c.name === name), 1)[0]!.answer();
  const names = () => onWire.map((c) => c.name);
  return { call, consumerCall, answer, names };
}

describe('the local runtime admits the consumer’s DynamoDB calls first', () => {
  it('keeps at most `limit` of the routes’ calls on the wire, admitting the others in order', async () => {
    const { call, answer, names } = heldClient();
    const calls = ['r1', 'r2', 'r3', 'r4', 'r5'].map(call);
    await expect.poll(names).toEqual(['r1', 'r2', 'r3']);
    answer('r2');
    await expect.poll(names).toEqual(['r1', 'r3', 'r4']);
    for (const name of ['r1', 'r3', 'r4']) answer(name);
    await expect.poll(names).toEqual(['r5']);
    answer('r5');
    await Promise.all(calls);
  });

  it('sends the consumer’s calls at once, and admits no new route call beyond `whileConsumerBusy` while one is on the wire', async () => {
    const { call, consumerCall, answer, names } = heldClient();
    const first = call('r1');
    await expect.poll(names).toEqual(['r1']);
    const consumed = [consumerCall('c1'), consumerCall('c2'), consumerCall('c3'), consumerCall('c4')];
    await expect.poll(names).toEqual(['r1', 'c1', 'c2', 'c3', 'c4']);
    const later = [call('r2'), call('r3')];
    answer('r1');
    // One route call (whileConsumerBusy) while the consumer's are on the wire; the other waits for them.
    await expect.poll(names).toEqual(['c1', 'c2', 'c3', 'c4', 'r2']);
    for (const name of ['c1', 'c2', 'c3']) answer(name);
    answer('r2');
    await expect.poll(names).toEqual(['c4', 'r3']);
    answer('c4');
    answer('r3');
    await Promise.all([first, ...consumed, ...later]);
  });

  it('admits no route call while the consumer has records read and not applied, and the waiting ones once it has caught up', async () => {
    let behind = false;
    let caughtUp = () => undefined as void;
    const { call, answer, names } = heldClient({ behind: () => behind, onCaughtUp: (listener) => (caughtUp = listener) });
    const first = call('r1');
    await expect.poll(names).toEqual(['r1']);
    behind = true;
    const later = [call('r2'), call('r3')];
    answer('r1');
    await first;
    // Nothing new goes on the wire while the consumer is behind: the writes it has yet to apply come first.
    expect(names()).toEqual([]);
    behind = false;
    caughtUp();
    await expect.poll(names).toEqual(['r2', 'r3']);
    answer('r2');
    answer('r3');
    await Promise.all(later);
  });
});
