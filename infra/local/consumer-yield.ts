/**
 * The stream consumer yields DynamoDB Local to the routes. DynamoDB Local runs a database's calls one at a time, in
 * the order they reach it, so each call the consumer has on the wire is work that a route's next call waits behind:
 * a batch of 14 creates' derived records is about 100 items, sent as several requests at once. While the routes are
 * at work (a call of theirs on the wire, or one ended less than ROUTES_QUIET_MS ago), the consumer's calls go one at
 * a time; once the routes are quiet, all of them at once. Only the consumer ever waits here: a route's call never
 * does. On AWS the consumer is a function of its own, on a table that serves both at once.
 *
 * Measured (2026-11-30, on disk, rounds of 400 creates at 8 in flight, two pairs alternating): warm creates 88 to
 * 115 a second against 60 to 72 without it (docs/local.md).
 */
import type { DynamoInterceptor } from '../../shared/aws/dynamodb';

/** The routes count as at work this long after their last call ended (the gap between one create's calls). */
export const ROUTES_QUIET_MS = 50;

export interface ConsumerYield {
  interceptor: DynamoInterceptor;
  /** The consumer's calls waiting for their turn now (for tests). */
  waiting(): number;
}

/**
 * The interceptor (for the store's client) that holds the consumer's calls, told apart by `isConsumerCall`, one at
 * a time while the routes are at work.
 */
export function consumerYield(isConsumerCall: () => boolean, quietMs = ROUTES_QUIET_MS): ConsumerYield {
  let routeCalls = 0;
  let routesEndedAt = -Infinity;
  let consumerCalls = 0;
  const queue: (() => void)[] = [];
  let quietTimer: NodeJS.Timeout | undefined;

  const routesAtWork = () => routeCalls > 0 || performance.now() - routesEndedAt < quietMs;
  /** Lets the waiting calls go: the next one when none is on the wire, every one when the routes are quiet. */
  const admit = () => {
    while (queue.length && (consumerCalls === 0 || !routesAtWork())) {
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
    if (consumerCalls === 0 || !routesAtWork()) consumerCalls++;
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
