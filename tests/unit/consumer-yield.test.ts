import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { consumerYield, ROUTES_QUIET_MS } from '../../infra/local/consumer-yield';
type Wire = Record<string, unknown>;

/** Calls through the interceptor whose answers the test gives: which of them reached the wire, and their ends. */
function harness() {
  let asConsumer = false;
  const behind = { now: false };
  const yielding = consumerYield(
    () => asConsumer,
    () => !behind.now,
  );
  const onWire: string[] = [];
  const answers = new Map<string, () => void>();
  const call = (name: string, consumer: boolean) => {
    asConsumer = consumer;
    const done = yielding.interceptor({ operation: 'PutItem', input: {} }, () => {
      onWire.push(name);
      return new Promise<Wire>((resolve) => answers.set(name, () => resolve({})));
    });
    asConsumer = false;
    return done;
  };
  /** Answers `name`'s call and lets the interceptor's continuations run. */
  const answer = async (name: string) => {
    answers.get(name)!();
    await vi.advanceTimersByTimeAsync(0);
  };
  return { yielding, onWire, call, answer, behind };
}

describe('the stream consumer yields DynamoDB Local to the routes', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends every consumer call at once while the routes are quiet', () => {
    const { onWire, call } = harness();
    for (const name of ['c1', 'c2', 'c3']) void call(name, true);
    expect(onWire).toEqual(['c1', 'c2', 'c3']);
  });

  it('never holds a route call, however many consumer calls are on the wire or waiting', () => {
    const { yielding, onWire, call } = harness();
    void call('r1', false);
    for (const name of ['c1', 'c2', 'c3']) void call(name, true);
    expect(yielding.waiting()).toBe(2);
    void call('r2', false);
    void call('r3', false);
    expect(onWire).toEqual(['r1', 'c1', 'r2', 'r3']);
  });

  it('sends the consumer calls one at a time while the routes are at work, then all once they are quiet', async () => {
    const { yielding, onWire, call, answer } = harness();
    void call('r1', false);
    const consumerCalls = ['c1', 'c2', 'c3', 'c4'].map((name) => call(name, true));
    expect(onWire).toEqual(['r1', 'c1']);

    await answer('c1');
    expect(onWire).toEqual(['r1', 'c1', 'c2']);

    // The route's call ends: the routes count as at work for ROUTES_QUIET_MS more.
    await answer('r1');
    await answer('c2');
    expect(onWire).toEqual(['r1', 'c1', 'c2', 'c3']);
    await vi.advanceTimersByTimeAsync(ROUTES_QUIET_MS - 1);
    expect(yielding.waiting()).toBe(1);

    await vi.advanceTimersByTimeAsync(1);
    expect(onWire).toEqual(['r1', 'c1', 'c2', 'c3', 'c4']);
    await answer('c3');
    await answer('c4');
    await expect(Promise.all(consumerCalls)).resolves.toHaveLength(4);
  });

  it('waits for the quiet afresh when a route call comes meanwhile', async () => {
    const { yielding, onWire, call, answer } = harness();
    void call('r1', false);
    void call('c1', true);
    void call('c2', true);
    void call('c3', true);
    await answer('r1');
    await vi.advanceTimersByTimeAsync(ROUTES_QUIET_MS / 2);
    void call('r2', false);
    await answer('r2');
    await vi.advanceTimersByTimeAsync(ROUTES_QUIET_MS / 2);
    // Half the quiet after r2 ended: c1 still alone on the wire.
    expect(onWire).toEqual(['r1', 'c1', 'r2']);
    expect(yielding.waiting()).toBe(2);
    await vi.advanceTimersByTimeAsync(ROUTES_QUIET_MS / 2);
    expect(onWire).toEqual(['r1', 'c1', 'r2', 'c2', 'c3']);
  });

  it('yields no longer once it is behind: its waiting calls go at once, the routes at work or not', async () => {
    const { yielding, onWire, call, answer, behind } = harness();
    void call('r1', false);
    for (const name of ['c1', 'c2', 'c3']) void call(name, true);
    expect(onWire).toEqual(['r1', 'c1']);
    behind.now = true;
    await answer('c1');
    expect(onWire).toEqual(['r1', 'c1', 'c2', 'c3']);
    void call('c4', true);
    expect(onWire).toEqual(['r1', 'c1', 'c2', 'c3', 'c4']);
    expect(yielding.waiting()).toBe(0);
  });

  it('lets the next consumer call go when one fails', async () => {
    let asConsumer = true;
    const { interceptor } = consumerYield(() => asConsumer);
    asConsumer = false;
    let routeEnd!: () => void;
    const route = interceptor(
      { operation: 'GetItem', input: {} },
      () => new Promise<Wire>((r) => (routeEnd = () => r({}))),
    );
    asConsumer = true;
    const failing = interceptor({ operation: 'PutItem', input: {} }, () => Promise.reject(new Error('refused')));
    const next = interceptor({ operation: 'PutItem', input: {} }, () => Promise.resolve({ ok: true }));
    asConsumer = false;
    await expect(failing).rejects.toThrow('refused');
    await expect(next).resolves.toEqual({ ok: true });
    routeEnd();
    await route;
  });
});
