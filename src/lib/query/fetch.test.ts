import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { STALE_NAN, isStaleNaN } from '../storageapi/index.ts';
import { withoutStale } from './fetch.ts';
import type { RawSeries } from './types.ts';

// The reference: every sample but the staleness markers, in order.
function reference(s: RawSeries): [number[], Float64Array] {
  const keep = [...s.values.keys()].filter((i) => !isStaleNaN(s.values[i]!));
  return [keep.map((i) => s.timestamps[i]!), Float64Array.from(keep, (i) => s.values[i]!)];
}

const bits = (a: Float64Array): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

describe('withoutStale', () => {
  it('drops exactly the staleness markers, whether or not the series says it holds no NaN', () => {
    const value = fc.oneof(fc.double({ noNaN: true }), fc.constantFrom<number | 'stale'>(NaN, 'stale', 0, -0, Infinity));
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 1, max: 60_000 }), value), { maxLength: 100 }), fc.constantFrom('told', 'absent', 'false'), (pairs, flag) => {
        let t = 0;
        const timestamps = Float64Array.from(pairs, ([d]) => (t += d));
        // Staleness markers set in the typed array: a JS array may canonicalise NaN payloads.
        const values = new Float64Array(pairs.length);
        pairs.forEach(([, v], i) => (values[i] = v === 'stale' ? STALE_NAN : v));
        const base = { labels: [], timestamps, values, dropName: false };
        // A searcher may only say so when it is true; otherwise it says nothing or false.
        const noNaN = !values.some((v) => Number.isNaN(v));
        const s: RawSeries = flag === 'told' ? { ...base, noNaN } : flag === 'false' ? { ...base, noNaN: false } : base;
        const got = withoutStale(s);
        const [ts, vs] = reference(s);
        expect([...got.timestamps]).toEqual(ts);
        expect(bits(got.values).equals(bits(vs))).toBe(true);
        expect(got.labels).toBe(s.labels);
        if (flag === 'told' && noNaN) expect(got).toBe(s);
      }),
      { numRuns: 1000 },
    );
  });
});
