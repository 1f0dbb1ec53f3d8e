import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NO_FORCED_ARGS } from '../../lib/httpproxy/index.ts';
import { ENTRY_OVERHEAD_BYTES, TokenCache, type TokenEntry } from './token-cache.ts';

const entry = (expMs = Infinity): TokenEntry => ({
  claims: { exp: expMs / 1000, tenant: { accountID: 0, projectID: 0 }, extraLabels: undefined, extraFilters: undefined, mode: 'full' },
  expMs, readArgs: NO_FORCED_ARGS, writeArgs: NO_FORCED_ARGS,
});
const cost = (token: string) => token.length + ENTRY_OVERHEAD_BYTES;

describe('TokenCache', () => {
  it('drops the oldest entry when the entry count is reached', () => {
    const c = new TokenCache(2);
    c.set('a', entry());
    c.set('b', entry());
    c.set('c', entry());
    expect([c.get('a', 0), c.get('b', 0) !== undefined, c.get('c', 0) !== undefined]).toEqual([undefined, true, true]);
    expect(c.size).toBe(2);
  });

  it('drops the oldest entries when the byte bound is reached, counting each token\'s length', () => {
    const big = 'x'.repeat(8192);
    const c = new TokenCache(10_000, 3 * cost(big));
    for (const t of ['1', '2', '3'].map((p) => p + big.slice(1))) c.set(t, entry());
    expect(c.size).toBe(3);
    c.set('small', entry());
    // The oldest big token made room for the small one.
    expect(c.get(`1${big.slice(1)}`, 0)).toBeUndefined();
    expect(c.get(`2${big.slice(1)}`, 0)).toBeDefined();
    expect(c.bytes).toBe(2 * cost(big) + cost('small'));
  });

  it('does not keep a token larger than the whole byte bound', () => {
    const c = new TokenCache(10, cost('abc') - 1);
    c.set('abc', entry());
    expect(c.size).toBe(0);
    expect(c.bytes).toBe(0);
  });

  it('drops an expired entry on get and gives its bytes back', () => {
    const c = new TokenCache(10, 1 << 20);
    c.set('old', entry(1_000));
    expect(c.get('old', 999)).toBeDefined();
    expect(c.get('old', 1_000)).toBeUndefined();
    expect([c.size, c.bytes]).toEqual([0, 0]);
  });

  it('counts a token set twice once, and clear empties it', () => {
    const c = new TokenCache(10, 1 << 20);
    c.set('t', entry());
    c.set('t', entry());
    expect([c.size, c.bytes]).toEqual([1, cost('t')]);
    c.clear();
    expect([c.size, c.bytes]).toEqual([0, 0]);
  });

  it('stays within both bounds and accounts exactly, whatever tokens clients send', () => {
    fc.assert(fc.property(
      fc.integer({ min: 0, max: 8 }), fc.integer({ min: 0, max: 6 * ENTRY_OVERHEAD_BYTES }),
      fc.array(fc.tuple(fc.string({ maxLength: 3000 }), fc.boolean()), { maxLength: 60 }),
      (maxEntries, maxBytes, ops) => {
        const c = new TokenCache(maxEntries, maxBytes);
        const model = new Map<string, true>();
        for (const [token, expired] of ops) {
          if (expired) {
            c.get(token, 0);
            continue;
          }
          c.set(token, entry());
          expect(c.get(token, 0) !== undefined).toBe(maxEntries > 0 && cost(token) <= maxBytes);
          model.set(token, true);
          expect(c.size).toBeLessThanOrEqual(maxEntries);
          expect(c.bytes).toBeLessThanOrEqual(maxBytes);
        }
        let sum = 0;
        for (const t of model.keys()) if (c.get(t, 0) !== undefined) sum += cost(t);
        expect(c.bytes).toBe(sum);
      },
    ));
  });
});
