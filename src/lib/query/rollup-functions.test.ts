import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { at, expectValues } from './_test-fixture.ts';
import { ROLLUP_FUNCTIONS } from './rollup-functions.ts';
import type { RollupWindow } from './rollup-window.ts';

// In the fixture, gauge{job="a"}[5m] at 10m holds 6 1 2 8 7 (at 6m…10m) and
// counter{job="a"}[5m] holds 60 70 80 90 100. Values below are worked out by hand.
const G = 'gauge{job="a"}[5m]';
const A = '{job="a"}';
const sd = Math.sqrt(7.76);

const CASES: Record<string, [query: string, want: Record<string, number>][]> = {
  // Extrapolation: the first sample is 60s after the window start (< 1.1 × the 60s gap), so the
  // change is extrapolated by 60s: 40 × 300/240 = 50.
  rate: [['rate(counter{job="a"}[5m])', { [A]: 50 / 300 }], ['rate(counter{job="b"}[5m])', { '{job="b"}': 50 / 300 }], ['rate(counter{job="a"}[5m] anchored)', { [A]: 50 / 300 }]],
  increase: [['increase(counter{job="a"}[5m])', { [A]: 50 }], ['increase(counter{job="b"}[10m])', { '{job="b"}': (85 * 600) / 540 }]],
  delta: [[`delta(${G})`, { [A]: 1.25 }], [`delta(${G} anchored)`, { [A]: 3 }]],
  irate: [['irate(counter{job="a"}[5m])', { [A]: 10 / 60 }]],
  idelta: [[`idelta(${G})`, { [A]: -1 }]],
  avg_over_time: [[`avg_over_time(${G})`, { [A]: 4.8 }]],
  count_over_time: [[`count_over_time(${G})`, { [A]: 5 }]],
  sum_over_time: [[`sum_over_time(${G})`, { [A]: 24 }]],
  min_over_time: [[`min_over_time(${G})`, { [A]: 1 }]],
  max_over_time: [[`max_over_time(${G})`, { [A]: 8 }]],
  ts_of_min_over_time: [[`ts_of_min_over_time(${G})`, { [A]: 420 }]],
  ts_of_max_over_time: [[`ts_of_max_over_time(${G})`, { [A]: 540 }]],
  first_over_time: [[`first_over_time(${G})`, { [`gauge${A}`]: 6 }]],
  last_over_time: [[`last_over_time(${G})`, { [`gauge${A}`]: 7 }]],
  ts_of_first_over_time: [[`ts_of_first_over_time(${G})`, { [A]: 360 }]],
  ts_of_last_over_time: [[`ts_of_last_over_time(${G})`, { [A]: 600 }]],
  quantile_over_time: [[`quantile_over_time(0.5, ${G})`, { [A]: 6 }], [`quantile_over_time(0.25, ${G})`, { [A]: 2 }]],
  stddev_over_time: [[`stddev_over_time(${G})`, { [A]: sd }]],
  stdvar_over_time: [[`stdvar_over_time(${G})`, { [A]: 7.76 }]],
  mad_over_time: [[`mad_over_time(${G})`, { [A]: 2 }]],
  present_over_time: [[`present_over_time(${G})`, { [A]: 1 }]],
  absent_over_time: [[`absent_over_time(${G})`, {}], ['absent_over_time(nope{job="x"}[5m])', { '{job="x"}': 1 }]],
  // Anchored windows start at the sample at or before the range start (4 at 5m).
  changes: [[`changes(${G})`, { [A]: 4 }], [`changes(${G} anchored)`, { [A]: 5 }]],
  resets: [[`resets(${G})`, { [A]: 2 }], [`resets(${G} anchored)`, { [A]: 2 }]],
  // Least squares over (0,6) (60,1) (120,2) (180,8) (240,7): slope 540/36000.
  deriv: [[`deriv(${G})`, { [A]: 0.015 }]],
  predict_linear: [[`predict_linear(${G}, 60)`, { [A]: 7.5 }]],
  double_exponential_smoothing: [[`double_exponential_smoothing(${G}, 0.5, 0.5)`, { [A]: 4.1875 }]],
  holt_winters: [[`holt_winters(${G}, 0.5, 0.5)`, { [A]: 4.1875 }]],
  // MetricsQL.
  median_over_time: [[`median_over_time(${G})`, { [A]: 6 }]],
  mode_over_time: [['mode_over_time(gauge{job="b"}[5m])', { '{job="b"}': 10 }]],
  rollup: [[`rollup(${G})`, { '{job="a",rollup="min"}': 1, '{job="a",rollup="max"}': 8, '{job="a",rollup="avg"}': 4.8 }], [`rollup(${G}, "max")`, { '{job="a",rollup="max"}': 8 }]],
  rollup_rate: [[`rollup_rate(${G}, "max")`, { '{job="a",rollup="max"}': 7 / 60 }]],
  rollup_deriv: [[`rollup_deriv(${G}, "min")`, { '{job="a",rollup="min"}': -5 / 60 }]],
  rollup_increase: [[`rollup_increase(${G}, "avg")`, { '{job="a",rollup="avg"}': 3.75 }]],
  rollup_delta: [[`rollup_delta(${G}, "avg")`, { '{job="a",rollup="avg"}': 0.25 }]],
  rollup_scrape_interval: [[`rollup_scrape_interval(${G}, "max")`, { '{job="a",rollup="max"}': 60 }]],
  rollup_candlestick: [[`rollup_candlestick(${G})`, { '{job="a",rollup="open"}': 6, '{job="a",rollup="close"}': 7, '{job="a",rollup="low"}': 1, '{job="a",rollup="high"}': 8 }]],
  increase_pure: [[`increase_pure(${G})`, { [A]: 15 }]],
  rate_over_sum: [[`rate_over_sum(${G})`, { [A]: 0.08 }]],
  count_eq_over_time: [[`count_eq_over_time(${G}, 2)`, { [A]: 1 }]],
  count_ne_over_time: [[`count_ne_over_time(${G}, 2)`, { [A]: 4 }]],
  count_gt_over_time: [[`count_gt_over_time(${G}, 2)`, { [A]: 3 }]],
  count_le_over_time: [[`count_le_over_time(${G}, 2)`, { [A]: 2 }]],
  share_eq_over_time: [[`share_eq_over_time(${G}, 2)`, { [A]: 0.2 }]],
  share_gt_over_time: [[`share_gt_over_time(${G}, 2)`, { [A]: 0.6 }]],
  share_le_over_time: [[`share_le_over_time(${G}, 2)`, { [A]: 0.4 }]],
  sum_eq_over_time: [[`sum_eq_over_time(${G}, 2)`, { [A]: 2 }]],
  sum_gt_over_time: [[`sum_gt_over_time(${G}, 2)`, { [A]: 21 }]],
  sum_le_over_time: [[`sum_le_over_time(${G}, 2)`, { [A]: 3 }]],
  sum2_over_time: [[`sum2_over_time(${G})`, { [A]: 154 }]],
  range_over_time: [[`range_over_time(${G})`, { [A]: 7 }]],
  distinct_over_time: [[`distinct_over_time(${G})`, { [A]: 5 }]],
  integrate: [[`integrate(${G})`, { [A]: 1020 }]],
  lag: [[`lag(${G})`, { [A]: 0 }], ['lag(gauge{job="a"}[5m] offset 30s)', { [A]: 30 }]],
  lifetime: [[`lifetime(${G})`, { [A]: 240 }]],
  tfirst_over_time: [[`tfirst_over_time(${G})`, { [A]: 360 }]],
  tlast_over_time: [[`tlast_over_time(${G})`, { [A]: 600 }]],
  tmin_over_time: [[`tmin_over_time(${G})`, { [A]: 420 }]],
  tmax_over_time: [[`tmax_over_time(${G})`, { [A]: 540 }]],
  tlast_change_over_time: [[`tlast_change_over_time(${G})`, { [A]: 600 }], ['tlast_change_over_time(gauge{job="b"}[5m])', {}]],
  geomean_over_time: [[`geomean_over_time(${G})`, { [A]: Math.pow(672, 0.2) }]],
  ideriv: [[`ideriv(${G})`, { [A]: -1 / 60 }]],
  increases_over_time: [[`increases_over_time(${G})`, { [A]: 2 }]],
  decreases_over_time: [[`decreases_over_time(${G})`, { [A]: 2 }]],
  ascent_over_time: [[`ascent_over_time(${G})`, { [A]: 7 }]],
  descent_over_time: [[`descent_over_time(${G})`, { [A]: 6 }]],
  zscore_over_time: [[`zscore_over_time(${G})`, { [A]: 2.2 / sd }]],
  scrape_interval: [[`scrape_interval(${G})`, { [A]: 60 }]],
  duration_over_time: [[`duration_over_time(${G}, 120)`, { [A]: 240 }], [`duration_over_time(${G}, 30)`, { [A]: 0 }]],
  default_rollup: [[`default_rollup(${G})`, { [`gauge${A}`]: 7 }]],
};

describe('anchored and smoothed ranges', () => {
  it('take the edge values from the samples around the range', async () => {
    // anchored: 100 at 10m minus 50 at 5m; smoothed at 9m30s: 95 (between 90 and 100) minus 45.
    expectValues(await at('increase(counter{job="a"}[5m] anchored)'), { [A]: 50 }, 'anchored');
    expectValues(await at('increase(counter{job="a"}[5m] smoothed)', 570_000), { [A]: 50 }, 'smoothed');
    expectValues(await at('gauge{job="a"} smoothed', 570_000), { [`gauge${A}`]: 7.5 }, 'smoothed selector');
  });

  it('are rejected by functions they do not apply to', async () => {
    await expect(at(`max_over_time(${G} anchored)`)).rejects.toThrow('anchored modifier can only be used with: changes, delta, increase, rate, resets - not with max_over_time');
    await expect(at(`changes(${G} smoothed)`)).rejects.toThrow('smoothed modifier can only be used with: delta, increase, rate');
  });
});

describe('ROLLUP_FUNCTIONS', () => {
  it('has at least one test case for every registry entry (and no stray cases)', () => {
    expect([...ROLLUP_FUNCTIONS.keys()].filter((n) => CASES[n] === undefined)).toEqual([]);
    expect(Object.keys(CASES).filter((n) => !ROLLUP_FUNCTIONS.has(n))).toEqual([]);
  });

  const f = async (query: string, want: Record<string, number>): Promise<void> => {
    expectValues(await at(query), want, query);
  };
  for (const [name, cases] of Object.entries(CASES)) {
    it(name, async () => {
      for (const [query, want] of cases) await f(query, want);
    });
  }
});

describe('sweep', () => {
  // Random series (counter resets, gaps, samples on window edges) against random window grids:
  // a function's sweep must give exactly what compute gives window by window.
  const series = fc.array(fc.tuple(fc.integer({ min: 1, max: 90 }), fc.double({ min: -50, max: 1000, noNaN: true })), { minLength: 0, maxLength: 60 })
    .map((pairs) => {
      let t = 0;
      return { ts: Float64Array.from(pairs, ([dt]) => (t += dt * 1000)), vs: Float64Array.from(pairs, ([, v]) => v) };
    });
  const windows = fc.record({
    end0: fc.integer({ min: -60, max: 3_000 }).map((s) => s * 1000), step: fc.constantFrom(0, 15_000, 60_000),
    n: fc.integer({ min: 1, max: 40 }), rangeMs: fc.constantFrom(30_000, 60_000, 300_000), edgeMs: fc.constantFrom(0, 1),
  });
  const byCompute = (name: string, s: { ts: Float64Array; vs: Float64Array }, g: { end0: number; step: number; n: number; rangeMs: number; edgeMs: number }) => {
    const fn = ROLLUP_FUNCTIONS.get(name)!;
    const out: (number | null)[] = [];
    const w: RollupWindow = { ts: s.ts, vs: s.vs, lo: 0, hi: 0, start: 0, end: 0, rangeMs: g.rangeMs, evalTime: 0, params: [], strParams: [], stepMs: g.step, scratch: null };
    for (let i = 0; i < g.n; i++) {
      w.end = g.end0 + i * g.step;
      w.start = w.end - g.rangeMs;
      w.lo = s.ts.findIndex((t) => t > w.start - g.edgeMs);
      if (w.lo < 0) w.lo = s.ts.length;
      w.hi = s.ts.findIndex((t) => t > w.end);
      if (w.hi < 0) w.hi = s.ts.length;
      const v = w.hi - w.lo >= fn.minSamples ? fn.compute(w, 0) : undefined;
      out.push(v === undefined ? null : v);
    }
    return out;
  };
  const bySweep = (name: string, s: { ts: Float64Array; vs: Float64Array }, g: { end0: number; step: number; n: number; rangeMs: number; edgeMs: number }) => {
    const values = new Float64Array(g.n);
    const present = new Uint8Array(g.n);
    ROLLUP_FUNCTIONS.get(name)!.sweep!({ ...s, ...g, values, present });
    return Array.from(values, (v, i) => (present[i] === 1 ? v : null));
  };
  for (const name of [...ROLLUP_FUNCTIONS].filter(([, fn]) => fn.sweep !== undefined).map(([n]) => n)) {
    it(`${name} gives compute's results`, () => {
      fc.assert(fc.property(series, windows, (s, g) => {
        expect(bySweep(name, s, g)).toEqual(byCompute(name, s, g));
      }));
    });
  }
  // Regular scrapes on a step-aligned grid (sweepRate reuses one extrapolation factor across
  // windows of the same layout, and moves the windows of an exactly regular series without
  // scanning when the interval divides the step), counters starting near zero (the zero-point
  // cut applies), far from it or about twice its whole increase away (where the sweep stops
  // testing for the cut), with resets (or none in the whole series: the sweep then skips
  // looking for them), the odd NaN value and the odd missed or late scrape.
  const regular = fc.record({
    interval: fc.constantFrom(15_000, 30_000, 60_000), n: fc.integer({ min: 0, max: 80 }), base: fc.constantFrom(0, 0.5, 3, 1_500, 2_000, 1e6),
    incs: fc.array(fc.double({ min: -5, max: 50, noNaN: true }), { minLength: 80, maxLength: 80 }), resets: fc.boolean(),
    skip: fc.array(fc.nat(79), { maxLength: 3 }), late: fc.array(fc.nat(79), { maxLength: 3 }), nan: fc.array(fc.nat(79), { maxLength: 2 }),
  }).map(({ interval, n, base, incs, resets, skip, late, nan }) => {
    const ts: number[] = [];
    const vs: number[] = [];
    let v: number = base;
    for (let i = 0; i < n; i++) {
      v = incs[i]! < 0 && resets ? -incs[i]! : v + Math.abs(incs[i]!);
      if (skip.includes(i)) continue;
      ts.push(i * interval + (late.includes(i) ? 1_000 : 0));
      vs.push(nan.includes(i) ? NaN : v);
    }
    return { ts: Float64Array.from(ts), vs: Float64Array.from(vs) };
  });
  const aligned = fc.record({
    end0: fc.integer({ min: -2, max: 20 }).map((s) => s * 60_000), step: fc.constantFrom(15_000, 60_000),
    n: fc.integer({ min: 1, max: 90 }), rangeMs: fc.constantFrom(60_000, 120_000, 300_000), edgeMs: fc.constantFrom(0, 1),
  });
  // Integer series (gauges of bytes, counts): avg_over_time carries a window's exact sum across
  // windows. Magnitudes near 2^53 / 60 put some series' sums past exactness (compute's path then),
  // -0 and zero sums check the sign of zero.
  const integers = fc.array(fc.tuple(fc.integer({ min: 1, max: 90 }), fc.oneof(
    fc.integer({ min: -1000, max: 1000 }), fc.constant(-0), fc.integer({ min: -(2 ** 47), max: 2 ** 47 }).map((v) => v * 3),
    fc.double({ min: -1e3, max: 1e3, noNaN: true }), fc.constantFrom(Infinity, -Infinity, NaN),
  )), { minLength: 0, maxLength: 60 })
    .map((pairs) => {
      let t = 0;
      return { ts: Float64Array.from(pairs, ([dt]) => (t += dt * 1000)), vs: Float64Array.from(pairs, ([, v]) => v) };
    });
  const integersOnly = integers.map((s) => ({ ts: s.ts, vs: s.vs.map((v) => (Number.isInteger(v) || Object.is(v, -0) ? v : Math.round(v) || 0)) }));
  it(`avg_over_time gives compute's results on integer series`, () => {
    fc.assert(fc.property(fc.oneof(integers, integersOnly), windows, (s, g) => {
      expect(bySweep('avg_over_time', s, g)).toEqual(byCompute('avg_over_time', s, g));
    }), { numRuns: 500 });
  });
  for (const name of ['rate', 'increase', 'delta']) {
    it(`${name} gives compute's results on regular scrapes`, () => {
      fc.assert(fc.property(regular, aligned, (s, g) => {
        expect(bySweep(name, s, g)).toEqual(byCompute(name, s, g));
      }), { numRuns: 1000 });
    });
  }
});

describe('extrapolated rates', () => {
  // Prometheus' extrapolatedRate, written out the way its Go code computes it: the result must
  // be the same float, not just a close one (histogram_quantile picks buckets by these values).
  const reference = (ts: number[], vs: number[], start: number, end: number, isCounter: boolean, isRate: boolean): number => {
    let result = vs.at(-1)! - vs[0]!;
    if (isCounter) {
      let prev = vs[0]!;
      for (const v of vs.slice(1)) {
        if (v < prev) result += prev;
        prev = v;
      }
    }
    let toStart = (ts[0]! - start) / 1000;
    let toEnd = (end - ts.at(-1)!) / 1000;
    const sampled = (ts.at(-1)! - ts[0]!) / 1000;
    const avg = sampled / (ts.length - 1);
    if (toStart >= avg * 1.1) toStart = avg / 2;
    if (isCounter && result > 0 && vs[0]! >= 0) toStart = Math.min(toStart, sampled * (vs[0]! / result));
    if (toEnd >= avg * 1.1) toEnd = avg / 2;
    let factor = (sampled + toStart + toEnd) / sampled;
    if (isRate) factor /= (end - start) / 1000;
    return result * factor;
  };
  const counter = fc.array(fc.tuple(fc.integer({ min: 1, max: 30 }), fc.double({ min: 0, max: 1e6, noNaN: true }), fc.boolean()), { minLength: 2, maxLength: 40 });

  it('are the same floats as Prometheus computes, resets included', () => {
    fc.assert(fc.property(counter, fc.integer({ min: 0, max: 20 }), (pairs, pad) => {
      let t = 0;
      let v = 0;
      const ts: number[] = [];
      const vs: number[] = [];
      for (const [dt, inc, reset] of pairs) {
        t += dt * 1000;
        v = reset ? inc / 7 : v + inc;
        ts.push(t);
        vs.push(v);
      }
      const start = ts[0]! - 1 - pad * 1000;
      const end = ts.at(-1)!;
      for (const [name, isCounter, isRate] of [['rate', true, true], ['increase', true, false], ['delta', false, false]] as const) {
        const values = new Float64Array(1);
        const present = new Uint8Array(1);
        ROLLUP_FUNCTIONS.get(name)!.sweep!({ ts: Float64Array.from(ts), vs: Float64Array.from(vs), end0: end, step: 0, n: 1, rangeMs: end - start, edgeMs: 0, values, present });
        expect(values[0], name).toBe(reference(ts, vs, start, end, isCounter, isRate));
      }
    }));
  });
});
