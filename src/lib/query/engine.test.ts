import { describe, expect, it } from 'vitest';
import { ParseError } from '../promql/index.ts';
import { DEFAULT_TENANT, LimitExceededError, type SearchQuery, type Searcher, type SeriesSamples } from '../storageapi/index.ts';
import { at, fixture, OPTS, over, show } from './_test-fixture.ts';
import { instant, range, type QueryResult } from './engine.ts';
import { QueryError } from './errors.ts';
import { MemorySearcher } from './memory-searcher.ts';
import type { QueryOptions } from './query-state.ts';

const MIN = 60_000;
const db = fixture();
const N = null;

describe('instant', () => {
  const f = async (query: string, want: unknown): Promise<void> => {
    const r = await instant(db, query, 10 * MIN, OPTS);
    const { stats: _stats, ...rest } = r;
    expect(JSON.parse(JSON.stringify(rest, (_k, v: unknown) => (v instanceof Float64Array ? Array.from(v) : v)))).toEqual(want);
  };

  it('returns every Prometheus result type', async () => {
    await f('1 + 1', { type: 'scalar', timestamp: 600_000, value: 2 });
    await f('"text"', { type: 'string', timestamp: 600_000, value: 'text' });
    await f('gauge{job="a"}', { type: 'vector', vector: [{ labels: [{ name: '__name__', value: 'gauge' }, { name: 'job', value: 'a' }], timestamp: 600_000, value: 7 }] });
    // A bare range selector at an instant is a matrix of the raw samples in (t-2m, t].
    await f('gauge{job="a"}[2m]', { type: 'matrix', matrix: [{ labels: [{ name: '__name__', value: 'gauge' }, { name: 'job', value: 'a' }], timestamps: [540_000, 600_000], values: [8, 7] }] });
    await f('gauge{job="a"}[2m:1m]', { type: 'matrix', matrix: [{ labels: [{ name: '__name__', value: 'gauge' }, { name: 'job', value: 'a' }], timestamps: [540_000, 600_000], values: [8, 7] }] });
  });

  it('reports parse errors as ParseError and evaluation errors as QueryError', async () => {
    await expect(instant(db, 'sum(', 0, OPTS)).rejects.toBeInstanceOf(ParseError);
    await expect(instant(db, 'ceil({__name__=~"gauge|counter", job="a"})', 10 * MIN, OPTS)).rejects.toThrow('vector cannot contain metrics with the same labelset');
  });
});

describe('range', () => {
  it('turns scalars into one label-less series and rejects non-vector expressions', async () => {
    const r = await range(db, 'time()', 0, 2 * MIN, MIN, OPTS);
    expect(r.type === 'matrix' && Array.from(r.matrix[0]!.values)).toEqual([0, 60, 120]);
    await expect(range(db, 'gauge[5m]', 0, MIN, MIN, OPTS)).rejects.toSatisfy((e: unknown) => e instanceof QueryError && e.kind === 'bad_data');
    await expect(range(db, '"s"', 0, MIN, MIN, OPTS)).rejects.toBeInstanceOf(QueryError);
    await expect(range(db, 'gauge', 0, MIN, 0, OPTS)).rejects.toBeInstanceOf(QueryError);
  });

  it('evaluates a step-aligned sub-range exactly like the same steps of the whole range', async () => {
    for (const q of ['rate(counter[5m])', 'sum(gauge)', 'time() - start()', 'max_over_time(gauge[3m:1m])']) {
      const whole = await range(db, q, 0, 10 * MIN, MIN, OPTS);
      const part = await range(db, q, 0, 10 * MIN, MIN, { ...OPTS, evalRange: { start: 4 * MIN, end: 7 * MIN } });
      if (whole.type !== 'matrix' || part.type !== 'matrix') throw new Error('want matrices');
      for (const s of part.matrix) {
        const w = whole.matrix.find((x) => show(x.labels) === show(s.labels))!;
        const slice = Array.from(w.timestamps).flatMap((t, i) => (t >= 4 * MIN && t <= 7 * MIN ? [[t, w.values[i]]] : []));
        expect(Array.from(s.timestamps).map((t, i) => [t, s.values[i]]), q).toEqual(slice);
      }
    }
  });
});

describe('closedWindows (Prometheus 2 windows)', () => {
  // Samples sit on whole minutes, so every window edge below holds a sample.
  const f = async (query: string, closed: boolean, want: number[]): Promise<void> => {
    const r = await instant(db, query, 10 * MIN, { ...OPTS, closedWindows: closed });
    const got = r.type === 'vector' ? r.vector.map((s) => s.value) : r.type === 'matrix' ? r.matrix.flatMap((s) => Array.from(s.values)) : [];
    expect(got, `${query} closed=${closed}`).toEqual(want);
  };

  it('includes the sample on the left edge of range windows, the lookback and subqueries', async () => {
    await f('count_over_time(gauge{job="a"}[2m])', false, [2]);
    await f('count_over_time(gauge{job="a"}[2m])', true, [3]);
    await f('gauge{job="a"}[2m]', true, [2, 8, 7]);
    await f('count_over_time(gauge{job="a"}[3m:1m])', false, [3]);
    await f('count_over_time(gauge{job="a"}[3m:1m])', true, [4]);
    // The lookback: at 20m the last sample (10m) is exactly one lookback delta old.
    const at20 = async (closed: boolean): Promise<number[]> => {
      const r = await instant(db, 'gauge{job="a"}', 20 * MIN, { ...OPTS, lookbackDeltaMs: 10 * MIN, closedWindows: closed });
      return r.type === 'vector' ? r.vector.map((s) => s.value) : [];
    };
    expect(await at20(false)).toEqual([]);
    expect(await at20(true)).toEqual([7]);
  });
});

// withSearch is the fixture's searcher with another searchSeries.
function withSearch(searchSeries: Searcher['searchSeries']): Searcher {
  return {
    searchLabelSets: db.searchLabelSets.bind(db),
    labelNames: db.labelNames.bind(db),
    labelValues: db.labelValues.bind(db),
    seriesCount: db.seriesCount.bind(db),
    tsdbStatus: db.tsdbStatus.bind(db),
    searchSeries,
  };
}

describe('query limits and statistics', () => {
  const fails = async (query: string, opts: Partial<QueryOptions>, flag: string, isRange = false): Promise<void> => {
    const o = { ...OPTS, ...opts };
    const p = isRange ? range(db, query, 0, 10 * MIN, 1000, o) : instant(db, query, 10 * MIN, o);
    await expect(p).rejects.toSatisfy((e: unknown) => e instanceof LimitExceededError && e.flag === flag);
  };

  it('raises LimitExceededError naming the flag', async () => {
    await fails('gauge', { maxPointsPerTimeseries: 100 }, 'search.maxPointsPerTimeseries', true);
    await fails('max_over_time(gauge[10m:1s])', { maxPointsPerTimeseries: 100 }, 'search.maxPointsPerTimeseries');
    await fails('sum_over_time(gauge[10m])', { maxSamples: 5 }, 'search.maxSamplesPerQuery');
    await fails('gauge', { maxSeries: 2 }, 'search.maxUniqueTimeseries');
  });

  it('fetches identical selectors once and counts fetched series', async () => {
    const stats = async (q: string): Promise<number> => (await instant(db, q, 10 * MIN, OPTS)).stats.seriesFetched;
    expect(await stats('gauge + gauge')).toBe(3);
    expect(await stats('gauge + gauge offset 1m')).toBe(6);
  });

  // A selector written once is read series by series: each raw series is turned into grid values
  // before the next is pulled. This searcher hands every series out in the same arrays (against
  // the Searcher contract), so only a consumer that finishes each series first sees every value.
  it('reads a selector written once series by series', async () => {
    const reused = withSearch(async function* (q, signal) {
      let ts: Float64Array | undefined;
      let vs: Float64Array | undefined;
      for await (const s of db.searchSeries(q, signal)) {
        ts ??= new Float64Array(s.timestamps.length);
        vs ??= new Float64Array(s.values.length);
        ts.set(s.timestamps);
        vs.set(s.values);
        yield { labels: s.labels, timestamps: ts.subarray(0, s.timestamps.length), values: vs.subarray(0, s.values.length) };
      }
    });
    const f = async (query: string, want: Record<string, number>) => {
      const r = await instant(reused, query, 10 * MIN, OPTS);
      expect(r.type === 'vector' && Object.fromEntries(r.vector.map((s) => [show(s.labels), s.value]))).toEqual(want);
    };
    await f('gauge', { 'gauge{job="a"}': 7, 'gauge{job="b"}': 10, 'gauge{job="c"}': 4 });
    await f('gauge / ignoring(__name__) counter{job="a"}', { '{job="a"}': 0.07 });
    await f('sum(gauge)', { '{}': 21 });
  });

  // A storage search holds its parts until its generator finishes: a query that stops reading
  // (over a limit) must end it, streamed (a rollup) or fetched whole (a selector used twice).
  it('ends the storage search when a fetch goes over the samples limit', async () => {
    const open: number[] = [];
    const tracked = withSearch(async function* (q, signal) {
      open.push(1);
      try {
        yield* db.searchSeries(q, signal);
      } finally {
        open.pop();
      }
    });
    for (const query of ['sum_over_time(gauge[10m])', 'gauge + gauge']) {
      const p = instant(tracked, query, 10 * MIN, { ...OPTS, maxSamples: 5 });
      await expect(p).rejects.toSatisfy((e: unknown) => e instanceof LimitExceededError && e.flag === 'search.maxSamplesPerQuery');
      expect(open).toEqual([]);
    }
  });

  it('reads the batches of a searcher that has them, and ends that search over the samples limit', async () => {
    const open: number[] = [];
    // Batches of two series, each read only as the engine iterates it.
    async function* batches(q: SearchQuery, signal: AbortSignal): AsyncGenerator<Iterable<SeriesSamples>> {
      open.push(1);
      try {
        const all: SeriesSamples[] = [];
        for await (const x of db.searchSeries(q, signal)) all.push(x);
        for (let i = 0; i < all.length; i += 2) yield all.slice(i, i + 2);
      } finally {
        open.pop();
      }
    }
    const batched: Searcher = { ...withSearch(() => { throw new Error('searchSeries called'); }), searchSeriesBatches: batches };
    for (const query of ['sum_over_time(gauge[10m])', 'gauge + gauge', 'sum(gauge)']) {
      expect(await instant(batched, query, 10 * MIN, OPTS)).toEqual(await instant(db, query, 10 * MIN, OPTS));
      const p = instant(batched, query, 10 * MIN, { ...OPTS, maxSamples: 5 });
      await expect(p).rejects.toSatisfy((e: unknown) => e instanceof LimitExceededError && e.flag === 'search.maxSamplesPerQuery');
      expect(open).toEqual([]);
    }
  });

  it('stops when the signal is aborted', async () => {
    const ac = new AbortController();
    ac.abort(new Error('client went away'));
    await expect(instant(db, 'sum(gauge)', 10 * MIN, { ...OPTS, signal: ac.signal })).rejects.toThrow('client went away');
  });

  it('lets the event loop run during a long evaluation, so a timer can abort it', async () => {
    // 300 series x 2000 points: more work than one slice between yields. Searching a
    // MemorySearcher never waits for a macrotask, so only the evaluator's yields let the timer in.
    const big = new MemorySearcher();
    for (let k = 0; k < 300; k++) {
      for (let i = 0; i < 2000; i++) big.add(DEFAULT_TENANT, [{ name: '__name__', value: 'c' }, { name: 'k', value: String(k) }], i * 15_000, i);
    }
    const ac = new AbortController();
    setImmediate(() => ac.abort(new Error('deadline')));
    await expect(range(big, 'rate(c[1m])', 0, 2000 * 15_000, 15_000, { ...OPTS, signal: ac.signal })).rejects.toThrow('deadline');
    // Without an abort the same query completes.
    const done = await range(big, 'sum(rate(c[1m]))', 0, 2000 * 15_000, 15_000, OPTS);
    expect(done.type === 'matrix' && done.matrix).toHaveLength(1);
  });

  it('ANDs extra matchers and ORs extra filter sets into every selector', async () => {
    const r = await instant(db, 'sum(gauge)', 10 * MIN, { ...OPTS, extraMatchers: [{ name: 'job', type: '!=', value: 'c' }] });
    expect((r as Extract<QueryResult, { type: 'vector' }>).vector[0]!.value).toBe(17);
    const r2 = await instant(db, 'sum(gauge)', 10 * MIN, { ...OPTS, extraFilterSets: [[{ name: 'job', type: '=', value: 'a' }], [{ name: 'job', type: '=', value: 'c' }]] });
    expect((r2 as Extract<QueryResult, { type: 'vector' }>).vector[0]!.value).toBe(11);
  });
});

describe('MetricsQL extensions', () => {
  const f = async (query: string, want: Record<string, (number | null)[]>): Promise<void> => {
    expect(await over(query), query).toEqual(want);
  };

  it('fills, keeps and drops points with default, if and ifnot', async () => {
    await f('(gauge{job="a"} > 5) default 0', { 'gauge{job="a"}': [0, 0, 0, 0, 0, 0, 6, 0, 0, 8, 7] });
    await f('gauge{job="a"} if (gauge{job="a"} > 5)', { 'gauge{job="a"}': [N, N, N, N, N, N, 6, N, N, 8, 7] });
    await f('gauge{job="a"} ifnot (gauge{job="a"} > 5)', { 'gauge{job="a"}': [1, 3, 2, 5, 4, 4, N, 1, 2, N, N] });
    await f('nope default 3', { '{}': Array(11).fill(3) });
  });

  it('keeps metric names, expands WITH, limits groups and ORs filters', async () => {
    expect(await at('rate(counter{job="a"}[5m]) keep_metric_names')).toEqual({ 'counter{job="a"}': 50 / 300 });
    expect(await at('WITH (g = gauge{job="a"}, double(x) = x * 2) double(g)')).toEqual({ '{job="a"}': 14 });
    expect(Object.keys(await at('sum by (job) (gauge) limit 2'))).toHaveLength(2);
    expect(Object.keys(await at('gauge{job="a" or job="b"}')).sort()).toEqual(['gauge{job="a"}', 'gauge{job="b"}']);
  });

  it('uses implicit and step-based windows', async () => {
    // rate(m) without a window: max(step, 2 × sample interval) = 2m here.
    const implicit = await over('rate(counter{job="a"})');
    const explicit = await over('rate(counter{job="a"}[2m])');
    expect(implicit).toEqual(explicit);
    expect(await over('rate(counter{job="a"}[2i])')).toEqual(explicit);
  });
});
