import type { Labels } from '../../storageapi/api.ts';
import { LimitExceededError } from '../../storageapi/errors.ts';
import { compactMarked, EMPTY_IDS, intersectSourceRuns, markRuns, subtractIds, unionIds } from './id-sets.ts';
import type { IndexView } from './index-view.ts';
import { KIND_DAY_LABEL, KIND_DAY_SERIES, dayPrefix, decodeText, encodeText } from './keys.ts';
import { type CompiledMatcher, labelsMatch } from '../../storageapi/matchers.ts';

/** IndexQuery scopes an index lookup: one tenant, an inclusive range of UTC days. */
export interface IndexQuery {
  readonly view: IndexView;
  /** tenant is the tenant's binary key (keys.tenantKey). */
  readonly tenant: string;
  readonly minDay: number;
  readonly maxDay: number;
  readonly isDeleted: (id: number) => boolean;
  /** noneDeleted, when true, says no series is deleted (isDeleted is false for every ID). */
  readonly noneDeleted?: boolean;
  readonly signal: AbortSignal;
  /**
   * labelsOf, when set, returns the labels of a series (from a cache): once literal matchers
   * have narrowed a set to a few candidates, the other matchers are checked against their
   * labels instead of scanning every value of a regexp's label in the index.
   */
  readonly labelsOf?: (id: number) => Labels | undefined;
}

// Candidate sets up to this size are filtered by their labels (see IndexQuery.labelsOf).
const LABEL_FILTER_MAX = 1000;

/** MAX_SERIES_FLAG names the flag behind SearchQuery.maxSeries. */
export const MAX_SERIES_FLAG = 'search.maxUniqueTimeseries';

/** pastValue returns the smallest key after every item of one encoded value prefix. */
function pastValue(valuePrefix: string): string {
  // valuePrefix ends with the value's 0x00 terminator; 0x01 there sorts after all its items.
  return valuePrefix.slice(0, -1) + '\x01';
}

/**
 * forEachValue walks the distinct values of one label on one day that start with valueHead,
 * calling visit(value, valuePrefix) where valuePrefix starts every item of that value (see
 * IndexView.idsWithPrefix).
 */
function forEachValue(q: IndexQuery, day: number, name: string, valueHead: string, visit: (value: string, valuePrefix: string) => void): void {
  const namePrefix = dayPrefix(KIND_DAY_LABEL, q.tenant, day) + encodeText(name);
  // The escaped text of a value starting with valueHead starts with valueHead's escaped text.
  const scanPrefix = valueHead === '' ? namePrefix : namePrefix + encodeText(valueHead).slice(0, -1);
  const c = q.view.cursor();
  c.seek(scanPrefix);
  let steps = 0;
  while (c.current !== undefined && c.current.startsWith(scanPrefix)) {
    const item = c.current;
    const [value, end] = decodeText(item, namePrefix.length);
    const valuePrefix = item.slice(0, end);
    visit(value, valuePrefix);
    c.seek(pastValue(valuePrefix));
    if (++steps % 256 === 0) q.signal.throwIfAborted();
  }
}

function valuePrefix(q: IndexQuery, day: number, name: string, value: string): string {
  return dayPrefix(KIND_DAY_LABEL, q.tenant, day) + encodeText(name) + encodeText(value);
}

/** allSeriesOfDay returns every series with samples on day. */
export function allSeriesOfDay(q: IndexQuery, day: number): Float64Array {
  return q.view.idsWithPrefix(dayPrefix(KIND_DAY_SERIES, q.tenant, day));
}

/**
 * forEachValuePrefix calls visit with the index prefix of every value of label m.name for which
 * m.matches(value) === want: a matcher's literals directly when want, else a walk of the values.
 * A matcher with ranges (want only) gives its exact values here; see forEachRangePrefix.
 */
function forEachValuePrefix(q: IndexQuery, day: number, m: CompiledMatcher, want: boolean, visit: (valuePrefix: string) => void): void {
  const exact = want ? (m.literals ?? m.ranges?.exact) : undefined;
  if (exact) {
    for (const v of exact) visit(valuePrefix(q, day, m.name, v));
    return;
  }
  forEachValue(q, day, m.name, want ? (m.prefix ?? '') : '', (value, prefix) => {
    if (m.matches(value) === want) visit(prefix);
  });
}

/**
 * forEachRangePrefix calls visit with the index prefix of the items of every value of label
 * m.name starting with one of m.ranges' prefixes: each such value matches, so none is tested
 * and no value is sought one by one (VictoriaMetrics scans such regexps' key ranges too). The
 * items under one such prefix span several values: read them with IndexView.ascendingRunsBySource.
 */
function forEachRangePrefix(q: IndexQuery, day: number, m: CompiledMatcher, visit: (rangePrefix: string) => void): void {
  if (!m.ranges) return;
  const namePrefix = dayPrefix(KIND_DAY_LABEL, q.tenant, day) + encodeText(m.name);
  // The escaped text of a value starting with p starts with p's escaped text (without its end).
  for (const p of m.ranges.prefixes) visit(namePrefix + encodeText(p).slice(0, -1));
}

/** idsWhere returns the series of day having label m.name with a value for which want(value). */
function idsWhere(q: IndexQuery, day: number, m: CompiledMatcher, want: boolean): Float64Array {
  const parts: Float64Array[] = [];
  forEachValuePrefix(q, day, m, want, (prefix) => parts.push(q.view.idsWithPrefix(prefix)));
  if (want) forEachRangePrefix(q, day, m, (prefix) => {
    for (const runs of q.view.ascendingRunsBySource(prefix)) parts.push(...runs);
  });
  return unionIds(parts);
}

/**
 * idsWhereWithin is within ∩ idsWhere(q, day, m, true), found by marking the IDs of within that
 * each accepted value holds, as each index source holds them (IndexView.idRunsBySource): a regexp
 * accepting many values of a label (instance=~"host-000[0-4].*": 50 values of ~170 series each at
 * 100k series) otherwise copied and merged every one of their series only to keep the few of
 * within. Marks are or-ed, so the sources need no union.
 */
function idsWhereWithin(q: IndexQuery, day: number, m: CompiledMatcher, within: Float64Array): Float64Array {
  const keep = new Uint8Array(within.length);
  forEachValuePrefix(q, day, m, true, (prefix) => {
    for (const runs of q.view.idRunsBySource(prefix)) markRuns(within, runs, keep);
  });
  // Each run of a range ascends on its own (not after the one before): mark them one by one.
  forEachRangePrefix(q, day, m, (prefix) => {
    for (const runs of q.view.ascendingRunsBySource(prefix)) for (const run of runs) markRuns(within, [run], keep);
  });
  return compactMarked(within, keep);
}

/**
 * idsForSet returns the series of day matching every matcher of the set. A matcher that accepts
 * "" also selects series without the label (PromQL: {a=""} matches series lacking a), so it is
 * applied as "all series minus those whose value it rejects".
 */
function idsForSet(q: IndexQuery, day: number, set: readonly CompiledMatcher[]): Float64Array {
  const positive = set.filter((m) => !m.matchesEmpty);
  const negative = set.filter((m) => m.matchesEmpty);
  // Equality first: it is the cheapest and usually the most selective.
  positive.sort((a, b) => (a.literals ? a.literals.length : 1e9) - (b.literals ? b.literals.length : 1e9));
  const byLabels: CompiledMatcher[] = [];
  const few = (ids: Float64Array | undefined): ids is Float64Array => ids !== undefined && ids.length <= LABEL_FILTER_MAX && q.labelsOf !== undefined;
  // The equality matchers (first after the sort) are intersected in one pass over their IDs
  // as each index source holds them (IndexView.idRunsBySource), without a copy of each set.
  const exact: Float64Array[][][] = [];
  let k = 0;
  for (; k < positive.length && positive[k]!.literals?.length === 1; k++) {
    const sources = q.view.idRunsBySource(valuePrefix(q, day, positive[k]!.name, positive[k]!.literals![0]!));
    if (sources.length === 0) return EMPTY_IDS;
    exact.push(sources);
  }
  let ids: Float64Array | undefined;
  if (exact.length > 0) {
    ids = intersectSourceRuns(exact);
    if (ids.length === 0) return EMPTY_IDS;
  }
  for (const m of positive.slice(k)) {
    if (few(ids) && !m.literals) {
      byLabels.push(m);
      continue;
    }
    ids = ids === undefined ? idsWhere(q, day, m, true) : idsWhereWithin(q, day, m, ids);
    if (ids.length === 0) return EMPTY_IDS;
  }
  ids ??= allSeriesOfDay(q, day);
  for (const m of negative) {
    if (ids.length === 0) break;
    if (few(ids)) byLabels.push(m);
    else ids = subtractIds(ids, idsWhere(q, day, m, false));
  }
  return byLabels.length > 0 ? filterByLabels(q, ids, byLabels) : ids;
}

// filterByLabels keeps the IDs whose labels every matcher accepts ("" for a missing label).
function filterByLabels(q: IndexQuery, ids: Float64Array, matchers: readonly CompiledMatcher[]): Float64Array {
  const out = new Float64Array(ids.length);
  let n = 0;
  for (const id of ids) {
    const labels = q.labelsOf!(id);
    if (labels !== undefined && labelsMatch(labels, matchers)) out[n++] = id;
  }
  return out.subarray(0, n);
}

/**
 * searchIds returns the sorted IDs of live (not deleted) series of the tenant that match any of
 * the matcher sets on any day of the range. An empty list of sets matches every series. Throws
 * LimitExceededError when more than maxSeries (0 = unlimited) series match.
 */
export function searchIds(q: IndexQuery, sets: readonly (readonly CompiledMatcher[])[], maxSeries: number): Float64Array {
  const perDay: Float64Array[] = [];
  let total = 0;
  for (let day = q.minDay; day <= q.maxDay; day++) {
    q.signal.throwIfAborted();
    const dayIds = withoutDeleted(q, sets.length === 0 ? allSeriesOfDay(q, day) : unionIds(sets.map((s) => idsForSet(q, day, s))));
    perDay.push(dayIds);
    total += dayIds.length;
    // The union over days can only shrink the total; compact early to keep memory bounded.
    if (maxSeries > 0 && total > maxSeries * 2) {
      const u = unionIds(perDay);
      perDay.length = 0;
      perDay.push(u);
      total = u.length;
      checkMax(u.length, maxSeries);
    }
  }
  const ids = unionIds(perDay);
  checkMax(ids.length, maxSeries);
  return ids;
}

function withoutDeleted(q: IndexQuery, ids: Float64Array): Float64Array {
  if (q.noneDeleted === true) return ids;
  let n = 0;
  const out = new Float64Array(ids.length);
  for (const id of ids) if (!q.isDeleted(id)) out[n++] = id;
  return n === ids.length ? ids : out.subarray(0, n);
}

function checkMax(n: number, maxSeries: number): void {
  if (maxSeries > 0 && n > maxSeries) {
    throw new LimitExceededError(
      `the search matches more than ${maxSeries} series; narrow the selector or the time range, or raise -${MAX_SERIES_FLAG}`,
      MAX_SERIES_FLAG,
      maxSeries,
    );
  }
}
