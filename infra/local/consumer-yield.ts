/**
 * The stream consumer yields DynamoDB Local to the routes. DynamoDB Local runs a database's calls one at a time, in
 * the order they reach it, so each call the consumer has on the wire is work that a route's next call waits behind:
 * a batch of 14 creates' derived records is about 100 items, sent as several requests at once. While the routes are
 * at work (a call of theirs on the wire, or one ended less than ROUTES_QUIET_MS ago; any call but the consumer's
 * counts, the file sweeper's and the mail poller's too), the consumer's calls go one at a time; once the routes are
 * quiet, all of them at once. Only the consumer ever waits here: a route's call never does. It yields only while it
 * is not behind (`yields`: the stream's batch in hand was read less than YIELD_MAX_MS ago), so that under writes
 * that never stop (an import, a load test) it still keeps up with them. On AWS the consumer is a function of its
 * own, on a table that serves both at once.
 *
 * Measured with `npm run bench -- --burst` (2026-11-30, on disk, two pairs alternating): warm creates at 8 in flight
 * 68 and 84 a second against 58 and 63 without it, GETs alike; the cost, derived state applied 2.6-3.0 s after a
 * phase's last create against 1.0-1.3 s (docs/local.md). Without YIELD_MAX_MS, the full bench's seeding of 20,000
 * tickets (written without a pause, its progress polled) took about twice as long: the consumer trickled behind it.
 */
import type { DynamoInterceptor } from '../../shared/aws/dynamodb';

/** The routes count as at work this long after their last call ended (the gap between one create's calls). */
export const ROUTES_QUIET_MS = 50;
/**
 * A batch the consumer read longer ago than this is applied at full speed, the routes at work or not. At 2 s, the
 * burst bench's GETs, which run while the consumer applies the creates before them, measured 215 and 285 a second
 * (that backlog then went at full speed ahead of them); at 5 s, 366 beside 81 creates a second (docs/local.md).
 */
export const YIELD_MAX_MS = 5000;

export interface ConsumerYield {
  interceptor: DynamoInterceptor;
  /** The consumer's calls waiting for their turn now (for tests). */
  waiting(): number;
}

/**
 * The interceptor (for the store's client) that holds the consumer's calls, told apart by `isConsumerCall`, one at
 * a time while the routes are at work and `yields()` says the consumer may.
 */
export function consumerYield(
  isConsumerCall: () => boolean,
  yields: () => boolean = () => true,
  quietMs = ROUTES_QUIET_MS,
): ConsumerYield {
  let routeCalls = 0;
  let routesEndedAt = -Infinity;
  let consumerCalls = 0;
  const queue: (() => void)[] = [];
  let quietTimer: NodeJS.Timeout | undefined;

  const holdsConsumer = () => (routeCalls > 0 || performance.now() - routesEndedAt < quietMs) && yields();
  /** Lets the waiting calls go: the next one when none is on the wire, every one when the routes are quiet. */
  const admit = () => {
    while (queue.length && (consumerCalls === 0 || !holdsConsumer())) {
      consumerCalls++;
      queue.shift()!();
    }
    if (queue.length && routeCalls === 0 && !quietTimer) {
      quietTimer = setTimeout(
        () => {
          quietTimer = undefined;
          admit();
        },
        Math.max(0, routesEndedAt + quietMs - performance.now()),
      );
    }
  };

  const interceptor: DynamoInterceptor = async (_call, next) => {
    if (!isConsumerCall()) {
      routeCalls++;
      try {
        return await next();
      } finally {
        routeCalls--;
        routesEndedAt = performance.now();
        admit();
      }
    }
    if (consumerCalls === 0 || !holdsConsumer()) consumerCalls++;
    else await new Promise<void>((turn) => queue.push(turn));
    try {
      return await next();
    } finally {
      consumerCalls--;
      admit();
    }
  };
  return { interceptor, waiting: () => queue.length };
}
