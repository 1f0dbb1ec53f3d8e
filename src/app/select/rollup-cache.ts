import type { Expr } from '../../lib/promql/index.ts';
import type { SeriesResult } from '../../lib/query/index.ts';
import { labelsJson } from './json-writer.ts';

/** CachedRange is a range-query result for steps start, start+step, …, end (ms), all old enough to keep. */
export interface CachedRange {
  readonly start: number;
  readonly end: number;
  readonly step: number;
  readonly matrix: readonly SeriesResult[];
}

interface Entry extends CachedRange {
  readonly bytes: number;
}

/**
 * RollupResultCache keeps range-query results so a dashboard refreshing a sliding window evaluates
 * only the new steps. Entries are keyed by query (tenant, text, filters) and step; memory is capped
 * (LRU by bytes). Results newer than now minus -search.cacheTimestampOffset are never stored, and
 * the whole cache is reset by deletes, backfills and /internal/resetRollupResultCache.
 */
export class RollupResultCache {
  readonly maxBytes: number;
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;
  hits = 0;
  misses = 0;
  resets = 0;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** get returns a cached range of the same step whose steps line up with start, or undefined. */
  get(key: string, start: number, step: number): CachedRange | undefined {
    const e = this.#entries.get(key);
    if (e === undefined || e.step !== step || (((start - e.start) % step) + step) % step !== 0) {
      this.misses++;
      return undefined;
    }
    this.#entries.delete(key);
    this.#entries.set(key, e);
    this.hits++;
    return e;
  }

  put(key: string, r: CachedRange): void {
    const bytes = estimateBytes(r.matrix) + key.length * 2;
    if (bytes > this.maxBytes / 4) return; // one huge result must not flush everything else
    this.#remove(key);
    this.#entries.set(key, { ...r, bytes });
    this.#bytes += bytes;
    for (const [k] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#remove(k);
    }
  }

  reset(): void {
    this.#entries.clear();
    this.#bytes = 0;
    this.resets++;
  }

  #remove(key: string): void {
    const e = this.#entries.get(key);
    if (e === undefined) return;
    this.#entries.delete(key);
    this.#bytes -= e.bytes;
  }
}

function estimateBytes(matrix: readonly SeriesResult[]): number {
  let n = 0;
  for (const s of matrix) n += 64 + s.timestamps.length * 16 + s.labels.reduce((a, l) => a + 2 * (l.name.length + l.value.length) + 32, 0);
  return n;
}

// Functions whose value at a step depends on other steps of the query range, on the query's
// start or end (start(), end(), range()), or on the clock (now(), rand*): caching a part of
// their result and reusing it for another range would change it.
const RANGE_DEPENDENT = /^(range_|running_|topk_|bottomk_|sort|keep_last_value$|keep_next_value$|interpolate$|remove_resets$|smooth_exponential$|limit_offset$|rand|start$|end$|range$|now$)/;

/** isCacheable reports whether a range query's result may be assembled from cached and new steps. */
export function isCacheable(e: Expr): boolean {
  let ok = true;
  const visit = (node: unknown): void => {
    if (!ok || typeof node !== 'object' || node === null) return;
    if (Array.isArray(node)) return node.forEach(visit);
    const n = node as { type?: string; func?: string; op?: string; at?: { type: string } | null };
    if ((n.type === 'FunctionCall' || n.type === 'AggregateExpr') && RANGE_DEPENDENT.test(n.func ?? n.op ?? '')) ok = false;
    // A duration written with range() (`rate(m[range()])`) changes with the query's span.
    if (n.type === 'DurationCall' && n.func === 'range') ok = false;
    if (n.at !== undefined && n.at !== null && n.at.type !== 'AtTime') ok = false;
    for (const v of Object.values(node)) visit(v);
  };
  visit(e);
  return ok;
}

/**
 * sliceMatrix keeps the points of a cached matrix at or after `from` and at or before `to`.
 */
export function sliceMatrix(m: readonly SeriesResult[], from: number, to: number): SeriesResult[] {
  const out: SeriesResult[] = [];
  for (const s of m) {
    let i = 0;
    while (i < s.timestamps.length && s.timestamps[i]! < from) i++;
    let j = s.timestamps.length;
    while (j > i && s.timestamps[j - 1]! > to) j--;
    if (j > i) out.push({ labels: s.labels, timestamps: s.timestamps.subarray(i, j), values: s.values.subarray(i, j) });
  }
  return out;
}

/** mergeMatrices appends the points of `later` to the series of `earlier` (same labels), sorted by labels. */
export function mergeMatrices(earlier: readonly SeriesResult[], later: readonly SeriesResult[]): SeriesResult[] {
  const byKey = new Map<string, SeriesResult>();
  for (const s of earlier) byKey.set(labelsJson(s.labels), s);
  for (const s of later) {
    const key = labelsJson(s.labels);
    const prev = byKey.get(key);
    byKey.set(key, prev === undefined ? s : { labels: s.labels, timestamps: concat(prev.timestamps, s.timestamps), values: concat(prev.values, s.values) });
  }
  return [...byKey.values()].sort((a, b) => compareLabelSets(a.labels, b.labels));
}

/** compareLabelSets orders label sets as Prometheus does: pair by pair, then the shorter first. */
export function compareLabelSets(a: SeriesResult['labels'], b: SeriesResult['labels']): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.name !== y.name) return x.name < y.name ? -1 : 1;
    if (x.value !== y.value) return x.value < y.value ? -1 : 1;
  }
  return a.length - b.length;
}

function concat(a: Float64Array, b: Float64Array): Float64Array {
  const out = new Float64Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
