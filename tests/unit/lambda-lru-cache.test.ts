/** The LRU that stands in for mnemonist's in bundles (infra/lambda-lru-cache.ts), as the endpoint cache uses it. */
import { describe, expect, it } from 'vitest';
import LruCache from '../../infra/lambda-lru-cache';

describe('LruCache', () => {
  it('keeps at most its capacity, dropping the least recently read or written', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1).set('b', 2);
    expect(cache.get('a')).toBe(1); // a is now the most recent
    cache.set('c', 3);
    expect([cache.has('a'), cache.has('b'), cache.has('c')]).toEqual([true, false, true]);
    expect(cache.size).toBe(2);
  });

  it('peek reads without refreshing; set of a known key replaces it and refreshes it', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1).set('b', 2);
    expect(cache.peek('a')).toBe(1);
    cache.set('c', 3);
    expect(cache.has('a')).toBe(false);
    cache.set('b', 20).set('d', 4);
    expect(cache.peek('b')).toBe(20);
    expect(cache.has('c')).toBe(false);
    expect(cache.get('missing')).toBeUndefined();
    cache.clear();
    expect(cache.size).toBe(0);
  });
});
