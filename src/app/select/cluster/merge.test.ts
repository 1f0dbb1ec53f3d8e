import { describe, expect, it } from 'vitest';
import { STALE_NAN, isStaleNaN, type SeriesSamples } from '../../../lib/storageapi/index.ts';
import { mergeSeries, mergeTsdbStatus, SeriesMerger, unionLabelSets, unionStrings, unionTenants } from './merge.ts';

const L = [{ name: '__name__', value: 'm' }];
const s = (ts: number[], vs: number[]): SeriesSamples => ({ labels: L, timestamps: Float64Array.from(ts), values: Float64Array.from(vs) });
const pairs = (x: SeriesSamples) => Array.from(x.timestamps, (t, i) => [t, x.values[i]]);

describe('mergeSeries', () => {
  it('interleaves copies by timestamp and keeps one sample per timestamp (replicas collapse)', () => {
    const f = (parts: SeriesSamples[], dedupMs: number, want: number[][]) => expect(pairs(mergeSeries(parts, dedupMs))).toEqual(want);
    // two replicas holding the same samples
    f([s([1, 2, 3], [10, 20, 30]), s([1, 2, 3], [10, 20, 30])], 0, [[1, 10], [2, 20], [3, 30]]);
    // a series split between nodes by rerouting, overlapping at 3
    f([s([1, 3, 5], [1, 3, 5]), s([2, 3, 4], [2, 3, 4])], 0, [[1, 1], [2, 2], [3, 3], [4, 4], [5, 5]]);
    // different values at one timestamp: storage's rule (the larger number) whatever the order
    f([s([1], [5]), s([1], [7])], 0, [[1, 7]]);
    f([s([1], [7]), s([1], [5])], 0, [[1, 7]]);
    // -dedup.minScrapeInterval: the last sample of each window
    f([s([1000, 1500, 2500], [1, 2, 3]), s([1000, 2000], [1, 9])], 1000, [[1000, 1], [2000, 9], [2500, 3]]);
  });

  it('keeps staleness markers bit-exact', () => {
    // Typed arrays written directly: V8 may canonicalise a NaN kept in a plain array.
    const stale = (ts: number[]): SeriesSamples => {
      const values = new Float64Array(ts.length);
      values[0] = 1;
      values[ts.length - 1] = STALE_NAN;
      return { labels: L, timestamps: Float64Array.from(ts), values };
    };
    const m = mergeSeries([stale([1, 2]), stale([2])], 0);
    expect(m.timestamps).toEqual(Float64Array.from([1, 2]));
    expect(isStaleNaN(m.values[1]!)).toBe(true);
  });

  it('passes a series found on one node through as it is', () => {
    const merger = new SeriesMerger();
    const one = s([1], [1]);
    merger.add(one);
    merger.add({ ...s([1, 2], [1, 2]), labels: [{ name: '__name__', value: 'other' }] });
    merger.add({ ...s([2], [2]), labels: [{ name: '__name__', value: 'other' }] });
    const out = [...merger.merged(0)];
    expect(out[0]).toBe(one);
    expect(pairs(out[1]!)).toEqual([[1, 1], [2, 2]]);
  });
});

describe('unions', () => {
  it('merges label sets, names, values and tenants: distinct, sorted, limited', () => {
    const a = [{ name: '__name__', value: 'a' }];
    const b = [{ name: '__name__', value: 'b' }];
    expect(unionLabelSets([[b, a], [a]], 0)).toEqual([a, b]);
    expect(unionLabelSets([[b], [a]], 1)).toEqual([a]);
    expect(unionStrings([['job', 'zone'], ['instance', 'job']], 0)).toEqual(['instance', 'job', 'zone']);
    expect(unionStrings([['b'], ['a', 'c']], 2)).toEqual(['a', 'b']);
    expect(unionTenants([[{ accountID: 2, projectID: 0 }, { accountID: 0, projectID: 1 }], [{ accountID: 0, projectID: 1 }, { accountID: 0, projectID: 0 }]]))
      .toEqual([{ accountID: 0, projectID: 0 }, { accountID: 0, projectID: 1 }, { accountID: 2, projectID: 0 }]);
  });

  it('adds up cardinality statistics and keeps the top entries', () => {
    const part = (names: Record<string, number>, total: number) => ({
      totalSeries: total, totalLabelValuePairs: total * 2, seriesCountByMetricName: Object.entries(names).map(([name, count]) => ({ name, count })),
      seriesCountByLabelName: [], seriesCountByFocusLabelValue: [], seriesCountByLabelValuePair: [], labelValueCountByLabelName: [],
    });
    const m = mergeTsdbStatus([part({ a: 3, b: 1 }, 4), part({ b: 4, c: 1 }, 5)], 2);
    expect(m.totalSeries).toBe(9);
    expect(m.totalLabelValuePairs).toBe(18);
    expect(m.seriesCountByMetricName).toEqual([{ name: 'b', count: 5 }, { name: 'a', count: 3 }]);
  });
});
