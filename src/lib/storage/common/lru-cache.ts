/**
 * LruCache keeps values up to a byte budget and evicts the least recently used first. Sizes are
 * what the caller says an entry costs (an estimate of its heap use). Not thread-safe; JS is not
 * concurrent, and entries are immutable once stored.
 *
 * A hit on an entry already in the most recently used half is not moved to the end: the order
 * is kept by deleting and re-adding the key, which cost more than the lookup itself on a hot
 * path (the labels of every series a search returns). Eviction still takes the least recently
 * used half first.
 */
export class LruCache<V, K extends string | number = string> {
  readonly maxBytes: number;
  #map = new Map<K, { value: V; bytes: number; at: number }>();
  // #clock counts insertions and moves; an entry's `at` is the count when it last reached the end.
  #clock = 0;
  #bytes = 0;
  hits = 0;
  misses = 0;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  get(key: K): V | undefined {
    const e = this.#map.get(key);
    if (e === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    if (this.#clock - e.at > this.#map.size >>> 1) {
      this.#map.delete(key);
      e.at = ++this.#clock;
      this.#map.set(key, e);
    }
    return e.value;
  }

  set(key: K, value: V, bytes: number): void {
    const old = this.#map.get(key);
    if (old) {
      this.#bytes -= old.bytes;
      this.#map.delete(key);
    }
    if (bytes > this.maxBytes) return;
    this.#map.set(key, { value, bytes, at: ++this.#clock });
    this.#bytes += bytes;
    while (this.#bytes > this.maxBytes) {
      const first = this.#map.keys().next();
      if (first.done) break;
      const e = this.#map.get(first.value)!;
      this.#bytes -= e.bytes;
      this.#map.delete(first.value);
    }
  }

  /** deletePrefix drops every entry whose key starts with prefix (a part that went away). */
  deletePrefix(prefix: string): void {
    for (const [k, e] of this.#map) {
      if (typeof k === 'string' && k.startsWith(prefix)) {
        this.#bytes -= e.bytes;
        this.#map.delete(k);
      }
    }
  }

  get size(): number {
    return this.#map.size;
  }

  get bytes(): number {
    return this.#bytes;
  }
}
