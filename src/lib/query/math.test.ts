import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareNaNFirst, formatGoFloat, KahanSum, kth, linearRegression, mean, quantile, variance } from './math.ts';

// Reference quantile: sort everything (NaN first) and interpolate.
function sortedQuantile(q: number, vals: number[]): number {
  if (vals.length === 0 || q !== q) return NaN;
  if (q < 0) return -Infinity;
  if (q > 1) return Infinity;
  const v = [...vals].sort(compareNaNFirst);
  const rank = q * (v.length - 1);
  const lo = Math.max(0, Math.floor(rank));
  const up = Math.min(v.length - 1, lo + 1);
  const w = rank - Math.floor(rank);
  return v[lo]! * (1 - w) + v[up]! * w;
}

describe('quantile', () => {
  const f = (q: number, vals: number[], want: number): void => {
    expect(quantile(q, vals)).toBe(want);
  };
  it('interpolates between closest ranks, NaN first', () => {
    f(0.5, [3, 1, 2], 2);
    f(0.25, [4, 7, 10], 5.5);
    f(0, [NaN, 1], NaN);
    f(1, [NaN, 1], 1);
    f(-1, [1], -Infinity);
    f(2, [1], Infinity);
    f(0.5, [], NaN);
  });
  it('agrees with a full sort (property)', () => {
    const value = fc.oneof(fc.double(), fc.integer({ min: -3, max: 3 }));
    fc.assert(fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fc.array(value, { maxLength: 40 }), (q, vals) => {
      expect(Object.is(quantile(q, vals), sortedQuantile(q, vals)) || Math.abs(quantile(q, vals) - sortedQuantile(q, vals)) < 1e-9).toBe(true);
    }));
  });
});

describe('kth', () => {
  it('selects the k-th smallest', () => {
    fc.assert(fc.property(fc.array(fc.double({ noNaN: true }), { minLength: 1, maxLength: 50 }), fc.nat(), (vals, k0) => {
      const k = k0 % vals.length;
      // === rather than Object.is: -0 and 0 tie, and either may come first (as in Prometheus' sort).
      expect(kth(Float64Array.from(vals), k) === Float64Array.from(vals).sort()[k]).toBe(true);
    }));
  });
});

describe('numeric helpers', () => {
  it('sums with compensation and keeps infinities', () => {
    const k = new KahanSum();
    for (const x of [1e16, 1, -1e16, 1]) k.add(x);
    expect(k.value()).toBe(2);
    const inf = new KahanSum();
    for (const x of [Infinity, 1]) inf.add(x);
    expect(inf.value()).toBe(Infinity);
  });
  it('averages without overflowing and computes variances', () => {
    expect(mean(Float64Array.of(1.7976931348623157e308, 1.7976931348623157e308), 0, 2)).toBe(1.7976931348623157e308);
    expect(mean(Float64Array.of(1, 2, 3, 4), 1, 4)).toBe(3);
    expect(variance(Float64Array.of(2, 4, 4, 4, 5, 5, 7, 9), 0, 8)).toBe(4);
  });
  it('fits lines and reports constant series', () => {
    expect(linearRegression(Float64Array.of(0, 1000, 2000), Float64Array.of(1, 3, 5), 0, 3, 0)).toEqual([2, 1]);
    expect(linearRegression(Float64Array.of(0, 1000), Float64Array.of(Infinity, Infinity), 0, 2, 0)).toEqual([NaN, NaN]);
  });
  it('formats like Go without exponents', () => {
    const f = (v: number, want: string): void => void expect(formatGoFloat(v)).toBe(want);
    f(1e21, '1000000000000000000000');
    f(1.5e-7, '0.00000015');
    f(-2.5, '-2.5');
    f(Infinity, '+Inf');
    f(NaN, 'NaN');
  });
});
