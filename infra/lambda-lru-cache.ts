/**
 * Stand-in for mnemonist/lru-cache in Lambda bundles (see bundling.ts): the DynamoDB client's
 * endpoint-discovery cache (@aws-sdk/endpoint-cache) is the only user, and it needs get, peek, set,
 * has and clear. Mnemonist's typed-array cache and its iterator helpers cost ~7 KiB in every bundle;
 * a Map in insertion order is a least-recently-used list of its own (a read moves the key to the end).
 */
export default class LruCache<K, V> {
  private readonly items = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.items.size;
  }

  has(key: K): boolean {
    return this.items.has(key);
  }

  /** The value without making it the most recently used. */
  peek(key: K): V | undefined {
    return this.items.get(key);
  }

  get(key: K): V | undefined {
    if (!this.items.has(key)) return undefined;
    const value = this.items.get(key)!;
    this.items.delete(key);
    this.items.set(key, value);
    return value;
  }

  set(key: K, value: V): this {
    this.items.delete(key);
    this.items.set(key, value);
    if (this.items.size > this.capacity) this.items.delete(this.items.keys().next().value!);
    return this;
  }

  clear(): void {
    this.items.clear();
  }
}
