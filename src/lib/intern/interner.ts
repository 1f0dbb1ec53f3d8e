/** InternerOptions mirror -internStringMaxLen, -internStringCacheExpireDuration and -internStringDisableCache. */
export interface InternerOptions {
  /** maxLen: longer strings are returned as given, never cached. */
  readonly maxLen: number;
  /** expireMs: entries not looked up for this long are dropped at the next sweep. */
  readonly expireMs: number;
  readonly disabled: boolean;
  readonly now: () => number;
}

/**
 * StringInterner returns one shared instance for equal strings, so label names and values parsed
 * from millions of rows do not each keep their own copy while series caches hold them.
 */
export class StringInterner {
  readonly #o: InternerOptions;
  readonly #entries = new Map<string, { s: string; lastUsed: number }>();
  #lastSweep: number;

  constructor(o: InternerOptions) {
    this.#o = o;
    this.#lastSweep = o.now();
  }

  /** intern returns a canonical instance equal to s. */
  intern(s: string): string {
    if (this.#o.disabled || s.length > this.#o.maxLen) return s;
    const now = this.#o.now();
    if (now - this.#lastSweep >= this.#o.expireMs) this.#sweep(now);
    const e = this.#entries.get(s);
    if (e !== undefined) {
      e.lastUsed = now;
      return e.s;
    }
    this.#entries.set(s, { s, lastUsed: now });
    return s;
  }

  /** size is the number of cached strings. */
  get size(): number {
    return this.#entries.size;
  }

  #sweep(now: number): void {
    this.#lastSweep = now;
    for (const [k, e] of this.#entries) if (now - e.lastUsed >= this.#o.expireMs) this.#entries.delete(k);
  }
}
