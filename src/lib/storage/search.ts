import { setImmediate as yieldNow } from 'node:timers/promises';
import type { Labels, SearchQuery, SeriesSamples, Tenant, TimeRange, TsdbStatus, TsdbStatusQuery } from '../storageapi/api.ts';
import { checkTenant } from '../storageapi/tenant.ts';
import type { StorageCore } from './core.ts';
import type { DataPart } from './part/data-part.ts';
import { SeriesBlockCursor } from './part/block-cursors.ts';
import { finishSeries, followsOn } from './part/block-decode.ts';
import { labelNamesOfDays, labelValuesOfDays, tsdbStatusOfDay } from './index/index-labels.ts';
import { type IndexQuery, searchIds } from './index/index-search.ts';
import { KIND_DAY_SERIES, MS_PER_DAY, dayKey, dayOf, readDayKey, readIdKey, readTenantKey, tenantKey } from './index/keys.ts';
import { type CompiledMatcher, compileMatcher } from '../storageapi/matchers.ts';
import { dayRange } from './retention.ts';
import type { SeriesScratch } from './part/series-scratch.ts';

export { checkTenant };

function checkRange(r: TimeRange): void {
  if (!r || Number.isNaN(r.minTimestamp) || Number.isNaN(r.maxTimestamp)) throw new Error(`invalid time range ${JSON.stringify(r)}`);
}

function compileSets(q: SearchQuery): CompiledMatcher[][] {
  return q.matcherSets.map((set) => set.map(compileMatcher));
}

/** withIndex runs fn over an index view scoped to the query's tenant and days, releasing it after. */
function withIndex<T>(core: StorageCore, tenant: Tenant, range: TimeRange, signal: AbortSignal, fn: (q: IndexQuery) => T): T {
  checkTenant(tenant);
  checkRange(range);
  signal.throwIfAborted();
  const { minDay, maxDay } = dayRange(range.minTimestamp, range.maxTimestamp, core.opts.now(), core.opts.retentionMs);
  const view = core.index.view();
  const tk = tenantKey(tenant);
  try {
    return fn({ view, tenant: tk, minDay, maxDay, isDeleted: core.isDeleted, noneDeleted: core.deleted.size === 0, signal, labelsOf: (id) => labelsOfSeries(core, tk, id) });
  } finally {
    view.release();
  }
}

/** matchingIds returns the IDs of live series matching q (index lookup only). */
export function matchingIds(core: StorageCore, q: SearchQuery, signal: AbortSignal): Float64Array {
  const sets = compileSets(q);
  return withIndex(core, q.tenant, q.timeRange, signal, (iq) => searchIds(iq, sets, q.maxSeries));
}

/** labelsOfSeries returns the labels of series id of tenant (cached), or undefined. */
export function labelsOfSeries(core: StorageCore, tenant: string, id: number): Labels | undefined {
  // Keyed by the number: a string key would be built and hashed on every lookup.
  const hit = core.labelsCache.get(id);
  if (hit) return hit;
  const lk = core.index.labelsOf(tenant, id);
  if (lk === undefined) return undefined;
  const labels = core.labelPairs.decode(lk);
  // The array and the cache's entry; its pairs are shared and counted by core.labelPairs.
  core.labelsCache.set(id, labels, labels.length * 4 + 96);
  return labels;
}

// A search gives the event loop a turn after this much work.
export const YIELD_EVERY_ROWS = 32 * 1024;

/** pinParts acquires the parts that may hold samples in [minTs, maxTs], oldest first; release each when done. */
function pinParts(core: StorageCore, minTs: number, maxTs: number): DataPart[] {
  const parts: DataPart[] = [];
  for (const p of core.partitions.values()) {
    if (p.maxTs < minTs || p.minTs > maxTs) continue;
    for (const part of p.parts) {
      if (part.meta.maxTimestamp < minTs || part.meta.minTimestamp > maxTs) continue;
      part.acquire();
      parts.push(part);
    }
  }
  // Oldest first: a series whose parts do not overlap in time then comes out already sorted.
  return parts.sort((a, b) => a.meta.minTimestamp - b.meta.minTimestamp);
}

/**
 * searchSeries streams matching series with their samples in the range, in series-ID order.
 * Parts are pinned (reference-counted) for the whole iteration, so merges and retention can
 * proceed meanwhile; breaking out of the loop releases them.
 */
export async function* searchSeries(core: StorageCore, q: SearchQuery, signal: AbortSignal): AsyncGenerator<SeriesSamples> {
  for await (const batch of searchSeriesBatches(core, q, signal)) yield* batch;
}

/**
 * searchSeriesBatches is searchSeries in batches (Searcher.searchSeriesBatches): a batch reads
 * its series one by one as it is iterated, until YIELD_EVERY_ROWS of work, and the event loop
 * gets a turn before the next batch. A caller that reads series one at a time then awaits once
 * per batch: an await per series (a few promises and results each) was a large part of a query
 * over many short series. Parts stay pinned until the iteration ends, however it ends.
 */
export async function* searchSeriesBatches(core: StorageCore, q: SearchQuery, signal: AbortSignal): AsyncGenerator<Iterable<SeriesSamples>> {
  const scope = openSeriesScope(core, q, signal);
  if (scope === undefined) return;
  let read: SeriesRead | undefined;
  try {
    read = new SeriesRead(core, q, scope, signal);
    while (!read.done) {
      yield read.batch();
      if (!read.done) await yieldNow();
    }
  } finally {
    read?.release();
    scope.release();
  }
}

// SeriesRead is the state of one series search between its batches: the next series to read,
// the part cursors and the scratch the series are gathered in.
class SeriesRead {
  readonly #core: StorageCore;
  readonly #scope: SeriesScope;
  readonly #signal: AbortSignal;
  readonly #borrow: boolean;
  readonly #cursors: SeriesBlockCursor[];
  readonly #s: SeriesScratch;
  #next = 0;

  constructor(core: StorageCore, q: SearchQuery, scope: SeriesScope, signal: AbortSignal) {
    this.#core = core;
    this.#scope = scope;
    this.#signal = signal;
    this.#borrow = q.borrow === true;
    this.#cursors = scope.parts.map((p) => new SeriesBlockCursor(p, scope.minTs, scope.maxTs, scope.ids, core.readBuffers));
    this.#s = core.scratches.take();
  }

  get done(): boolean {
    return this.#next >= this.#scope.ids.length;
  }

  /** batch reads series from the next one on, until YIELD_EVERY_ROWS of work. */
  *batch(): Generator<SeriesSamples> {
    const { ids, minTs, maxTs, buffers, tk, dedupMs } = this.#scope;
    const core = this.#core;
    const s = this.#s;
    let work = 0;
    while (work < YIELD_EVERY_ROWS && this.#next < ids.length) {
      const id = ids[this.#next++]!;
      s.reset();
      // Parts come oldest first: on unmerged data a series' parts usually follow on in time, and
      // then its samples need no sort (two passes over every sample otherwise).
      let ordered = true;
      for (const c of this.#cursors) {
        const from = s.n;
        if (c.readSeries(id, s) > 0 && !followsOn(s, from)) ordered = false;
      }
      const buffered = appendBufferedRows(buffers, id, s);
      work += s.n + 100;
      const [lo, hi] = finishSeries(s, !ordered || buffered > 0, dedupMs, minTs, maxTs);
      const labels = hi > lo && !core.isDeleted(id) ? labelsOfSeries(core, tk, id) : undefined;
      // A borrowing caller gets views of the scratch buffers (rewritten for the next series): a
      // copy per series cost more than decoding it (a 24 h range query copies 23 KB per series).
      if (labels !== undefined) {
        const noNaN = !s.mayHoldNaN;
        yield this.#borrow
          ? { labels, timestamps: s.ts.subarray(lo, hi), values: s.vals.subarray(lo, hi), noNaN }
          : { labels, timestamps: s.ts.slice(lo, hi), values: s.vals.slice(lo, hi), noNaN };
      }
      this.#signal.throwIfAborted();
    }
  }

  /** release gives back the scratch and the read buffers; the caller is done with the last series (borrowed views included). */
  release(): void {
    this.#core.scratches.give(this.#s);
    for (const c of this.#cursors) c.release();
  }
}

/** SeriesScope is what one series search holds: the matching ids, its range, and the parts and buffers it pinned. */
export interface SeriesScope {
  readonly ids: Float64Array;
  readonly minTs: number;
  readonly maxTs: number;
  readonly parts: readonly DataPart[];
  readonly buffers: ReturnType<StorageCore['acquireBuffers']>;
  readonly tk: ReturnType<typeof tenantKey>;
  readonly dedupMs: number;
  /** release unpins the parts and buffers; call it once the search ends, however it ends. */
  release(): void;
}

/**
 * openSeriesScope starts a series search (searchSeries here, searchSeriesBlocks on a cluster
 * storage node): undefined when no series matches, else a scope whose parts and buffers stay
 * pinned until release.
 */
export function openSeriesScope(core: StorageCore, q: SearchQuery, signal: AbortSignal): SeriesScope | undefined {
  const ids = matchingIds(core, q, signal);
  if (ids.length === 0) return undefined;
  const minTs = Math.max(0, q.timeRange.minTimestamp);
  const maxTs = q.timeRange.maxTimestamp;
  const parts = pinParts(core, minTs, maxTs);
  const buffers = core.acquireBuffers();
  const release = () => {
    for (const p of parts) p.release();
    for (const b of buffers) b.release();
  };
  return { ids, minTs, maxTs, parts, buffers, tk: tenantKey(q.tenant), dedupMs: core.opts.minScrapeIntervalMs, release };
}

/** appendBufferedRows appends series id's not-yet-flushed rows from buffers to s; returns how many buffers held some. */
export function appendBufferedRows(buffers: SeriesScope['buffers'], id: number, s: SeriesScratch): number {
  let holding = 0;
  for (const b of buffers) {
    const rows = b.rowsOf(id);
    if (rows === 0) continue;
    s.ensure(rows);
    s.n += b.copySeries(id, s.ts, s.vals, s.n);
    s.mayHoldNaN = true;
    holding++;
  }
  return holding;
}

/** searchLabelSets returns label sets of matching series (index lookup, day granularity). */
export function searchLabelSets(core: StorageCore, q: SearchQuery, limit: number, signal: AbortSignal): Labels[] {
  const ids = matchingIds(core, q, signal);
  const tk = tenantKey(q.tenant);
  const out: Labels[] = [];
  for (const id of ids) {
    if (limit > 0 && out.length >= limit) break;
    const l = labelsOfSeries(core, tk, id);
    if (l) out.push(l);
    if (out.length % 1024 === 0) signal.throwIfAborted();
  }
  return out;
}

/** labelNames returns the sorted label names of matching series (all series without matchers). */
export function labelNames(core: StorageCore, q: SearchQuery, limit: number, signal: AbortSignal): string[] {
  const filter = q.matcherSets.length > 0 ? matchingIds(core, q, signal) : undefined;
  return withIndex(core, q.tenant, q.timeRange, signal, (iq) => labelNamesOfDays(iq, filter, limit));
}

/** labelValues returns the sorted values of one label over matching series. */
export function labelValues(core: StorageCore, q: SearchQuery, name: string, limit: number, signal: AbortSignal): string[] {
  const filter = q.matcherSets.length > 0 ? matchingIds(core, q, signal) : undefined;
  return withIndex(core, q.tenant, q.timeRange, signal, (iq) => labelValuesOfDays(iq, name, filter, limit));
}

/** seriesCount counts the tenant's series that are not deleted. */
export function seriesCount(core: StorageCore, tenant: Tenant): number {
  checkTenant(tenant);
  const name = `${tenant.accountID}:${tenant.projectID}`;
  return (core.index.tenantSeries().get(name) ?? 0) - core.deleted.countOf(name);
}

/** tsdbStatus computes cardinality statistics of one UTC day (today when q.date is not a number). */
export function tsdbStatus(core: StorageCore, q: TsdbStatusQuery, signal: AbortSignal): TsdbStatus {
  const date = Number.isFinite(q.date) ? q.date : core.opts.now();
  const day = dayOf(date);
  const range = { minTimestamp: day * MS_PER_DAY, maxTimestamp: (day + 1) * MS_PER_DAY - 1 };
  const filter = q.matcherSets.length > 0 ? matchingIds(core, { tenant: q.tenant, matcherSets: q.matcherSets, timeRange: range, maxSeries: 0 }, signal) : undefined;
  const topN = q.topN > 0 ? q.topN : 10;
  return withIndex(core, q.tenant, range, signal, (iq: IndexQuery) => tsdbStatusOfDay({ ...iq, minDay: day, maxDay: day }, filter, topN, q.focusLabel));
}


/**
 * listTenants returns the tenants with a live series that had a sample on a day of range, sorted
 * (tenant keys are big-endian, so item order is numeric order). It walks the per-day series items
 * (`04 tenant day id`), one seek per tenant and per skipped stretch of days: its cost grows with
 * the number of tenants, not of series (deleted series at the head of a tenant's days excepted).
 */
export function listTenants(core: StorageCore, range: TimeRange, signal: AbortSignal): Tenant[] {
  checkRange(range);
  signal.throwIfAborted();
  const { minDay, maxDay } = dayRange(range.minTimestamp, range.maxTimestamp, core.opts.now(), core.opts.retentionMs);
  const out: Tenant[] = [];
  if (minDay > maxDay) return out;
  const view = core.index.view();
  try {
    const c = view.cursor();
    // Items are binary strings (chars <= 0xff): key + '\u0100' sorts after every item starting with key.
    for (let next = KIND_DAY_SERIES; ; ) {
      c.seek(next);
      const first = c.current;
      if (first === undefined || first[0] !== KIND_DAY_SERIES) break;
      const prefix = first.slice(0, 9);
      next = prefix + '\u0100';
      c.seek(prefix + dayKey(minDay));
      for (let item = c.current, n = 0; item !== undefined && item.startsWith(prefix); c.next(), item = c.current) {
        if (readDayKey(item, 9) > maxDay) break;
        if (!core.isDeleted(readIdKey(item, 13))) {
          out.push(readTenantKey(item, 1));
          break;
        }
        if (++n % 4096 === 0) signal.throwIfAborted();
      }
    }
  } finally {
    view.release();
  }
  return out;
}
