// MemorySearcher: an in-memory storageapi implementation (Searcher, Deleter, Inserter,
// TenantLister) for tests, the conformance runner and benchmarks. It is real: PromQL matcher
// semantics (storageapi's compileMatcher, the one the storage engine uses), inclusive time ranges,
// the series and labels limits, and abort signals; the storageapi contract suite runs against it.

import {
  LimitExceededError, checkTenant, compileMatcher, labelsMatch, type CompiledMatcher, type Deleter, type Inserter, type LabelMatcher, type Labels,
  type MetricRow, type NameCount, type SearchQuery, type Searcher, type SeriesSamples, type Tenant, type TenantLister, type TimeRange,
  type TsdbStatus, type TsdbStatusQuery,
} from '../storageapi/index.ts';
import { getLabel, labelsKey } from './labels.ts';

// Values live in a Float64Array (grown by doubling): V8 canonicalises NaNs stored into plain
// number arrays, which would turn staleness markers into ordinary NaNs.
interface StoredSeries {
  readonly labels: Labels;
  timestamps: number[];
  values: Float64Array;
}

const tenantKey = (t: Tenant): string => `${t.accountID}:${t.projectID}`;

/**
 * matchesAnySet: the series matches when every matcher of at least one set matches. Throws
 * MatcherError for an invalid regexp.
 */
export function matchesAnySet(ls: Labels, sets: readonly (readonly LabelMatcher[])[]): boolean {
  return matchesCompiled(ls, compileSets(sets));
}

const compileSets = (sets: readonly (readonly LabelMatcher[])[]): CompiledMatcher[][] => sets.map((set) => set.map(compileMatcher));
const matchesCompiled = (ls: Labels, sets: readonly (readonly CompiledMatcher[])[]): boolean => sets.some((set) => labelsMatch(ls, set));

/** MemorySearcherOptions are the write limits of addRows and the clock. */
export interface MemorySearcherOptions {
  /** maxLabelsPerTimeseries rejects rows of series with more labels in addRows (0: no limit, the default). */
  readonly maxLabelsPerTimeseries?: number;
  /** now is the clock (ms) that picks "today" for tsdbStatus without a date; default Date.now. */
  readonly now?: () => number;
}

export class MemorySearcher implements Searcher, Deleter, Inserter, TenantLister {
  private readonly tenants = new Map<string, Map<string, StoredSeries>>();
  private readonly tenantOf = new Map<string, Tenant>();
  private readonly maxLabels: number;
  private readonly now: () => number;

  constructor(opts: MemorySearcherOptions = {}) {
    this.maxLabels = opts.maxLabelsPerTimeseries ?? 0;
    this.now = opts.now ?? Date.now;
  }

  /**
   * addRows stores rows through add(); rows of series over maxLabelsPerTimeseries are skipped and
   * reported by a LimitExceededError after the others were stored (the storage engine's behaviour).
   */
  async addRows(tenant: Tenant, rows: readonly MetricRow[]): Promise<void> {
    checkTenant(tenant);
    let rejected = 0;
    let first = '';
    for (const r of rows) {
      if (this.maxLabels > 0 && r.labels.length > this.maxLabels) {
        if (rejected++ === 0) first = `series ${labelsKey(r.labels)} has ${r.labels.length} labels, more than -maxLabelsPerTimeseries=${this.maxLabels}`;
        continue;
      }
      this.add(tenant, r.labels, r.timestamp, r.value);
    }
    if (rejected > 0) throw new LimitExceededError(`rejected ${rejected} of ${rows.length} rows: ${first}`, 'maxLabelsPerTimeseries', this.maxLabels);
  }

  /** listTenants returns the tenants with a series having a sample in range, sorted. */
  async listTenants(range: TimeRange, signal: AbortSignal): Promise<Tenant[]> {
    signal.throwIfAborted();
    const out: Tenant[] = [];
    for (const [key, series] of this.tenants) {
      for (const s of series.values()) {
        if (!hasSampleIn(s, range.minTimestamp, range.maxTimestamp)) continue;
        out.push(this.tenantOf.get(key)!);
        break;
      }
    }
    return out.sort((a, b) => a.accountID - b.accountID || a.projectID - b.projectID);
  }

  /**
   * add appends one sample; samples may arrive in any order, and a later sample at the same
   * timestamp replaces the earlier one. Values are stored bit-exact (staleness markers survive).
   */
  add(tenant: Tenant, labels: Labels, timestamp: number, value: number): void {
    let series = this.tenants.get(tenantKey(tenant));
    if (series === undefined) {
      series = new Map();
      this.tenants.set(tenantKey(tenant), series);
      this.tenantOf.set(tenantKey(tenant), { accountID: tenant.accountID, projectID: tenant.projectID });
    }
    const key = labelsKey(labels);
    let s = series.get(key);
    if (s === undefined) {
      s = { labels, timestamps: [], values: new Float64Array(8) };
      series.set(key, s);
    }
    insertSample(s, timestamp, value);
  }

  /** clear removes every series of every tenant. */
  clear(): void {
    this.tenants.clear();
  }

  private select(q: SearchQuery, signal: AbortSignal, needSamples: boolean): StoredSeries[] {
    signal.throwIfAborted();
    const out: StoredSeries[] = [];
    const all = this.tenants.get(tenantKey(q.tenant));
    if (all === undefined) return out;
    const { minTimestamp: lo, maxTimestamp: hi } = q.timeRange;
    const sets = compileSets(q.matcherSets);
    for (const s of all.values()) {
      if (sets.length > 0 && !matchesCompiled(s.labels, sets)) continue;
      if (needSamples && !hasSampleIn(s, lo, hi)) continue;
      out.push(s);
      if (q.maxSeries > 0 && out.length > q.maxSeries) {
        throw new LimitExceededError(
          `the query selects more than ${q.maxSeries} unique series; narrow it down or raise -search.maxUniqueTimeseries`,
          '-search.maxUniqueTimeseries', q.maxSeries,
        );
      }
    }
    return out;
  }

  async *searchSeries(q: SearchQuery, signal: AbortSignal): AsyncIterable<SeriesSamples> {
    const { minTimestamp: lo, maxTimestamp: hi } = q.timeRange;
    for (const s of this.select(q, signal, true)) {
      signal.throwIfAborted();
      const from = lowerBound(s.timestamps, lo);
      const to = lowerBound(s.timestamps, hi + 1);
      yield {
        labels: s.labels,
        timestamps: Float64Array.from(s.timestamps.slice(from, to)),
        values: copyValues(s.values, from, to),
      };
    }
  }

  async searchLabelSets(q: SearchQuery, limit: number, signal: AbortSignal): Promise<Labels[]> {
    const sets = this.select(q, signal, true).map((s) => s.labels);
    return limit > 0 ? sets.slice(0, limit) : sets;
  }

  async labelNames(q: SearchQuery, limit: number, signal: AbortSignal): Promise<string[]> {
    const names = new Set<string>();
    for (const s of this.select(q, signal, true)) for (const l of s.labels) names.add(l.name);
    const sorted = [...names].sort();
    return limit > 0 ? sorted.slice(0, limit) : sorted;
  }

  async labelValues(q: SearchQuery, labelName: string, limit: number, signal: AbortSignal): Promise<string[]> {
    const values = new Set<string>();
    for (const s of this.select(q, signal, true)) {
      const v = getLabel(s.labels, labelName);
      if (v !== '') values.add(v);
    }
    const sorted = [...values].sort();
    return limit > 0 ? sorted.slice(0, limit) : sorted;
  }

  async seriesCount(tenant: Tenant, signal: AbortSignal): Promise<number> {
    signal.throwIfAborted();
    return this.tenants.get(tenantKey(tenant))?.size ?? 0;
  }

  async tsdbStatus(q: TsdbStatusQuery, signal: AbortSignal): Promise<TsdbStatus> {
    const dayMs = 86_400_000;
    // The UTC day holding q.date (today when it is not a number), as the storage engine reads it.
    const day = Math.floor((Number.isFinite(q.date) ? q.date : this.now()) / dayMs) * dayMs;
    const series = this.select(
      { tenant: q.tenant, matcherSets: q.matcherSets, timeRange: { minTimestamp: day, maxTimestamp: day + dayMs - 1 }, maxSeries: 0 },
      signal, true,
    );
    const byName = new Map<string, number>();
    const byLabel = new Map<string, number>();
    const byFocus = new Map<string, number>();
    const byPair = new Map<string, number>();
    const valuesByLabel = new Map<string, Set<string>>();
    const bump = (m: Map<string, number>, k: string): void => void m.set(k, (m.get(k) ?? 0) + 1);
    for (const s of series) {
      bump(byName, getLabel(s.labels, '__name__'));
      for (const l of s.labels) {
        bump(byLabel, l.name);
        bump(byPair, `${l.name}=${l.value}`);
        if (!valuesByLabel.has(l.name)) valuesByLabel.set(l.name, new Set());
        valuesByLabel.get(l.name)!.add(l.value);
        if (l.name === q.focusLabel) bump(byFocus, l.value);
      }
    }
    const top = (m: Map<string, number>): NameCount[] =>
      [...m].map(([name, count]) => ({ name, count })).sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : 1)).slice(0, q.topN);
    return {
      totalSeries: series.length,
      totalLabelValuePairs: series.reduce((n, s) => n + s.labels.length, 0),
      seriesCountByMetricName: top(byName),
      seriesCountByLabelName: top(byLabel),
      seriesCountByFocusLabelValue: top(byFocus),
      seriesCountByLabelValuePair: top(byPair),
      labelValueCountByLabelName: top(new Map([...valuesByLabel].map(([k, v]) => [k, v.size]))),
    };
  }

  async deleteSeries(q: SearchQuery, signal: AbortSignal): Promise<number> {
    const all = this.tenants.get(tenantKey(q.tenant));
    if (all === undefined) return 0;
    const victims = this.select({ ...q, maxSeries: 0 }, signal, false);
    for (const s of victims) all.delete(labelsKey(s.labels));
    return victims.length;
  }
}

function insertSample(s: StoredSeries, t: number, v: number): void {
  const n = s.timestamps.length;
  const i = n === 0 || s.timestamps[n - 1]! < t ? n : lowerBound(s.timestamps, t);
  if (i < n && s.timestamps[i] === t) {
    s.values[i] = v;
    return;
  }
  if (n === s.values.length) {
    const grown = new Float64Array(n * 2);
    grown.set(s.values);
    s.values = grown;
  }
  if (i < n) s.values.copyWithin(i + 1, i, n);
  s.values[i] = v;
  s.timestamps.splice(i, 0, t);
}

/** lowerBound returns the first index whose element is >= x. */
function lowerBound(a: readonly number[], x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function hasSampleIn(s: StoredSeries, lo: number, hi: number): boolean {
  const i = lowerBound(s.timestamps, lo);
  return i < s.timestamps.length && s.timestamps[i]! <= hi;
}

// copyValues copies typed-array to typed-array so NaN payloads (staleness markers) are kept.
function copyValues(values: Float64Array, from: number, to: number): Float64Array {
  return values.slice(from, to);
}
