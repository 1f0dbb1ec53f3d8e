import type { ForcedArgs } from '../../lib/httpproxy/index.ts';
import type { Claims } from './claims.ts';

/** TokenEntry is a verified token with what it forces on requests, computed once. */
export interface TokenEntry {
  readonly claims: Claims;
  /** expMs is the expiry in ms since the epoch. */
  readonly expMs: number;
  readonly readArgs: ForcedArgs;
  readonly writeArgs: ForcedArgs;
}

/**
 * ENTRY_OVERHEAD_BYTES is what an entry costs besides its token's text: the Map slot, the claims
 * and forced args (measured ~550 bytes with two extra labels and a filter), rounded up.
 */
export const ENTRY_OVERHEAD_BYTES = 1024;

/**
 * TokenCache keeps verified tokens until they expire, so a signature is checked once per token, not
 * once per request. It holds at most maxEntries and at most maxBytes (each entry counted as its
 * token's length plus ENTRY_OVERHEAD_BYTES: tokens may be up to 8 KiB, so a count alone would let
 * 10,000 of them hold ~90 MiB); when either is reached, the oldest entries go. Cleared when the
 * verification keys change, so a key that was removed stops admitting its tokens at once.
 */
export class TokenCache {
  readonly #max: number;
  readonly #maxBytes: number;
  readonly #entries = new Map<string, TokenEntry>();
  #bytes = 0;

  constructor(maxEntries: number, maxBytes = Infinity) {
    this.#max = maxEntries;
    this.#maxBytes = maxBytes;
  }

  /** get returns the entry of a token that has not expired at nowMs; an expired one is dropped. */
  get(token: string, nowMs: number): TokenEntry | undefined {
    const e = this.#entries.get(token);
    if (e === undefined) return undefined;
    if (e.expMs <= nowMs) {
      this.#delete(token);
      return undefined;
    }
    return e;
  }

  set(token: string, e: TokenEntry): void {
    const cost = entryBytes(token);
    if (this.#max <= 0 || cost > this.#maxBytes) return;
    this.#delete(token);
    // Map iterates in insertion order: the first key is the oldest.
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size < this.#max && this.#bytes + cost <= this.#maxBytes) break;
      this.#delete(oldest);
    }
    this.#entries.set(token, e);
    this.#bytes += cost;
  }

  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }

  /** bytes is the accounted size of the entries (token lengths plus ENTRY_OVERHEAD_BYTES each). */
  get bytes(): number {
    return this.#bytes;
  }

  #delete(token: string): void {
    if (this.#entries.delete(token)) this.#bytes -= entryBytes(token);
  }

  get size(): number {
    return this.#entries.size;
  }
}

const entryBytes = (token: string): number => token.length + ENTRY_OVERHEAD_BYTES;
