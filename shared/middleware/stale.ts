/**
 * The optimistic writes' loop, for handlers: a write conditional on what was read loses when another
 * writer changed it first; it then pauses (exponential backoff with jitter, so contenders spread
 * out), reads again and retries, and after WRITE_ATTEMPTS answers 503 with Retry-After.
 */
import { ServiceUnavailable } from '../domain/errors';
import { StaleTicket } from '../store/tickets';
import { backOff } from '../store/transact';
import { logger } from '../observability';

export const WRITE_ATTEMPTS = 8;

/**
 * Runs `attempt(1)`, `attempt(2)`... until one does not throw an error `lost` accepts (by default a
 * StaleTicket): the attempt re-reads what it writes from when its number is above 1.
 */
export async function retryWhileStale<T>(
  attempt: (n: number) => Promise<T>,
  lost: (error: unknown) => boolean = (e) => e instanceof StaleTicket,
): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      if (!lost(error)) throw error;
      if (n === WRITE_ATTEMPTS) {
        // Why, for the operator: the client sees a retryable 503, as for a dependency that is down.
        logger.warn('a write lost to concurrent writers at every attempt', { attempts: n });
        throw new ServiceUnavailable();
      }
      await backOff(n);
    }
  }
}
