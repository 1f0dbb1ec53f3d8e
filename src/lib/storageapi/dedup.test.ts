import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { dedupByInterval, normalizeSamples, resolveDuplicates, sortSamples, winsDuplicate } from './dedup.ts';
import { STALE_NAN, isStaleNaN } from './stale.ts';

const run = (pairs: [number, number][], dedupMs: number): [number, number][] => {
  const ts = Float64Array.from(pairs.map((p) => p[0]));
  const vals = Float64Array.from(pairs.map((p) => p[1]));
  const n = normalizeSamples(ts, vals, pairs.length, dedupMs);
  return Array.from({ length: n }, (_, i) => [ts[i]!, vals[i]!]);
};

describe('winsDuplicate', () => {
  it('is a total order: larger number, +0 over -0, NaN over numbers', () => {
    const f = (a: number, b: number, want: boolean) => expect(winsDuplicate(a, b)).toBe(want);
    f(2, 1, true);
    f(1, 2, false);
    f(1, 1, false);
    f(0, -0, true);
    f(-0, 0, false);
    f(NaN, Infinity, true);
    f(Infinity, NaN, false);
    f(NaN, STALE_NAN, true);
    f(STALE_NAN, NaN, false);
  });
});

describe('normalizeSamples', () => {
  it('sorts, keeps one value per timestamp and applies the dedup interval', () => {
    const f = (pairs: [number, number][], dedupMs: number, want: [number, number][]) => expect(run(pairs, dedupMs)).toEqual(want);
    // out of order input is sorted
    f([[30, 3], [10, 1], [20, 2]], 0, [[10, 1], [20, 2], [30, 3]]);
    // duplicates keep the larger value whatever the order
    f([[10, 1], [10, 5], [10, 3]], 0, [[10, 5]]);
    f([[10, 5], [10, 1]], 0, [[10, 5]]);
    // windows are (k·d - d, k·d]: the last sample of each window stays
    f([[1, 1], [5, 2], [10, 3], [11, 4], [19, 5], [20, 6], [21, 7]], 10, [[10, 3], [20, 6], [21, 7]]);
    f([[-15, 1], [-10, 2], [-9, 3]], 10, [[-10, 2], [-9, 3]]);
    f([[5, 1]], 10, [[5, 1]]);
  });

  it('keeps a staleness marker bit-exact through sorting', () => {
    const ts = Float64Array.from([20, 10]);
    const vals = Float64Array.from([0, 1]);
    vals[0] = STALE_NAN;
    normalizeSamples(ts, vals, 2, 0);
    expect(isStaleNaN(vals[1]!)).toBe(true);
  });

  it('gives the same result whether data is normalised in pieces or at once (merge order does not matter)', () => {
    const sample = fc.tuple(fc.integer({ min: 0, max: 200 }), fc.integer({ min: -5, max: 5 }));
    fc.assert(
      fc.property(fc.array(sample), fc.array(sample), fc.constantFrom(0, 7, 30), (a, b, d) => {
        const whole = run([...a, ...b], d);
        const pieces = run([...run(a, d), ...run(b, d)], d);
        const swapped = run([...run(b, d), ...run(a, d)], d);
        expect(pieces).toEqual(whole);
        expect(swapped).toEqual(whole);
      }),
    );
  });

  it('resolveDuplicates and dedupByInterval handle tiny inputs', () => {
    expect(resolveDuplicates(new Float64Array(0), new Float64Array(0), 0)).toBe(0);
    expect(dedupByInterval(Float64Array.from([1]), Float64Array.from([1]), 1, 5)).toBe(1);
  });
});

describe('sortSamples', () => {
  // The reference: a stable sort by timestamp of (timestamp, value bits) pairs.
  const reference = (ts: number[], bits: [number, number][]): [number, number, number][] =>
    ts.map((t, i) => ({ t, i })).sort((x, y) => x.t - y.t || x.i - y.i).map(({ t, i }) => [t, bits[i]![0], bits[i]![1]]);
  const sorted = (ts: number[], bits: [number, number][]): [number, number, number][] => {
    const n = ts.length;
    const t = Float64Array.from(ts);
    const v = new Float64Array(n);
    const vb = new Uint32Array(v.buffer);
    bits.forEach(([lo, hi], i) => { vb[2 * i] = lo; vb[2 * i + 1] = hi; });
    sortSamples(t, v, n);
    return Array.from({ length: n }, (_, i) => [t[i]!, vb[2 * i]!, vb[2 * i + 1]!]);
  };
  const word = fc.integer({ min: 0, max: 0xffffffff });
  // Values as raw bits, staleness markers and other NaN payloads among them.
  const bitsOf = (n: number) => fc.array(fc.oneof(fc.tuple(word, word), fc.constant<[number, number]>([2, 0x7ff00000]), fc.tuple(word, fc.constant(0x7ff80000))), { minLength: n, maxLength: n });

  it('is a stable sort moving value bits, for nearly sorted input (few displaced samples)', () => {
    const input = fc.integer({ min: 0, max: 300 }).chain((n) => fc.tuple(
      fc.array(fc.tuple(fc.nat(Math.max(0, n - 1)), fc.nat(Math.max(0, n - 1))), { maxLength: 4 }),
      fc.integer({ min: 0, max: 3 }),
      bitsOf(n),
    ).map(([swaps, dupEvery, bits]) => {
      const ts = Array.from({ length: n }, (_, i) => 1000 + 15 * (dupEvery > 0 ? Math.floor(i / dupEvery) * dupEvery : i));
      for (const [a, b] of swaps) if (a < n && b < n) [ts[a], ts[b]] = [ts[b]!, ts[a]!];
      return { ts, bits };
    }));
    fc.assert(fc.property(input, ({ ts, bits }) => {
      expect(sorted(ts, bits)).toEqual(reference(ts, bits));
    }));
  });

  it('is a stable sort moving value bits, for samples moved a few places (two requests of adjacent scrapes interleaved)', () => {
    // Moves of 1..6 places straddle the local-disorder limit, so both sorts are taken.
    const input = fc.integer({ min: 0, max: 120 }).chain((n) => fc.tuple(
      fc.array(fc.tuple(fc.nat(Math.max(0, n - 1)), fc.integer({ min: 1, max: 6 })), { maxLength: 12 }),
      fc.integer({ min: 0, max: 2 }),
      bitsOf(n),
    ).map(([moves, dupEvery, bits]) => {
      const ts = Array.from({ length: n }, (_, i) => 1000 + 15 * (dupEvery > 0 ? Math.floor(i / dupEvery) * dupEvery : i));
      for (const [at, by] of moves) {
        if (at < by) continue;
        const [t] = ts.splice(at, 1);
        ts.splice(at - by, 0, t!);
      }
      return { ts, bits };
    }));
    fc.assert(fc.property(input, ({ ts, bits }) => {
      expect(sorted(ts, bits)).toEqual(reference(ts, bits));
    }), { numRuns: 500 });
  });

  it('is a stable sort moving value bits, for any order (past the insertion budget too)', () => {
    const input = fc.integer({ min: 0, max: 400 }).chain((n) => fc.tuple(fc.array(fc.integer({ min: -50, max: 50 }), { minLength: n, maxLength: n }), bitsOf(n)));
    fc.assert(fc.property(input, ([ts, bits]) => {
      expect(sorted(ts, bits)).toEqual(reference(ts, bits));
    }));
    const n = 5000;
    const ts = Array.from({ length: n }, (_, i) => n - i);
    const bits = Array.from({ length: n }, (_, i): [number, number] => [i, 0x7ff00000]);
    expect(sorted(ts, bits)).toEqual(reference(ts, bits));
  });

  it('is a stable sort moving value bits, for ascending runs in any order (parts and buffers a search reads)', () => {
    const run = fc.tuple(fc.integer({ min: 0, max: 3000 }), fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 200 }))
      .map(([start, steps]) => steps.reduce<number[]>((acc, d) => [...acc, (acc.length ? acc[acc.length - 1]! : start) + d], []));
    const input = fc.array(run, { maxLength: 40 }).chain((runs) => {
      const ts = runs.flat();
      return fc.tuple(fc.constant(ts), bitsOf(ts.length));
    });
    fc.assert(fc.property(input, ([ts, bits]) => {
      expect(sorted(ts, bits)).toEqual(reference(ts, bits));
    }));
  });

  it('sorts runs longer than the kept scratch, and reuses the scratch after it', () => {
    const n = 70000;
    const half = n / 2;
    // Two parts read newest first: [half..n) then [0..half), and one duplicate timestamp per part.
    const ts = Array.from({ length: n }, (_, i) => (i < half ? half + i : i - half) * 10);
    ts[1] = ts[0]!;
    const bits = Array.from({ length: n }, (_, i): [number, number] => [i, 0x7ff00000]);
    expect(sorted(ts, bits)).toEqual(reference(ts, bits));
    const small = [50, 60, 70, 10, 20, 30, 40, 20];
    const smallBits = small.map((_, i): [number, number] => [i, 7]);
    expect(sorted(small, smallBits)).toEqual(reference(small, smallBits));
  });
});
