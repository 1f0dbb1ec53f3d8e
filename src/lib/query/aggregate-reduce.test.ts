import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { STREAM_AGGREGATES } from './aggregate-reduce.ts';
import { mean } from './math.ts';

// The accumulators' loops are written for speed (a loop without first-point or overflow branches
// once no step needs them); these references spell Prometheus' per-step arithmetic one step at a
// time, and the accumulators must agree with them bit for bit.

// Prometheus' sum: Kahan–Neumaier, the compensation dropped at an infinite sum.
function referenceSum(xs: number[]): number {
  let s = xs[0]!;
  let c = 0;
  for (const x of xs.slice(1)) {
    const t = s + x;
    if (t === Infinity || t === -Infinity) c = 0;
    else if (Math.abs(s) >= Math.abs(x)) c += s - t + x;
    else c += x - t + s;
    s = t;
  }
  return s + c;
}

// Prometheus' avg (the compensated sum while it stays finite, then an incremental mean) is
// math.ts' mean, which avg_over_time uses.
const referenceAvg = (xs: number[]): number => mean(Float64Array.from(xs), 0, xs.length);

// Values that overflow a sum (near ±MAX_VALUE), infinities, NaN, and ordinary rates.
const value = fc.oneof(
  { weight: 6, arbitrary: fc.double({ min: -1e6, max: 1e6, noNaN: true }) },
  { weight: 2, arbitrary: fc.constantFrom(Number.MAX_VALUE, -Number.MAX_VALUE, 1.5e308, Infinity, -Infinity, NaN, 0, -0) },
  { weight: 1, arbitrary: fc.double() },
);
// Series of a few steps, each step present or not.
const group = fc.integer({ min: 1, max: 6 }).chain((n) => fc.array(fc.array(fc.option(value, { nil: undefined, freq: 4 }), { minLength: n, maxLength: n }), { minLength: 1, maxLength: 12 }));
// The same with no point at the first step in any series, as a rate's first window of a range
// query: the accumulators must not wait for every step to be seen before their fast loops.
const groupFirstEmpty = group.map((series) => series.map((s) => [undefined, ...s]));

function check(op: 'sum' | 'avg', reference: (xs: number[]) => number, groups = group): void {
  fc.assert(fc.property(groups, (series) => {
    const n = series[0]!.length;
    const acc = STREAM_AGGREGATES[op]!;
    if (acc.kind !== 'stream') throw new Error(`${op} is not a stream aggregate`);
    const a = acc.create(n);
    // The same arrays refilled for each series, as a rollup's sink hands them over.
    const values = new Float64Array(n);
    const present = new Uint8Array(n);
    for (const s of series) {
      for (let i = 0; i < n; i++) {
        present[i] = s[i] === undefined ? 0 : 1;
        values[i] = s[i] ?? 12345;
      }
      a.add(present, values);
    }
    const got = a.finish();
    for (let i = 0; i < n; i++) {
      const xs = series.map((s) => s[i]).filter((x): x is number => x !== undefined);
      expect(got.present[i]).toBe(xs.length > 0 ? 1 : 0);
      if (xs.length > 0) expect(Object.is(got.values[i], reference(xs)) || (Number.isNaN(got.values[i]) && Number.isNaN(reference(xs))), `step ${i}: ${got.values[i]} vs ${reference(xs)} from ${xs.join(', ')}`).toBe(true);
    }
  }), { numRuns: 3_000 });
}

describe('streaming accumulators', () => {
  it('sum agrees with the per-step compensated sum', () => check('sum', referenceSum));
  it('avg agrees with the per-step sum-then-mean', () => check('avg', referenceAvg));
  it('sum agrees with it when a step has no point in any series', () => check('sum', referenceSum, groupFirstEmpty));
  it('avg agrees with it when a step has no point in any series', () => check('avg', referenceAvg, groupFirstEmpty));
});
