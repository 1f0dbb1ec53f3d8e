import { describe, expect, it } from 'vitest';
import { at, expectValues, order, over } from './_test-fixture.ts';
import { TRANSFORM_FUNCTIONS } from './transform-functions.ts';

// Fixture values at 10m: gauge a=7 b=10 c=4; counter a=100 b=75; lat_bucket le 0.1/0.5/1/+Inf =
// 1/4/9/10; info{n="12",text="Hello"} and info{n="2",text="World"} = 1.
// gauge{job="a"} over 0m…10m: 1 3 2 5 4 4 6 1 2 8 7.
const SERIES_A = [1, 3, 2, 5, 4, 4, 6, 1, 2, 8, 7];
const mean = SERIES_A.reduce((a, b) => a + b, 0) / 11;
const variance = SERIES_A.reduce((a, v) => a + (v - mean) ** 2, 0) / 11;
const all = (v: number): number[] => Array(11).fill(v);
const cumulative = (f: (acc: number, v: number, i: number) => number): number[] => {
  let acc = NaN;
  return SERIES_A.map((v, i) => (acc = i === 0 ? v : f(acc, v, i + 1)));
};
// Least squares of SERIES_A against minutes, evaluated at each step.
const regression = ((): number[] => {
  const xs = SERIES_A.map((_, i) => i);
  const mx = 5;
  const slope = xs.reduce((a, x) => a + (x - mx) * (SERIES_A[x]! - mean), 0) / xs.reduce((a, x) => a + (x - mx) ** 2, 0);
  return xs.map((x) => mean + slope * (x - mx));
})();

type InstantCase = ['at', string, Record<string, number>];
type OrderCase = ['order', string, string[]];
type RangeCase = ['over', string, Record<string, (number | null)[]>];
type Case = InstantCase | OrderCase | RangeCase;

const V = (q: string, want: Record<string, number>): InstantCase => ['at', q, want];
const O = (q: string, want: string[]): OrderCase => ['order', q, want];
const R = (q: string, want: Record<string, (number | null)[]>): RangeCase => ['over', q, want];
const one = (v: number): Record<string, number> => ({ '{}': v });
const S = (v: number): Record<string, number> => ({ scalar: v });

const CASES: Record<string, Case[]> = {
  abs: [V('abs(vector(-2))', one(2))], ceil: [V('ceil(vector(1.2))', one(2))], floor: [V('floor(vector(1.8))', one(1))],
  exp: [V('exp(vector(0))', one(1))], sqrt: [V('sqrt(vector(4))', one(2))], ln: [V('ln(vector(1))', one(0))],
  log2: [V('log2(vector(8))', one(3))], log10: [V('log10(vector(100))', one(2))], sin: [V('sin(vector(0))', one(0))],
  cos: [V('cos(vector(0))', one(1))], tan: [V('tan(vector(0))', one(0))], asin: [V('asin(vector(1))', one(Math.PI / 2))],
  acos: [V('acos(vector(1))', one(0))], atan: [V('atan(vector(1))', one(Math.PI / 4))], sinh: [V('sinh(vector(0))', one(0))],
  cosh: [V('cosh(vector(0))', one(1))], tanh: [V('tanh(vector(0))', one(0))], asinh: [V('asinh(vector(0))', one(0))],
  acosh: [V('acosh(vector(1))', one(0))], atanh: [V('atanh(vector(0))', one(0))],
  rad: [V('rad(vector(180))', one(Math.PI))], deg: [V('deg(vector(pi()))', one(180))],
  sgn: [V('sgn(vector(-3))', one(-1)), V('sgn(vector(0))', one(0))],
  round: [V('round(vector(2.5))', one(3)), V('round(vector(2.44), 0.1)', one(2.4))],
  clamp: [V('clamp(gauge, 5, 8)', { '{job="a"}': 7, '{job="b"}': 8, '{job="c"}': 5 }), V('clamp(gauge, 8, 5)', {})],
  clamp_min: [V('clamp_min(gauge, 5)', { '{job="a"}': 7, '{job="b"}': 10, '{job="c"}': 5 })],
  clamp_max: [V('clamp_max(gauge, 5)', { '{job="a"}': 5, '{job="b"}': 5, '{job="c"}': 4 })],
  pi: [V('pi()', S(Math.PI))], time: [V('time()', S(600))],
  step: [V('step()', S(0))], range: [V('range()', S(0))], start: [V('start()', S(600))], end: [V('end()', S(600))],
  min_of: [V('min_of(1, 2)', S(1))], max_of: [V('max_of(1, 2)', S(2))],
  vector: [V('vector(3)', one(3))],
  scalar: [V('scalar(gauge{job="a"})', S(7)), V('scalar(gauge)', S(NaN))],
  timestamp: [V('timestamp(gauge{job="a"})', { '{job="a"}': 600 }), V('timestamp(stale_gauge)', {})],
  absent: [V('absent(nope{job="x"})', { '{job="x"}': 1 }), V('absent(gauge)', {})],
  info: [V('info(gauge{job=~"a|b"})', { 'gauge{job="a",version="1.2"}': 7, 'gauge{job="b"}': 10 }), V('info(gauge, {version=~".+"})', { 'gauge{job="a",version="1.2"}': 7 })],
  sort: [O('sort(gauge)', ['gauge{job="c"}', 'gauge{job="a"}', 'gauge{job="b"}'])],
  sort_desc: [O('sort_desc(gauge)', ['gauge{job="b"}', 'gauge{job="a"}', 'gauge{job="c"}'])],
  sort_by_label: [O('sort_by_label(gauge, "job")', ['gauge{job="a"}', 'gauge{job="b"}', 'gauge{job="c"}'])],
  sort_by_label_desc: [O('sort_by_label_desc(gauge, "job")', ['gauge{job="c"}', 'gauge{job="b"}', 'gauge{job="a"}'])],
  day_of_month: [V('day_of_month(vector(86400 * 31))', one(1))],
  day_of_week: [V('day_of_week(vector(0))', one(4))],
  day_of_year: [V('day_of_year(vector(86400 * 40))', one(41))],
  days_in_month: [V('days_in_month(vector(86400 * 31))', one(28))],
  hour: [V('hour(vector(3600 * 5))', one(5)), V('hour()', one(0))],
  minute: [V('minute(vector(61 * 60))', one(1)), V('minute()', one(10))],
  month: [V('month(vector(86400 * 31))', one(2))],
  year: [V('year(vector(0))', one(1970))],
  // Classic histograms: rank 5 of 10 falls in (0.5, 1] holding 5 → 0.5 + 0.5 × 1/5.
  histogram_quantile: [V('histogram_quantile(0.5, lat_bucket)', one(0.6))],
  histogram_quantiles: [V('histogram_quantiles(lat_bucket, "q", 0.5, 0.9)', { '{q="0.5"}': 0.6, '{q="0.9"}': 1 })],
  histogram_fraction: [V('histogram_fraction(0, 0.5, lat_bucket)', one(0.4))],
  histogram_count: [V('histogram_count(lat_bucket)', {})], histogram_sum: [V('histogram_sum(lat_bucket)', {})],
  histogram_avg: [V('histogram_avg(lat_bucket)', {})], histogram_stddev: [V('histogram_stddev(lat_bucket)', {})],
  histogram_stdvar: [V('histogram_stdvar(lat_bucket)', {})],
  histogram_share: [V('histogram_share(0.5, lat_bucket)', one(0.4))],
  label_replace: [V('label_replace(gauge{job="a"}, "x", "$1-y", "job", "(.*)")', { 'gauge{job="a",x="a-y"}': 7 })],
  label_join: [V('label_join(gauge{job="a"}, "x", "-", "job", "job")', { 'gauge{job="a",x="a-a"}': 7 })],
  label_set: [V('label_set(gauge{job="a"}, "x", "1", "y", "2")', { 'gauge{job="a",x="1",y="2"}': 7 })],
  alias: [V('alias(gauge{job="a"}, "renamed")', { 'renamed{job="a"}': 7 })],
  label_del: [V('label_del(gauge{job="a"}, "job")', { 'gauge{}': 7 })],
  label_keep: [V('label_keep(gauge{job="a"}, "job")', { '{job="a"}': 7 })],
  label_copy: [V('label_copy(gauge{job="a"}, "job", "x")', { 'gauge{job="a",x="a"}': 7 })],
  label_move: [V('label_move(gauge{job="a"}, "job", "x")', { 'gauge{x="a"}': 7 })],
  label_map: [V('label_map(gauge, "job", "a", "A", "b", "B")', { 'gauge{job="A"}': 7, 'gauge{job="B"}': 10, 'gauge{job="c"}': 4 })],
  label_value: [V('label_value(info, "n")', { '{n="12",text="Hello"}': 12, '{n="2",text="World"}': 2 })],
  label_match: [V('label_match(gauge, "job", "a|b")', { 'gauge{job="a"}': 7, 'gauge{job="b"}': 10 })],
  label_mismatch: [V('label_mismatch(gauge, "job", "a|b")', { 'gauge{job="c"}': 4 })],
  label_lowercase: [V('label_lowercase(info, "text")', { 'info{n="12",text="hello"}': 1, 'info{n="2",text="world"}': 1 })],
  label_uppercase: [V('label_uppercase(info, "text")', { 'info{n="12",text="HELLO"}': 1, 'info{n="2",text="WORLD"}': 1 })],
  label_transform: [V('label_transform(info, "text", "l+", "L")', { 'info{n="12",text="HeLo"}': 1, 'info{n="2",text="WorLd"}': 1 })],
  drop_common_labels: [V('drop_common_labels(gauge{job="a"}, counter{job="a"})', { 'gauge{}': 7, 'counter{}': 100 })],
  range_sum: [R('range_sum(gauge{job="a"})', { '{job="a"}': all(43) })],
  range_avg: [R('range_avg(gauge{job="a"})', { '{job="a"}': all(mean) })],
  range_max: [R('range_max(gauge{job="a"})', { '{job="a"}': all(8) })],
  range_min: [R('range_min(gauge{job="a"})', { '{job="a"}': all(1) })],
  range_first: [R('range_first(gauge{job="a"})', { '{job="a"}': all(1) })],
  range_last: [R('range_last(gauge{job="a"})', { '{job="a"}': all(7) })],
  range_median: [R('range_median(gauge{job="a"})', { '{job="a"}': all(4) })],
  range_quantile: [R('range_quantile(0.5, gauge{job="a"})', { '{job="a"}': all(4) })],
  range_stddev: [R('range_stddev(gauge{job="a"})', { '{job="a"}': all(Math.sqrt(variance)) })],
  range_stdvar: [R('range_stdvar(gauge{job="a"})', { '{job="a"}': all(variance) })],
  range_mad: [R('range_mad(gauge{job="a"})', { '{job="a"}': all(2) })],
  range_zscore: [R('range_zscore(gauge{job="a"})', { '{job="a"}': SERIES_A.map((v) => (v - mean) / Math.sqrt(variance)) })],
  range_normalize: [R('range_normalize(gauge{job="a"})', { '{job="a"}': SERIES_A.map((v) => (v - 1) / 7) })],
  range_linear_regression: [R('range_linear_regression(gauge{job="a"})', { '{job="a"}': regression })],
  running_sum: [R('running_sum(gauge{job="a"})', { '{job="a"}': cumulative((acc, v) => acc + v) })],
  running_avg: [R('running_avg(gauge{job="a"})', { '{job="a"}': cumulative((acc, v, n) => acc + (v - acc) / n) })],
  running_min: [R('running_min(gauge{job="a"})', { '{job="a"}': cumulative((acc, v) => Math.min(acc, v)) })],
  running_max: [R('running_max(gauge{job="a"})', { '{job="a"}': cumulative((acc, v) => Math.max(acc, v)) })],
  keep_last_value: [R('keep_last_value(gauge{job="a"} > 3)', { 'gauge{job="a"}': [null, null, null, 5, 4, 4, 6, 6, 6, 8, 7] })],
  keep_next_value: [R('keep_next_value(gauge{job="a"} > 3)', { 'gauge{job="a"}': [5, 5, 5, 5, 4, 4, 6, 8, 8, 8, 7] })],
  interpolate: [R('interpolate(gauge{job="a"} > 3)', { 'gauge{job="a"}': [null, null, null, 5, 4, 4, 6, 6 + 2 / 3, 7 + 1 / 3, 8, 7] })],
  remove_resets: [R('remove_resets(counter{job="b"})', { '{job="b"}': [0, 10, 20, 25, 35, 45, 55, 65, 75, 85, 95] })],
  smooth_exponential: [R('smooth_exponential(gauge{job="a"}, 0.5)', { '{job="a"}': cumulative((acc, v) => acc + 0.5 * (v - acc)) })],
  union: [V('union(gauge{job="a"}, gauge{job="b"}, gauge{job="a"})', { 'gauge{job="a"}': 7, 'gauge{job="b"}': 10 })],
  now: [V('now()', S(1234))],
  bitmap_and: [V('bitmap_and(vector(12), 10)', one(8))],
  bitmap_or: [V('bitmap_or(vector(12), 10)', one(14))],
  bitmap_xor: [V('bitmap_xor(vector(12), 10)', one(6))],
  sign: [V('sign(vector(-2))', one(-1))],
  ru: [V('ru(vector(25), vector(100))', one(75))],
  sort_by_label_numeric: [O('sort_by_label_numeric(info, "n")', ['info{n="2",text="World"}', 'info{n="12",text="Hello"}'])],
  sort_by_label_numeric_desc: [O('sort_by_label_numeric_desc(info, "n")', ['info{n="12",text="Hello"}', 'info{n="2",text="World"}'])],
  limit_offset: [V('limit_offset(1, 1, sort_by_label(gauge, "job"))', { 'gauge{job="b"}': 10 })],
};

function expectRows(got: Record<string, (number | null)[]>, want: Record<string, (number | null)[]>, what: string): void {
  expect(Object.keys(got).sort(), what).toEqual(Object.keys(want).sort());
  for (const [k, row] of Object.entries(want)) {
    row.forEach((v, i) => {
      const g = got[k]![i];
      if (v === null) expect(g, `${what} ${k}[${i}]`).toBeNull();
      else expect(Math.abs((g ?? NaN) - v) <= 1e-9 * Math.max(1, Math.abs(v)), `${what} ${k}[${i}]: want ${v}, got ${g}`).toBe(true);
    });
  }
}

describe('TRANSFORM_FUNCTIONS', () => {
  it('has at least one test case for every registry entry (and no stray cases)', () => {
    expect([...TRANSFORM_FUNCTIONS.keys()].filter((n) => CASES[n] === undefined)).toEqual([]);
    expect(Object.keys(CASES).filter((n) => !TRANSFORM_FUNCTIONS.has(n))).toEqual([]);
  });

  const f = async (c: Case): Promise<void> => {
    if (c[0] === 'at') expectValues(await at(c[1]), c[2], c[1]);
    else if (c[0] === 'order') expect(await order(c[1]), c[1]).toEqual(c[2]);
    else expectRows(await over(c[1]), c[2], c[1]);
  };
  for (const [name, cases] of Object.entries(CASES)) {
    it(name, async () => {
      for (const c of cases) await f(c);
    });
  }
});
