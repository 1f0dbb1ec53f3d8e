import type { LabelMatcher, Labels, NameCount, SearchQuery } from '../../lib/storageapi/index.ts';
import { ApiError, badData } from './errors.ts';
import { seriesListJson } from './json-writer.ts';
import { applyExtraFilters, filtersToMatcherSets, parseExtraFilters, parseSelectorArg } from './filters.ts';
import type { ReadContext } from './request-context.ts';
import { DAY_MS, dayRange, parseTimeParam } from './time-params.ts';

// /api/v1/series, /series/count, /labels, /label/<name>/values and /status/tsdb: index lookups
// over whole UTC days (SPEC "Series listing", DECISIONS.md default range and rounding).

function optionalTime(c: ReadContext, name: string): number | undefined {
  const v = c.params.get(name);
  if (v === undefined || v === '') return undefined;
  try {
    return parseTimeParam(v, c.now);
  } catch (err) {
    throw badData(name, err);
  }
}

function intArg(c: ReadContext, name: string, fallback: number): number {
  const v = c.params.get(name);
  if (v === undefined || v === '') return fallback;
  if (!/^\d+$/.test(v)) throw badData(name, new Error(`${JSON.stringify(v)} is not a non-negative integer`));
  return Number(v);
}

/** matchArgs returns the OR-ed matcher sets of every match[] arg, with extra filters applied; [] when none given. */
function matchArgs(c: ReadContext, required: boolean): LabelMatcher[][] {
  const args = c.params.getAll('match[]', 'match');
  const filters = parseExtraFilters(c.params);
  if (args.length === 0) {
    if (required) throw new ApiError('bad_data', 'missing "match[]" arg: give at least one series selector, e.g. match[]={job="node"}');
    return filtersToMatcherSets(filters);
  }
  return applyExtraFilters(args.flatMap((a) => parseSelectorArg(a, 'match[]')), filters);
}

function searchQuery(c: ReadContext, matcherSets: LabelMatcher[][]): SearchQuery {
  return {
    tenant: c.deps.tenant,
    matcherSets,
    timeRange: dayRange(optionalTime(c, 'start'), optionalTime(c, 'end'), c.now),
    maxSeries: c.deps.limits.maxUniqueTimeseries,
  };
}

/** handleSeries serves /api/v1/series; `limit` above -search.maxSeries is capped to it. */
export async function handleSeries(c: ReadContext): Promise<object> {
  const q = searchQuery(c, matchArgs(c, true));
  const flagLimit = c.deps.limits.maxSeries;
  const limit = intArg(c, 'limit', 0);
  if (limit > 0) return seriesList(c, await c.deps.storage.searchLabelSets(q, Math.min(limit, flagLimit || limit), c.signal));
  const sets = await c.deps.storage.searchLabelSets(q, flagLimit > 0 ? flagLimit + 1 : 0, c.signal);
  if (flagLimit > 0 && sets.length > flagLimit) {
    throw new ApiError('limit', `the request matches more than -search.maxSeries=${flagLimit} series; narrow match[] or start/end, or pass a limit`);
  }
  return seriesList(c, sets);
}

// seriesList renders the answer as JSON text (no object per series; runRead sends it as is, so
// the cluster's isPartial is added here), or as objects when a label name needs them.
function seriesList(c: ReadContext, sets: readonly Labels[]): object {
  const json = seriesListJson(sets, c.partial?.());
  return json === undefined ? { status: 'success', data: sets.map(toObject) } : { json };
}

function toObject(labels: readonly { name: string; value: string }[]): Record<string, string> {
  const o: Record<string, string> = {};
  for (const l of labels) o[l.name] = l.value;
  return o;
}

/** handleSeriesCount serves /api/v1/series/count: `{"status":"success","data":[<n>]}`. */
export async function handleSeriesCount(c: ReadContext): Promise<object> {
  return { status: 'success', data: [await c.deps.storage.seriesCount(c.deps.tenant, c.signal)] };
}

/** handleLabels serves /api/v1/labels (optional match[], start, end, limit). */
export async function handleLabels(c: ReadContext): Promise<object> {
  const q = searchQuery(c, matchArgs(c, false));
  return { status: 'success', data: await c.deps.storage.labelNames(q, intArg(c, 'limit', 0), c.signal) };
}

/** handleLabelValues serves /api/v1/label/<name>/values. */
export async function handleLabelValues(c: ReadContext, labelName: string): Promise<object> {
  const q = searchQuery(c, matchArgs(c, false));
  return { status: 'success', data: await c.deps.storage.labelValues(q, labelName, intArg(c, 'limit', 0), c.signal) };
}

/** handleTsdbStatus serves /api/v1/status/tsdb (topN, date=YYYY-MM-DD, focusLabel, match[]). */
export async function handleTsdbStatus(c: ReadContext): Promise<object> {
  const dateArg = c.params.get('date');
  let date = Math.floor(c.now / DAY_MS) * DAY_MS;
  if (dateArg !== undefined && dateArg !== '') {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(dateArg)) throw badData('date', new Error(`${JSON.stringify(dateArg)} is not a date like 2024-01-31`));
    try {
      date = parseTimeParam(dateArg, c.now);
    } catch (err) {
      throw badData('date', err);
    }
  }
  const topN = intArg(c, 'topN', 10);
  if (topN < 1 || topN > 1000) throw badData('topN', new Error('must be from 1 to 1000'));
  const s = await c.deps.storage.tsdbStatus({ tenant: c.deps.tenant, date, matcherSets: matchArgs(c, false), topN, focusLabel: c.params.get('focusLabel') ?? '' }, c.signal);
  const list = (xs: readonly NameCount[]) => xs.map((x) => ({ name: x.name, value: x.count }));
  return {
    status: 'success',
    data: {
      totalSeries: s.totalSeries,
      totalLabelValuePairs: s.totalLabelValuePairs,
      seriesCountByMetricName: list(s.seriesCountByMetricName),
      seriesCountByLabelName: list(s.seriesCountByLabelName),
      seriesCountByFocusLabelValue: list(s.seriesCountByFocusLabelValue),
      seriesCountByLabelValuePair: list(s.seriesCountByLabelValuePair),
      labelValueCountByLabelName: list(s.labelValueCountByLabelName),
    },
  };
}

/** handleDeleteSeries serves /api/v1/admin/tsdb/delete_series (POST/PUT, match[] required), then resets the result cache. */
export async function handleDeleteSeries(c: ReadContext): Promise<number> {
  const sets = matchArgs(c, true);
  const n = await c.deps.storage.deleteSeries({ tenant: c.deps.tenant, matcherSets: sets, timeRange: { minTimestamp: 0, maxTimestamp: Number.MAX_SAFE_INTEGER }, maxSeries: 0 }, c.signal);
  c.deps.cache.reset();
  return n;
}
