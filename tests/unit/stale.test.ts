/** The optimistic writes' loop (shared/middleware/stale.ts), on fake timers. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WRITE_ATTEMPTS, retryWhileStale } from '../../shared/middleware/stale';
import { StaleTicket } from '../../shared/store/tickets';
import { ServiceUnavailable } from '../../shared/domain/errors';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('retryWhileStale', () => {
  it('tries again after a lost write, with the attempt number, until one lands', async () => {
    const seen: number[] = [];
    const result = retryWhileStale(async (n) => {
      seen.push(n);
      if (n < 3) throw new StaleTicket();
      return 'stored';
    });
    await vi.runAllTimersAsync();
    expect(await result).toBe('stored');
    expect(seen).toEqual([1, 2, 3]);
  });

  it(`answers 503 after ${WRITE_ATTEMPTS} lost writes`, async () => {
    let attempts = 0;
    const result = retryWhileStale(async () => {
      attempts++;
      throw new StaleTicket();
    });
    const settled = result.catch((error: unknown) => error);
    await vi.runAllTimersAsync();
    expect(await settled).toBeInstanceOf(ServiceUnavailable);
    expect(attempts).toBe(WRITE_ATTEMPTS);
  });

  it('lets any other error through at once, and takes what counts as lost from the caller', async () => {
    await expect(retryWhileStale(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    let attempts = 0;
    const result = retryWhileStale(
      async () => {
        if (++attempts === 1) throw new RangeError('lost');
        return attempts;
      },
      (error) => error instanceof RangeError,
    );
    await vi.runAllTimersAsync();
    expect(await result).toBe(2);
  });
});
