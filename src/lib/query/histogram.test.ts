import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bucketQuantile, type Bucket } from './histogram.ts';

// Prometheus' bucketQuantile spelled plainly: sort a copy by bound, add up buckets of the same
// bound, treat counts within a relative 1e-12 as equal, take the running maximum (a NaN count
// is left as it is), interpolate.
function reference(q: number, input: readonly Bucket[]): number {
  if (Number.isNaN(q)) return NaN;
  if (q < 0) return -Infinity;
  if (q > 1) return Infinity;
  const sorted = input.map((b) => ({ ...b })).sort((a, b) => a.upperBound - b.upperBound);
  if (sorted.length === 0 || sorted.at(-1)!.upperBound !== Infinity) return NaN;
  const b: Bucket[] = [];
  for (const x of sorted) {
    if (b.length > 0 && b.at(-1)!.upperBound === x.upperBound) b.at(-1)!.count += x.count;
    else b.push(x);
  }
  let prev = b[0]!.count;
  for (const x of b.slice(1)) {
    const delta = Math.abs(x.count - prev);
    if (delta === 0) continue;
    if (delta / x.count <= 1e-12) x.count = prev;
    else prev = x.count;
  }
  let max = b[0]!.count;
  for (const x of b.slice(1)) {
    if (x.count > max) max = x.count;
    else if (x.count < max) x.count = max;
  }
  if (b.length < 2 || b.at(-1)!.count === 0) return NaN;
  let rank = q * b.at(-1)!.count;
  const i = b.findIndex((x) => x.count >= rank);
  if (i < 0 || i === b.length - 1) return b.at(-2)!.upperBound;
  if (i === 0 && b[0]!.upperBound <= 0) return b[0]!.upperBound;
  const start = i === 0 ? 0 : b[i - 1]!.upperBound;
  let count = b[i]!.count;
  if (i > 0) {
    count -= b[i - 1]!.count;
    rank -= b[i - 1]!.count;
  }
  return start + (b[i]!.upperBound - start) * (rank / count);
}

// Bounds from a small set (so some repeat) with +Inf most of the time; counts that rise, fall,
// repeat, sit within 1e-12 of each other, or are NaN.
const bound = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(-1, 0, 0.005, 0.1, 0.25, 1, 2.5, 10, 100) }, { weight: 1, arbitrary: fc.double({ noNaN: true }) });
const count = fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 0, max: 1000 }) }, { weight: 1, arbitrary: fc.constantFrom(NaN, 1e15, 1e15 + 0.1, 0.5) });
const buckets = fc.tuple(fc.array(fc.tuple(bound, count), { maxLength: 12 }), fc.boolean(), count).map(([bs, inf, infCount]) => {
  const out = bs.map(([upperBound, c]) => ({ upperBound, count: c }));
  if (inf) out.push({ upperBound: Infinity, count: infCount });
  return out;
});
const q = fc.oneof({ weight: 8, arbitrary: fc.double({ min: 0, max: 1, noNaN: true }) }, { weight: 1, arbitrary: fc.constantFrom(0, 0.5, 1, -0.1, 1.1, NaN) });

const same = (a: number, b: number): boolean => Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b));

describe('bucketQuantile', () => {
  it('agrees with the plain reference, buckets in any order and already in order', () => {
    fc.assert(fc.property(q, buckets, fc.boolean(), (qv, bs, order) => {
      const input = order ? bs.slice().sort((a, b) => a.upperBound - b.upperBound) : bs;
      const want = reference(qv, input);
      const before = input.map((b) => [b, b.count] as const);
      const got = bucketQuantile(qv, input);
      expect(same(got, want), `${got} vs ${want} for q=${qv} ${JSON.stringify(input)}`).toBe(true);
      // The counts are never corrected in the caller's objects (unordered input is sorted in place).
      for (const [b, c] of before) expect(same(b.count, c)).toBe(true);
    }), { numRuns: 5_000 });
  });

  it('interpolates inside the bucket holding the rank', () => {
    const bs = [{ upperBound: 0.1, count: 10 }, { upperBound: 1, count: 30 }, { upperBound: Infinity, count: 40 }];
    expect(bucketQuantile(0.5, bs)).toBeCloseTo(0.1 + 0.9 * (10 / 20), 12);
    expect(bucketQuantile(0.9, bs)).toBe(1);
    expect(bucketQuantile(0.1, [{ upperBound: 1, count: 0 }, { upperBound: Infinity, count: 0 }])).toBeNaN();
  });
});
