/**
 * CacheGroup bounds the memory of a family of GenCaches (one per tenant and kind) by a shared
 * byte budget. When the entries added to current generations exceed half the budget, every
 * member rotates: its previous generation is dropped and the current one becomes previous. An
 * entry used since the last rotation survives the next one, so the working set stays cached
 * while memory never exceeds the budget (two generations of at most half each). This costs one
 * Map lookup per hit, unlike an LRU list that must be updated on every hit.
 */
export class CacheGroup {
  readonly maxBytes: number;
  #bytes = 0;
  readonly #members = new Set<GenCache<unknown>>();
  rotations = 0;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  /** add accounts for a new entry and rotates everything when over half the budget. */
  add(bytes: number): void {
    this.#bytes += bytes;
    if (this.#bytes > this.maxBytes / 2) {
      for (const m of this.#members) m.rotate();
      this.#bytes = 0;
      this.rotations++;
    }
  }

  register(c: GenCache<unknown>): void {
    this.#members.add(c);
  }

  /** hits and misses sum the members' counters. */
  get hits(): number {
    let n = 0;
    for (const m of this.#members) n += m.hits;
    return n;
  }

  get misses(): number {
    let n = 0;
    for (const m of this.#members) n += m.misses;
    return n;
  }

  /** entries counts entries over all members (both generations). */
  get entries(): number {
    let n = 0;
    for (const m of this.#members) n += m.size;
    return n;
  }

  /** bytes estimates the memory used: current generations plus the previous ones. */
  get bytes(): number {
    let n = 0;
    for (const m of this.#members) n += m.bytes;
    return n;
  }
}

/** GenCache is a two-generation cache from string keys to values; see CacheGroup. */
export class GenCache<V> {
  readonly #group: CacheGroup;
  #cur = new Map<string, V>();
  #prev = new Map<string, V>();
  #curBytes = 0;
  #prevBytes = 0;
  hits = 0;
  misses = 0;

  constructor(group: CacheGroup) {
    this.#group = group;
    group.register(this as GenCache<unknown>);
  }

  get(key: string): V | undefined {
    const v = this.#cur.get(key);
    if (v !== undefined) {
      this.hits++;
      return v;
    }
    const old = this.#prev.get(key);
    if (old === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.#put(key, old);
    return old;
  }

  set(key: string, value: V): void {
    this.#put(key, value);
  }

  #put(key: string, value: V): void {
    // Key characters plus Map entry and value overhead, roughly.
    const bytes = key.length + 96;
    this.#cur.set(key, value);
    this.#curBytes += bytes;
    this.#group.add(bytes);
  }

  rotate(): void {
    this.#prev = this.#cur;
    this.#prevBytes = this.#curBytes;
    this.#cur = new Map();
    this.#curBytes = 0;
  }

  /** clear drops every entry (after deletions, so no stale reference survives). */
  clear(): void {
    this.#cur = new Map();
    this.#prev = new Map();
    this.#curBytes = 0;
    this.#prevBytes = 0;
  }

  get size(): number {
    return this.#cur.size + this.#prev.size;
  }

  get bytes(): number {
    return this.#curBytes + this.#prevBytes;
  }
}

const LATIN1 = /^[\x00-\xff]*$/;

/**
 * ownString returns a copy of s in its own memory, for cache keys kept long: a substring in V8 may
 * be a slice that keeps its whole parent (a request body) alive.
 */
export function ownString(s: string): string {
  if (s.length < 13) return s; // V8 copies substrings this short instead of slicing
  return LATIN1.test(s) ? Buffer.from(s, 'latin1').toString('latin1') : Buffer.from(s, 'utf16le').toString('utf16le');
}
