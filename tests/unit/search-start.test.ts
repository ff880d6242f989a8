/**
 * A search that meets an engine still starting (the embedded one takes seconds, more on a busy
 * machine) answers 503 with Retry-After after a short wait, rather than running past the route's
 * timeout into API Gateway's 500. The engine that never becomes ready is the fault injected.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

vi.mock('../../shared/search/engine', () => ({ searchEngine: () => new Promise(() => undefined) }));
const { searchTickets } = await import('../../shared/search/search');
const { parseSearch } = await import('../../shared/domain/search');
const { HttpError } = await import('../../shared/domain/errors');

afterEach(() => vi.useRealTimers());

describe('a search while the engine starts', () => {
  it('answers 503 with Retry-After once it has waited 5 s, not before', async () => {
    vi.useFakeTimers();
    let settled = false;
    const search = searchTickets(parseSearch('laptop')!, {}, 'relevance', {}, { page: 1, pageSize: 25 }).finally(
      () => (settled = true),
    );
    const outcome = search.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(4_900);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    const error = await outcome;
    expect(error).toBeInstanceOf(HttpError);
    expect(error).toMatchObject({ status: 503, headers: { 'Retry-After': '5' } });
  });
});
