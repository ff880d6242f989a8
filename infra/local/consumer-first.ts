/**
 * Admission control for the local runtime's DynamoDB calls: the stream consumer's go first.
 *
 * On AWS the consumer is a function of its own and DynamoDB serves it beside any burst. Locally one
 * DynamoDB Local (one JVM over SQLite) serves the routes and the consumer, and it serves the calls on
 * its wire in no particular order: measured during a burst of 500 creates (docs/data-model.md, "The
 * stream consumer"), the consumer's calls waited under a millisecond for a socket of their own pool
 * but seconds on the wire, behind the 50 calls the routes kept there, and the counts fell seconds
 * behind the last 201. So the routes' calls are admitted here, before they are signed: at most
 * `limit` on the wire at once, and none new while the consumer has a call on the wire beyond
 * `whileConsumerBusy`, and none at all while the consumer has records read and not yet applied
 * (back-pressure: after the lists' page snapshots and orderings, the consumer's work is the larger
 * share, and with any route calls on the wire it fell seconds behind a burst). The total work is the
 * same; the consumer's share of it comes first.
 */
import type { DynamoDB } from '../../shared/aws/dynamodb';
import { recordAdmission } from '../../shared/consumer/consumer-timings';

export interface Admission {
  /** The routes' calls on the wire at once (the others wait here, in order). */
  limit: number;
  /** The routes' calls on the wire at once while the consumer has one there. */
  whileConsumerBusy: number;
  /** The routes' calls on the wire at once while the consumer has records read and not applied. */
  whileConsumerBehind: number;
}

/** What the consumer has read and not yet applied (infra/local/table-stream.ts `streamConsumerBacklog`). */
export interface ConsumerBacklog {
  behind(): boolean;
  onCaughtUp(listener: () => void): void;
}

const NO_BACKLOG: ConsumerBacklog = { behind: () => false, onCaughtUp: () => undefined };

/**
 * Measured (docs/data-model.md, "The stream consumer"): with 16, the counts were exact 0.2–2 s after
 * a burst's last 201 (16–21 s without admission); with 50, 3 s (the consumer's first call of each
 * batch still waited behind 50). With the consumer's larger work since, on a quiet machine: 8.4 s
 * with routes' calls while it is behind, 2.1 s with 1, 0.07 s with none (the burst's creates 25/s → 15/s).
 */
export const CONSUMER_FIRST: Admission = { limit: 16, whileConsumerBusy: 2, whileConsumerBehind: 0 };

/** Installs the admission on `client`, outermost of its attempt interceptors (a call waiting here is not yet in flight). */
export function admitConsumerFirst(client: DynamoDB, isConsumer: () => boolean, backlog: ConsumerBacklog = NO_BACKLOG, admission: Admission = CONSUMER_FIRST): () => void {
  let consumerCalls = 0;
  let routeCalls = 0;
  const waiting: (() => void)[] = [];
  const room = () => routeCalls < (backlog.behind() ? admission.whileConsumerBehind : consumerCalls ? admission.whileConsumerBusy : admission.limit);
  const admitWaiting = () => {
    while (waiting.length && room()) {
      routeCalls++;
      waiting.shift()!();
    }
  };
  backlog.onCaughtUp(admitWaiting);
  return client.intercept(
    async (_call, next) => {
      if (isConsumer()) {
        consumerCalls++;
        try {
          return await next();
        } finally {
          consumerCalls--;
          admitWaiting();
        }
      }
      if (room() && !waiting.length) routeCalls++;
      else {
        const queued = performance.now();
        await new Promise<void>((admit) => waiting.push(admit));
        recordAdmission(performance.now() - queued);
      }
      try {
        return await next();
      } finally {
        routeCalls--;
        admitWaiting();
      }
    },
    { eachAttempt: true },
  );
}
