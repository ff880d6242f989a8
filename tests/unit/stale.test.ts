/** The optimistic writes' loop (shared/middleware/stale.ts), on fake timers. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WRITE_ATTEMPTS, retryWhileStale } from '../../shared/middleware/stale';
import { StaleTicket } from '../../shared/store/tickets';
import { ServiceUnavailable } from '../../shared/domain/errors';
import { logger } from '../../shared/observability';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('retryWhileStale', () => {
  it('tries again after a lost write, with the attempt number, until one lands', async () => {
    const seen: number[] = [];
    const result = retryWhileStale((n) => {
      seen.push(n);
      return n < 3 ? Promise.reject(new StaleTicket()) : Promise.resolve('stored');
    });
    await vi.runAllTimersAsync();
    expect(await result).toBe('stored');
    expect(seen).toEqual([1, 2, 3]);
  });

  it(`answers 503 after ${WRITE_ATTEMPTS} lost writes, and logs why`, async () => {
    const warn = vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
    let attempts = 0;
    const result = retryWhileStale(() => {
      attempts++;
      return Promise.reject(new StaleTicket());
    });
    const settled = result.catch((error: unknown) => error);
    await vi.runAllTimersAsync();
    expect(await settled).toBeInstanceOf(ServiceUnavailable);
    expect(attempts).toBe(WRITE_ATTEMPTS);
    expect(warn).toHaveBeenCalledExactlyOnceWith('a write lost to concurrent writers at every attempt', {
      attempts: WRITE_ATTEMPTS,
    });
  });

  it('lets any other error through at once, and takes what counts as lost from the caller', async () => {
    await expect(retryWhileStale(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    let attempts = 0;
    const result = retryWhileStale(
      () => (++attempts === 1 ? Promise.reject(new RangeError('lost')) : Promise.resolve(attempts)),
      (error) => error instanceof RangeError,
    );
    await vi.runAllTimersAsync();
    expect(await result).toBe(2);
  });
});
