import { type ForcedArgs } from '../../lib/httpproxy/index.ts';
import { type Claims } from './claims.ts';

/** TokenEntry is a verified token with what it forces on requests, computed once. */
export interface TokenEntry {
  readonly claims: Claims;
  /** expMs is the expiry in ms since the epoch. */
  readonly expMs: number;
  readonly readArgs: ForcedArgs;
  readonly writeArgs: ForcedArgs;
}

/**
 * TokenCache keeps verified tokens until they expire, so a signature is checked once per token, not
 * once per request. It holds at most maxEntries; when full, the oldest entry goes. Cleared when the
 * verification keys change, so a key that was removed stops admitting its tokens at once.
 */
export class TokenCache {
  readonly #max: number;
  readonly #entries = new Map<string, TokenEntry>();

  constructor(maxEntries: number) {
    this.#max = maxEntries;
  }

  /** get returns the entry of a token that has not expired at nowMs; an expired one is dropped. */
  get(token: string, nowMs: number): TokenEntry | undefined {
    const e = this.#entries.get(token);
    if (e === undefined) return undefined;
    if (e.expMs <= nowMs) {
      this.#entries.delete(token);
      return undefined;
    }
    return e;
  }

  set(token: string, e: TokenEntry): void {
    if (this.#max <= 0) return;
    if (this.#entries.size >= this.#max && !this.#entries.has(token)) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
    this.#entries.set(token, e);
  }

  clear(): void {
    this.#entries.clear();
  }

  get size(): number {
    return this.#entries.size;
  }
}
