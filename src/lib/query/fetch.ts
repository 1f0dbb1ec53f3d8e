// Fetching selector data from storage: matcher sets (with extra filters), one search per
// distinct (matchers, time range) per query, limits and statistics.

import type { VectorSelector } from '../promql/index.ts';
import { isStaleNaN, LimitExceededError, type LabelMatcher, type SearchQuery, type SeriesSamples } from '../storageapi/index.ts';
import type { QueryState } from './query-state.ts';
import type { RawSeries } from './types.ts';

/** selectorMatcherSets turns a selector into storage matcher sets (name and extra filters included). */
export function selectorMatcherSets(sel: VectorSelector, st: QueryState): LabelMatcher[][] {
  const name: LabelMatcher[] = sel.name === '' ? [] : [{ name: '__name__', type: '=', value: sel.name }];
  const base = sel.matcherSets.map((set) => [
    ...name,
    ...set.map((m): LabelMatcher => ({ name: m.name, type: m.op, value: m.value })),
    ...st.opts.extraMatchers,
  ]);
  const extra = st.opts.extraFilterSets;
  if (extra.length === 0) return base;
  return base.flatMap((set) => extra.map((e) => [...set, ...e]));
}

function fetchKey(sets: LabelMatcher[][], minT: number, maxT: number): string {
  return `${JSON.stringify(sets)}@${minT}:${maxT}`;
}

/**
 * fetchRaw returns the raw samples (staleness markers included) of every series matching sel
 * with samples in [minT, maxT] (ms, inclusive). Identical fetches within a query share one
 * storage search.
 */
export function fetchRaw(sel: VectorSelector, minT: number, maxT: number, st: QueryState): Promise<RawSeries[]> {
  const sets = selectorMatcherSets(sel, st);
  const key = fetchKey(sets, minT, maxT);
  let p = st.fetchCache.get(key);
  if (p === undefined) {
    p = doFetch(sets, minT, maxT, st);
    st.fetchCache.set(key, p);
  }
  return p;
}

/**
 * RawBatches: series in batches, each read synchronously as it is iterated (storageapi
 * Searcher.searchSeriesBatches): a reader of one series at a time awaits once per batch.
 */
export type RawBatches = AsyncIterable<Iterable<RawSeries>>;

/**
 * streamRaw yields what fetchRaw returns in batches, keeping none: a rollup over millions of
 * samples then holds one series' samples at a time instead of all of them. The caller must be
 * done with a series' timestamps and values before it asks for the next one (they may be views
 * of buffers the search reuses: SearchQuery.borrow). The data of an identical fetch already made
 * in this query is served from that fetch instead.
 */
export function streamRaw(sel: VectorSelector, minT: number, maxT: number, st: QueryState): RawBatches {
  const sets = selectorMatcherSets(sel, st);
  // The key (a JSON text of the matchers) is built only when there is a fetch to share.
  const shared = st.fetchCache.size === 0 ? undefined : st.fetchCache.get(fetchKey(sets, minT, maxT));
  return shared === undefined ? searchRaw(sets, minT, maxT, st, true) : sharedSeries(shared);
}

async function* sharedSeries(p: Promise<RawSeries[]>): AsyncGenerator<Iterable<RawSeries>> {
  yield await p;
}

async function doFetch(sets: LabelMatcher[][], minT: number, maxT: number, st: QueryState): Promise<RawSeries[]> {
  const out: RawSeries[] = [];
  for await (const batch of searchRaw(sets, minT, maxT, st, false)) for (const s of batch) out.push(s);
  return out;
}

// searchRaw runs one storage search in batches (one series per batch from a searcher without
// them), counting series and samples against the query's limits; borrow: see SearchQuery.borrow.
// Leaving the loop early (over a limit, an error in the consumer) ends the storage search, which
// unpins its parts.
async function* searchRaw(sets: LabelMatcher[][], minT: number, maxT: number, st: QueryState, borrow: boolean): AsyncGenerator<Iterable<RawSeries>> {
  if (maxT < minT) return;
  const q = searchQuery(sets, minT, maxT, st, borrow);
  const batches = st.searcher.searchSeriesBatches?.(q, st.signal) ?? oneByOne(st.searcher.searchSeries(q, st.signal));
  for await (const batch of batches) yield counted(batch, st);
}

async function* oneByOne(series: AsyncIterable<SeriesSamples>): AsyncGenerator<Iterable<SeriesSamples>> {
  for await (const s of series) yield [s];
}

function* counted(batch: Iterable<SeriesSamples>, st: QueryState): Generator<RawSeries> {
  for (const s of batch) {
    countFetched(s.timestamps.length, st);
    yield { labels: s.labels, timestamps: s.timestamps, values: s.values, dropName: false, noNaN: s.noNaN === true };
  }
}

function searchQuery(sets: LabelMatcher[][], minT: number, maxT: number, st: QueryState, borrow: boolean): SearchQuery {
  return { tenant: st.opts.tenant, matcherSets: sets, timeRange: { minTimestamp: minT, maxTimestamp: maxT }, maxSeries: st.opts.maxSeries, borrow };
}

/**
 * offloadSearch is the storage search streamRaw would run for sel over [minT, maxT], for a
 * rollup evaluated elsewhere (RollupOffload); undefined when the query already fetched the same
 * data (streamRaw then serves it from that fetch) or the range is empty.
 */
export function offloadSearch(sel: VectorSelector, minT: number, maxT: number, st: QueryState): SearchQuery | undefined {
  const sets = selectorMatcherSets(sel, st);
  if (maxT < minT || (st.fetchCache.size > 0 && st.fetchCache.has(fetchKey(sets, minT, maxT)))) return undefined;
  return searchQuery(sets, minT, maxT, st, false);
}

/**
 * countFetched records one fetched series of `samples` samples in the query's statistics and
 * enforces -search.maxSamplesPerQuery.
 */
export function countFetched(samples: number, st: QueryState): void {
  st.stats.seriesFetched++;
  st.stats.samplesFetched += samples;
  const max = st.opts.maxSamples;
  if (max > 0 && st.stats.samplesFetched > max) {
    throw new LimitExceededError(
      `the query loads more than ${max} samples; narrow the time range or the selectors, or raise -search.maxSamplesPerQuery`,
      '-search.maxSamplesPerQuery', max,
    );
  }
}

/**
 * withoutStale drops staleness markers: range vectors never contain them (Prometheus). A series
 * known to hold no NaN (RawSeries.noNaN: most stored blocks tell so as they are decoded) is
 * returned as it is without a look at its values.
 */
export function withoutStale(s: RawSeries): RawSeries {
  if (s.noNaN === true) return s;
  const vs = s.values;
  // Every stored sample passes here: look for NaN first (one compare), and only then for the
  // staleness marker's bits.
  let stale = 0;
  for (let i = 0; i < vs.length; i++) {
    const v = vs[i]!;
    if (v !== v && isStaleNaN(v)) stale++;
  }
  if (stale === 0) return s;
  const ts = new Float64Array(vs.length - stale);
  const out = new Float64Array(vs.length - stale);
  let j = 0;
  for (let i = 0; i < vs.length; i++) {
    if (isStaleNaN(vs[i]!)) continue;
    ts[j] = s.timestamps[i]!;
    out[j] = vs[i]!;
    j++;
  }
  return { ...s, timestamps: ts, values: out };
}
