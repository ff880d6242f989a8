/**
 * Group commit for writes that add to one item: while a request for a key is on its way, further calls for that key
 * wait, and then go together as the next request. A lone call goes at once and alone, so a function that serves one
 * invocation at a time (Lambda's default) sends exactly what it sent before; where one process serves many at once
 * (the local runtime, whose functions share one process, or a function with multi-concurrency), concurrent creates
 * share one id counter `ADD` and one queue reservation instead of one each (docs/data-model.md, "Group commit").
 * Calls waiting behind a request wait no longer than it takes: every DynamoDB attempt has a timeout (aws/clients.ts).
 * A request runs in the async context of its first call (the invocation whose logs and, locally, whose function's
 * grants it goes under), not in that of the request before it, which it follows.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

interface Waiting<I, O> {
  input: I;
  resolve: (output: O) => void;
  reject: (error: unknown) => void;
  /** Runs a function in the async context the call was made in. */
  inContext: <R>(fn: () => R) => R;
}

/**
 * `send(key, inputs)` makes one request for all of `inputs` and answers one output for each, in order; its failure
 * fails every call it carried. Returns the call: `(key, input)` answers `input`'s output.
 */
export function coalescing<I, O>(
  send: (key: string, inputs: readonly I[]) => Promise<readonly O[]>,
): (key: string, input: I) => Promise<O> {
  /** The keys with a request on its way, and the calls that wait for the next one. */
  const next = new Map<string, Waiting<I, O>[]>();
  const sendNow = (key: string, batch: Waiting<I, O>[]) => {
    next.set(key, []);
    const inputs = batch.map((w) => w.input);
    // The calls that waited go as soon as this request is answered, before its callers go on.
    void batch[0]!
      .inContext(async () => send(key, inputs))
      .then(
        (outputs) => {
          sendWaiting(key);
          batch.forEach((w, i) => w.resolve(outputs[i]!));
        },
        (error: unknown) => {
          sendWaiting(key);
          batch.forEach((w) => w.reject(error));
        },
      );
  };
  const sendWaiting = (key: string) => {
    const waiting = next.get(key)!;
    if (waiting.length) sendNow(key, waiting);
    else next.delete(key);
  };
  return (key, input) =>
    new Promise<O>((resolve, reject) => {
      const waiting = next.get(key);
      const call = { input, resolve, reject, inContext: AsyncLocalStorage.snapshot() };
      if (waiting) waiting.push(call);
      else sendNow(key, [call]);
    });
}
