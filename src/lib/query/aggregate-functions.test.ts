import { describe, expect, it } from 'vitest';
import { AGGREGATE_FUNCTIONS } from './aggregate-functions.ts';
import { at, expectValues, order, over } from './_test-fixture.ts';

// Fixture values at 10m: gauge a=7 b=10 c=4 (mean 7, population variance 6).
const one = (v: number): Record<string, number> => ({ '{}': v });
const A = 'gauge{job="a"}';
const B = 'gauge{job="b"}';
const C = 'gauge{job="c"}';

type Case = ['at', string, Record<string, number>] | ['order', string, string[]] | ['over', string, string[]];

const CASES: Record<string, Case[]> = {
  sum: [['at', 'sum(gauge)', one(21)], ['at', 'sum by (job) (gauge)', { '{job="a"}': 7, '{job="b"}': 10, '{job="c"}': 4 }]],
  avg: [['at', 'avg(gauge)', one(7)], ['at', 'avg without (job) (gauge)', one(7)]],
  count: [['at', 'count(gauge)', one(3)]],
  min: [['at', 'min(gauge)', one(4)]],
  max: [['at', 'max(gauge)', one(10)]],
  group: [['at', 'group by (__name__) (gauge)', { 'gauge{}': 1 }]],
  stddev: [['at', 'stddev(gauge)', one(Math.sqrt(6))]],
  stdvar: [['at', 'stdvar(gauge)', one(6)]],
  quantile: [['at', 'quantile(0.5, gauge)', one(7)], ['at', 'quantile(0.25, gauge)', one(5.5)]],
  topk: [['at', 'topk(1, gauge)', { [B]: 10 }], ['order', 'topk(2, gauge)', [B, A]]],
  bottomk: [['at', 'bottomk(1, gauge)', { [C]: 4 }], ['order', 'bottomk(2, gauge)', [C, A]]],
  limitk: [['at', 'limitk(2, gauge)', { [A]: 7, [B]: 10 }]],
  limit_ratio: [['at', 'limit_ratio(1, gauge)', { [A]: 7, [B]: 10, [C]: 4 }], ['at', 'limit_ratio(0, gauge)', {}]],
  count_values: [['at', 'count_values("v", gauge)', { '{v="7"}': 1, '{v="10"}': 1, '{v="4"}': 1 }]],
  median: [['at', 'median(gauge)', one(7)]],
  mode: [['at', 'mode(gauge{job=~"b|c"} or vector(10))', one(10)]],
  any: [['at', 'any(gauge)', one(7)]],
  distinct: [['at', 'distinct(gauge)', one(3)]],
  geomean: [['at', 'geomean(gauge)', one(Math.cbrt(280))]],
  mad: [['at', 'mad(gauge)', one(3)]],
  sum2: [['at', 'sum2(gauge)', one(165)]],
  share: [['at', 'share(gauge)', { '{job="a"}': 7 / 21, '{job="b"}': 10 / 21, '{job="c"}': 4 / 21 }]],
  zscore: [['at', 'zscore(gauge)', { '{job="a"}': 0, '{job="b"}': 3 / Math.sqrt(6), '{job="c"}': -3 / Math.sqrt(6) }]],
  quantiles: [['at', 'quantiles("q", 0.5, 0.9, gauge)', { '{q="0.5"}': 7, '{q="0.9"}': 9.4 }]],
  // MetricsQL topk_<stat>: whole series ranked by a statistic over the range (a's max 8 > c's 4).
  topk_max: [['over', 'topk_max(1, gauge{job=~"a|c"})', [A]]],
  topk_min: [['over', 'topk_min(1, gauge{job=~"a|c"})', [C]]],
  topk_avg: [['over', 'topk_avg(1, gauge{job=~"a|c"})', [C]]],
  topk_median: [['over', 'topk_median(1, gauge{job=~"a|b"})', [B]]],
  topk_last: [['over', 'topk_last(1, gauge{job=~"a|c"})', [A]]],
  bottomk_max: [['over', 'bottomk_max(1, gauge{job=~"a|c"})', [C]]],
  bottomk_min: [['over', 'bottomk_min(1, gauge{job=~"a|c"})', [A]]],
  bottomk_avg: [['over', 'bottomk_avg(1, gauge{job=~"a|c"})', [A]]],
  bottomk_median: [['over', 'bottomk_median(1, gauge{job=~"a|b"})', [A]]],
  bottomk_last: [['over', 'bottomk_last(1, gauge{job=~"a|c"})', [C]]],
};

describe('AGGREGATE_FUNCTIONS', () => {
  it('has at least one test case for every registry entry (and no stray cases)', () => {
    expect([...AGGREGATE_FUNCTIONS.keys()].filter((n) => CASES[n] === undefined)).toEqual([]);
    expect(Object.keys(CASES).filter((n) => !AGGREGATE_FUNCTIONS.has(n))).toEqual([]);
  });

  const f = async (c: Case): Promise<void> => {
    if (c[0] === 'at') expectValues(await at(c[1]), c[2], c[1]);
    else if (c[0] === 'order') expect(await order(c[1]), c[1]).toEqual(c[2]);
    else expect(Object.keys(await over(c[1])).sort(), c[1]).toEqual([...c[2]].sort());
  };
  for (const [name, cases] of Object.entries(CASES)) {
    it(name, async () => {
      for (const c of cases) await f(c);
    });
  }
});
