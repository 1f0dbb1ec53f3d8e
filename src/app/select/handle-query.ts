import { type Expr, ParseCache, print } from '../../lib/promql/index.ts';
import { instant, type QueryOptions, type QueryResult, range, type SeriesResult } from '../../lib/query/index.ts';
import { ApiError, badData } from './errors.ts';
import { type ExtraFilters, parseExtraFilters } from './filters.ts';
import { formatTimestampSeconds, matrixJson, pointJson, vectorJson } from './json-writer.ts';
import type { ReadContext } from './request-context.ts';
import { isCacheable, mergeMatrices, sliceMatrix } from './rollup-cache.ts';
import { parseStepParam, parseTimeParam } from './time-params.ts';

/** RawJson is a response body already rendered as JSON (text, or its UTF-8 bytes). */
export interface RawJson {
  readonly json: string | Buffer;
  /**
   * owned: json is a Buffer alone on its memory, referenced by nothing else, so the sender frees
   * that memory once the response is written (see request-context.ts).
   */
  readonly owned?: boolean;
}

// The process's parsed queries (see ParseCache): a dashboard's few hundred distinct texts fit;
// a text longer than a screenful is rare enough to parse each time.
const parsed = new ParseCache({ maxEntries: 1000, maxQueryLength: 4096 });

/** requireQuery parses the `query` arg (400 when missing or malformed). */
export function requireQuery(c: ReadContext): Expr {
  const q = c.params.get('query');
  if (q === undefined || q.trim() === '') throw new ApiError('bad_data', 'missing "query" arg');
  return parsed.parse(q);
}

function timeArg(c: ReadContext, name: string, fallback: number): number {
  const v = c.params.get(name);
  if (v === undefined || v === '') return fallback;
  try {
    return parseTimeParam(v, c.now);
  } catch (err) {
    throw badData(name, err);
  }
}

function stepArg(c: ReadContext, name: string): number | undefined {
  const v = c.params.get(name);
  if (v === undefined || v === '') return undefined;
  try {
    return parseStepParam(v, name);
  } catch (err) {
    throw badData(name, err);
  }
}

function queryOptions(c: ReadContext, filters: ExtraFilters): QueryOptions {
  const l = c.deps.limits;
  return {
    lookbackDeltaMs: l.lookbackDeltaMs,
    closedWindows: l.closedWindows,
    ...(l.defaultSubqueryStepMs > 0 ? { subqueryStepMs: l.defaultSubqueryStepMs } : {}),
    maxPointsPerTimeseries: l.maxPointsPerTimeseries,
    maxSeries: l.maxUniqueTimeseries,
    maxSamples: l.maxSamplesPerQuery,
    tenant: c.deps.tenant,
    extraMatchers: filters.labels,
    extraFilterSets: filters.alternatives,
    now: () => c.now,
    signal: c.signal,
    rollupOffload: c.deps.rollupOffload,
  };
}

/** handleInstantQuery serves /api/v1/query: `query`, optional `time` (default now) and `step`. */
export async function handleInstantQuery(c: ReadContext): Promise<RawJson> {
  const expr = requireQuery(c);
  const filters = parseExtraFilters(c.params);
  const t = timeArg(c, 'time', c.now);
  const step = stepArg(c, 'step');
  const done = track(c, t, t, step ?? 0);
  try {
    const started = performance.now();
    const res = await instant(c.deps.storage, expr, t, { ...queryOptions(c, filters), ...(step === undefined ? {} : { instantStepMs: step }) });
    // A matrix (a range selector at an instant) is rendered into a buffer of its own (matrixJson).
    return { json: envelope(res, performance.now() - started, c.partial?.()), owned: res.type === 'matrix' };
  } finally {
    done();
  }
}

// track records the query as running (for /api/v1/status/active_queries and top_queries) until
// the returned function is called.
function track(c: ReadContext, start: number, end: number, step: number): () => void {
  const stats = c.deps.queryStats;
  if (stats === undefined) return () => {};
  return stats.begin({ tenant: c.deps.tenant, query: c.params.get('query') ?? '', start, end, step, remoteAddr: c.remoteAddr ?? '' });
}

/**
 * handleRangeQuery serves /api/v1/query_range: `query`, `start` (relative durations such as -1h
 * accepted), `end` (default now), `step` (default 5m). Results are assembled from the rollup result
 * cache where possible, evaluating only the steps the cache lacks.
 */
export async function handleRangeQuery(c: ReadContext): Promise<RawJson> {
  const expr = requireQuery(c);
  const filters = parseExtraFilters(c.params);
  const end = timeArg(c, 'end', c.now);
  const start = timeArg(c, 'start', end - 3_600_000);
  const step = stepArg(c, 'step') ?? 300_000;
  if (end < start) throw new ApiError('bad_data', `invalid parameter "end": end timestamp must not be before start time`);
  if ((end - start) / step + 1 > c.deps.limits.maxPointsPerTimeseries) {
    throw new ApiError('limit', `the query would return ${Math.floor((end - start) / step) + 1} points per series, more than -search.maxPointsPerTimeseries=${c.deps.limits.maxPointsPerTimeseries}; raise step or narrow start..end`);
  }
  const opts = queryOptions(c, filters);
  const done = track(c, start, end, step);
  try {
    const started = performance.now();
    const useCache = !c.deps.limits.disableCache && c.params.get('nocache') !== '1' && isCacheable(expr);
    const res = useCache ? await cachedRange(c, expr, filters, start, end, step, opts) : await range(c.deps.storage, expr, start, end, step, opts);
    const json = envelope(res, performance.now() - started, c.partial?.());
    // A matrix is rendered into a buffer of its own (matrixJson).
    return { json, owned: res.type === 'matrix' };
  } finally {
    done();
  }
}

async function cachedRange(c: ReadContext, expr: Expr, filters: ExtraFilters, start: number, end: number, step: number, opts: QueryOptions): Promise<QueryResult> {
  const cache = c.deps.cache;
  const key = JSON.stringify([c.deps.tenant, print(expr), filters, c.deps.limits.lookbackDeltaMs, c.deps.limits.closedWindows, c.deps.limits.defaultSubqueryStepMs]);
  const cutoff = c.now - c.deps.limits.cacheTimestampOffsetMs;
  const lastCacheable = cutoff < start ? start - step : start + Math.floor((cutoff - start) / step) * step;
  const hit = cache.get(key, start, step);
  let matrix: SeriesResult[];
  let stats = { seriesFetched: 0, samplesFetched: 0 };
  if (hit !== undefined && hit.start <= start && hit.end >= start) {
    const reusedEnd = Math.min(end, hit.end);
    matrix = sliceMatrix(hit.matrix, start, reusedEnd);
    if (reusedEnd < end) {
      const fresh = await range(c.deps.storage, expr, start, end, step, { ...opts, evalRange: { start: reusedEnd + step, end } });
      if (fresh.type !== 'matrix') return fresh;
      matrix = mergeMatrices(matrix, fresh.matrix);
      stats = fresh.stats;
    }
  } else {
    const full = await range(c.deps.storage, expr, start, end, step, opts);
    if (full.type !== 'matrix') return full;
    matrix = full.matrix;
    stats = full.stats;
  }
  const keepEnd = Math.min(end, lastCacheable);
  // A partial answer (a storage node missing) is not kept: the next request may get all of it.
  if (keepEnd >= start && c.partial?.() !== true) cache.put(key, { start, end: keepEnd, step, matrix: sliceMatrix(matrix, start, keepEnd) });
  return { type: 'matrix', matrix, stats };
}

/**
 * envelope renders a query result in Prometheus' response shape, with Strata's stats: a string,
 * or bytes for a matrix (see matrixJson). isPartial (cluster select only) adds the field.
 */
export function envelope(res: QueryResult, elapsedMs: number, isPartial?: boolean): string | Buffer {
  const head = isPartial === undefined ? '{"status":"success",' : `{"status":"success","isPartial":${isPartial},`;
  const stats = `"stats":{"seriesFetched":"${res.stats.seriesFetched}","executionTimeMsec":${Math.round(elapsedMs)}}`;
  let data: string;
  switch (res.type) {
    case 'scalar':
      data = `{"resultType":"scalar","result":${pointJson(res.timestamp, res.value)}}`;
      break;
    case 'string':
      data = `{"resultType":"string","result":[${formatTimestampSeconds(res.timestamp)},${JSON.stringify(res.value)}]}`;
      break;
    case 'vector':
      return vectorJson(`${head}"data":{"resultType":"vector","result":[`, res.vector, `]},${stats}}`);
    case 'matrix':
      return matrixJson(`${head}"data":{"resultType":"matrix","result":`, res.matrix, `},${stats}}`);
  }
  return `${head}"data":${data},${stats}}`;
}
