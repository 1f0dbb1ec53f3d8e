import { describe, expect, it } from 'vitest';
import { isStaleNaN, LimitExceededError, STALE_NAN, type LabelMatcher, type Labels } from '../storageapi/index.ts';
import { MemorySearcher } from './memory-searcher.ts';

const T = { accountID: 0, projectID: 0 };
const signal = new AbortController().signal;
const L = (rec: Record<string, string>): Labels => Object.keys(rec).sort().map((name) => ({ name, value: rec[name]! }));

function db(): MemorySearcher {
  const m = new MemorySearcher();
  m.add(T, L({ __name__: 'up', job: 'api', instance: 'a' }), 1000, 1);
  m.add(T, L({ __name__: 'up', job: 'api', instance: 'b' }), 2000, 0);
  m.add(T, L({ __name__: 'up', job: 'db' }), 3000, 1);
  m.add({ accountID: 1, projectID: 0 }, L({ __name__: 'up', job: 'other' }), 1000, 1);
  return m;
}

async function names(m: MemorySearcher, sets: LabelMatcher[][], lo = 0, hi = 10_000): Promise<string[]> {
  const out: string[] = [];
  const q = { tenant: T, matcherSets: sets, timeRange: { minTimestamp: lo, maxTimestamp: hi }, maxSeries: 0 };
  for await (const s of m.searchSeries(q, signal)) out.push(s.labels.map((l) => `${l.name}=${l.value}`).join(','));
  return out.sort();
}

describe('MemorySearcher.searchSeries', () => {
  const f = async (sets: LabelMatcher[][], want: string[], lo?: number, hi?: number): Promise<void> => {
    expect(await names(db(), sets, lo, hi)).toEqual(want);
  };
  const m = (name: string, type: LabelMatcher['type'], value: string): LabelMatcher => ({ name, type, value });

  it('applies PromQL matcher semantics', () => {
    return Promise.all([
      f([[m('job', '=', 'api')]], ['__name__=up,instance=a,job=api', '__name__=up,instance=b,job=api']),
      // A missing label reads as "": instance="" selects the series without one.
      f([[m('instance', '=', '')]], ['__name__=up,job=db']),
      f([[m('instance', '!=', 'a'), m('__name__', '=', 'up')]], ['__name__=up,instance=b,job=api', '__name__=up,job=db']),
      // Regexps are fully anchored.
      f([[m('job', '=~', 'ap')]], []),
      f([[m('job', '=~', 'ap.*|d.')]], ['__name__=up,instance=a,job=api', '__name__=up,instance=b,job=api', '__name__=up,job=db']),
      f([[m('job', '!~', 'api')]], ['__name__=up,job=db']),
      // Matcher sets are OR-ed.
      f([[m('instance', '=', 'a')], [m('job', '=', 'db')]], ['__name__=up,instance=a,job=api', '__name__=up,job=db']),
    ]);
  });

  it('keeps only series with samples inside the inclusive time range', () => {
    return Promise.all([
      f([[m('__name__', '=', 'up')]], ['__name__=up,instance=b,job=api'], 2000, 2000),
      f([[m('__name__', '=', 'up')]], ['__name__=up,instance=a,job=api', '__name__=up,instance=b,job=api'], 1000, 2999),
    ]);
  });
});

describe('MemorySearcher storage', () => {
  it('orders samples, replaces duplicates and keeps staleness markers bit-exact', async () => {
    const m = new MemorySearcher();
    const ls = L({ __name__: 'x' });
    for (const [t, v] of [[3000, 3], [1000, 1], [2000, 2], [2000, 20]] as const) m.add(T, ls, t, v);
    // Passed directly: a NaN stored in a plain JS array literal is canonicalised by V8.
    m.add(T, ls, 4000, STALE_NAN);
    const q = { tenant: T, matcherSets: [], timeRange: { minTimestamp: 0, maxTimestamp: 5000 }, maxSeries: 0 };
    for await (const s of m.searchSeries(q, signal)) {
      expect(Array.from(s.timestamps)).toEqual([1000, 2000, 3000, 4000]);
      expect(Array.from(s.values.subarray(0, 3))).toEqual([1, 20, 3]);
      expect(isStaleNaN(s.values[3]!)).toBe(true);
    }
  });

  it('rejects a search over the series limit naming the flag', async () => {
    const q = { tenant: T, matcherSets: [], timeRange: { minTimestamp: 0, maxTimestamp: 5000 }, maxSeries: 2 };
    const it = db().searchSeries(q, signal)[Symbol.asyncIterator]();
    await expect(it.next()).rejects.toSatisfy((e: unknown) => e instanceof LimitExceededError && e.flag === 'search.maxUniqueTimeseries');
  });

  it('stops when the signal is aborted', async () => {
    const ac = new AbortController();
    ac.abort(new Error('stop'));
    const q = { tenant: T, matcherSets: [], timeRange: { minTimestamp: 0, maxTimestamp: 5000 }, maxSeries: 0 };
    await expect(db().searchSeries(q, ac.signal)[Symbol.asyncIterator]().next()).rejects.toThrow('stop');
  });

  it('answers label, series and admin lookups per tenant', async () => {
    const m = db();
    const q = { tenant: T, matcherSets: [], timeRange: { minTimestamp: 0, maxTimestamp: 10_000 }, maxSeries: 0 };
    expect(await m.labelNames(q, 0, signal)).toEqual(['__name__', 'instance', 'job']);
    expect(await m.labelValues(q, 'job', 0, signal)).toEqual(['api', 'db']);
    expect(await m.labelValues(q, 'job', 1, signal)).toEqual(['api']);
    expect((await m.searchLabelSets(q, 2, signal)).length).toBe(2);
    expect(await m.seriesCount(T, signal)).toBe(3);
    const status = await m.tsdbStatus({ tenant: T, date: 0, matcherSets: [], topN: 1, focusLabel: 'job' }, signal);
    expect(status.totalSeries).toBe(3);
    expect(status.seriesCountByFocusLabelValue).toEqual([{ name: 'api', count: 2 }]);
    expect(await m.deleteSeries({ ...q, matcherSets: [[{ name: 'job', type: '=', value: 'api' }]] }, signal)).toBe(2);
    expect(await m.seriesCount(T, signal)).toBe(1);
    expect(await m.seriesCount({ accountID: 1, projectID: 0 }, signal)).toBe(1);
  });
});
