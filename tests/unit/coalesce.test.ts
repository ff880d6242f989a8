/**
 * Group commit (shared/store/coalesce.ts): a lone call goes at once and alone; calls made while a
 * request for their key is on its way go together as the next one, each answered with its own output.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { coalescing } from '../../shared/store/coalesce';

/** A sender that records each request and answers when the test says. */
function heldSender() {
  const requests: { key: string; inputs: number[]; answer: (error?: Error) => void }[] = [];
  const send = coalescing<number, string>(
    (key, inputs) =>
      new Promise((resolve, reject) =>
        requests.push({
          key,
          inputs: [...inputs],
          answer: (error) => (error ? reject(error) : resolve(inputs.map((n) => `${key}:${n}`))),
        }),
      ),
  );
  return { send, requests };
}

describe('coalescing', () => {
  it('sends a lone call at once, alone', async () => {
    const { send, requests } = heldSender();
    const answer = send('k', 1);
    expect(requests.map((r) => r.inputs)).toEqual([[1]]);
    requests[0]!.answer();
    await expect(answer).resolves.toBe('k:1');
  });

  it('sends the calls made while a request is on its way together, as the next, each answered its own', async () => {
    const { send, requests } = heldSender();
    const answers = [1, 2, 3, 4].map((n) => send('k', n));
    expect(requests.map((r) => r.inputs)).toEqual([[1]]);
    requests[0]!.answer();
    await expect(answers[0]).resolves.toBe('k:1');
    expect(requests.map((r) => r.inputs)).toEqual([[1], [2, 3, 4]]);
    requests[1]!.answer();
    await expect(Promise.all(answers)).resolves.toEqual(['k:1', 'k:2', 'k:3', 'k:4']);
    // Nothing on its way any more: the next call goes at once again.
    void send('k', 5);
    expect(requests.map((r) => r.inputs)).toEqual([[1], [2, 3, 4], [5]]);
  });

  it('keeps keys apart: a request for one key does not hold calls for another', () => {
    const { send, requests } = heldSender();
    void send('a', 1);
    void send('b', 2);
    void send('a', 3);
    expect(requests.map((r) => [r.key, r.inputs])).toEqual([
      ['a', [1]],
      ['b', [2]],
    ]);
  });

  it('fails every call a failed request carried, and only those; the calls waiting behind it still go', async () => {
    const { send, requests } = heldSender();
    const first = send('k', 1);
    const second = [send('k', 2), send('k', 3)];
    requests[0]!.answer();
    await first;
    const third = send('k', 4);
    requests[1]!.answer(new Error('throttled'));
    await expect(Promise.allSettled(second)).resolves.toEqual([
      { status: 'rejected', reason: new Error('throttled') },
      { status: 'rejected', reason: new Error('throttled') },
    ]);
    expect(requests.map((r) => r.inputs)).toEqual([[1], [2, 3], [4]]);
    requests[2]!.answer();
    await expect(third).resolves.toBe('k:4');
  });

  it("sends each request in its first call's async context, not in that of the request before it", async () => {
    const invocation = new AsyncLocalStorage<string>();
    const requests: { sentIn: string | undefined; answer: () => void }[] = [];
    const send = coalescing<string, string>(
      (_key, inputs) =>
        new Promise((resolve) =>
          requests.push({ sentIn: invocation.getStore(), answer: () => resolve(inputs.map((i) => `sent ${i}`)) }),
        ),
    );
    const answers = ['create-1', 'ingest-2', 'create-3'].map((id) => invocation.run(id, () => send('k', id)));
    requests[0]!.answer();
    await answers[0];
    // The second request carries ingest-2's and create-3's calls: it goes under ingest-2's invocation.
    expect(requests.map((r) => r.sentIn)).toEqual(['create-1', 'ingest-2']);
    requests[1]!.answer();
    await expect(Promise.all(answers)).resolves.toEqual(['sent create-1', 'sent ingest-2', 'sent create-3']);
  });

  it('answers a sender that throws before it sends as a failed request', async () => {
    const send = coalescing<number, number>(() => {
      throw new Error('bad input');
    });
    await expect(send('k', 1)).rejects.toThrow('bad input');
  });
});
