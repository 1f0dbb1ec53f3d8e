import { cpus } from 'node:os';
import { boolFlag, durationFlag, intFlag, stringFlag } from '../../lib/flags/index.ts';
import { QueryStats } from './query-stats.ts';
import { VmalertProxy } from './vmalert.ts';

const maxStalenessInterval = durationFlag('search.maxStalenessInterval', '5m0s', 'Lookback window of instant selectors: the newest sample within it counts (Prometheus lookback delta)');
const closedWindows = boolFlag('search.closedWindows', false, 'Whether range windows and the lookback include a sample exactly on their left edge ([t-d, t], Prometheus 2 semantics). By default they exclude it ((t-d, t], Prometheus 3 semantics)');
const defaultSubqueryStep = durationFlag('search.defaultSubqueryStep', '1m0s', 'Step of subqueries written without one (`x[1h:]`), in instant and range queries alike, as Prometheus uses its evaluation_interval (1m by default). 0 uses the range query\'s step (1m for instant queries)');
const maxPointsPerTimeseries = intFlag('search.maxPointsPerTimeseries', 30_000, 'Most points a range query or subquery may return per series; a query over it gets 422 naming this flag');
const maxUniqueTimeseries = intFlag('search.maxUniqueTimeseries', 300_000, 'Most series one query may select; a query over it gets 422 naming this flag. 0 disables the limit');
const maxSamplesPerQuery = intFlag('search.maxSamplesPerQuery', 1_000_000_000, 'Most raw samples one query may read; a query over it gets 422 naming this flag. 0 disables the limit');
const maxSeries = intFlag('search.maxSeries', 30_000, 'Most series /api/v1/series may return; a bigger `limit` is capped to it, and a request over it without `limit` gets 422 naming this flag');
const maxExportSeries = intFlag('search.maxExportSeries', 10_000_000, 'Most series one /api/v1/export* request may return; over it the request gets 422 naming this flag');
const maxConcurrentRequests = intFlag('search.maxConcurrentRequests', Math.max(8, cpus().length * 2), 'Most read requests evaluated at once; more wait up to -search.maxQueueDuration');
const maxQueueDuration = durationFlag('search.maxQueueDuration', '10s', 'How long a read request waits for a free slot (see -search.maxConcurrentRequests) before it gets 429');
const maxQueryDuration = durationFlag('search.maxQueryDuration', '30s', 'Longest a query may run; the `timeout` arg may lower it. A query over it is canceled with 503');
const maxExportDuration = durationFlag('search.maxExportDuration', '720h', 'Longest an /api/v1/export* or /federate response may take to stream; exports of large ranges run far longer than queries');
const disableCache = boolFlag('search.disableCache', false, 'Whether to disable the rollup result cache of range queries (the nocache=1 arg does it per request)');
const cacheTimestampOffset = durationFlag('search.cacheTimestampOffset', '5m0s', 'Range-query results newer than now minus this are not cached, because samples for them may still arrive');
const queryStatsLastQueriesCount = intFlag('search.queryStats.lastQueriesCount', 20_000, 'How many of the last finished queries /api/v1/status/top_queries looks at; 0 keeps none');
const queryStatsMinQueryDuration = durationFlag('search.queryStats.minQueryDuration', '1ms', 'Queries faster than this are left out of /api/v1/status/top_queries');
const vmalertProxyURL = stringFlag('vmalert.proxyURL', '', 'URL of a rule evaluator (vmalert) to which /api/v1/rules and /api/v1/alerts are proxied, e.g. http://vmalert:8880 (Grafana reads alerting rules there). Empty: they answer empty lists');
const deleteAuthKey = stringFlag('deleteAuthKey', '', 'Auth key for /api/v1/admin/tsdb/delete_series, passed as the authKey query arg; overrides -httpAuth.*', { secret: true });
const resetCacheAuthKey = stringFlag('search.resetCacheAuthKey', '', 'Auth key for /internal/resetRollupResultCache, passed as the authKey query arg; overrides -httpAuth.*', { secret: true });

/** SelectLimits are the read-API limits, all from -search.* flags. */
export interface SelectLimits {
  readonly lookbackDeltaMs: number;
  /** closedWindows: Prometheus 2 window semantics (see QueryOptions.closedWindows). */
  readonly closedWindows: boolean;
  /** defaultSubqueryStepMs: the step of subqueries without one; 0 means the query's step. */
  readonly defaultSubqueryStepMs: number;
  readonly maxPointsPerTimeseries: number;
  readonly maxUniqueTimeseries: number;
  readonly maxSamplesPerQuery: number;
  readonly maxSeries: number;
  readonly maxExportSeries: number;
  readonly maxConcurrentRequests: number;
  readonly maxQueueDurationMs: number;
  readonly maxQueryDurationMs: number;
  readonly maxExportDurationMs: number;
  readonly disableCache: boolean;
  readonly cacheTimestampOffsetMs: number;
}

export function selectLimitsFromFlags(): SelectLimits {
  return {
    lookbackDeltaMs: maxStalenessInterval.value,
    closedWindows: closedWindows.value,
    defaultSubqueryStepMs: defaultSubqueryStep.value,
    maxPointsPerTimeseries: maxPointsPerTimeseries.value,
    maxUniqueTimeseries: maxUniqueTimeseries.value,
    maxSamplesPerQuery: maxSamplesPerQuery.value,
    maxSeries: maxSeries.value,
    maxExportSeries: maxExportSeries.value,
    maxConcurrentRequests: maxConcurrentRequests.value,
    maxQueueDurationMs: maxQueueDuration.value,
    maxQueryDurationMs: maxQueryDuration.value,
    maxExportDurationMs: maxExportDuration.value,
    disableCache: disableCache.value,
    cacheTimestampOffsetMs: cacheTimestampOffset.value,
  };
}

/** queryStatsFromFlags builds the record of running and recent queries from -search.queryStats.*. */
export function queryStatsFromFlags(now: () => number = Date.now): QueryStats {
  return new QueryStats({ lastQueriesCount: queryStatsLastQueriesCount.value, minQueryDurationMs: queryStatsMinQueryDuration.value, now });
}

/**
 * vmalertProxyFromFlags returns the proxy to -vmalert.proxyURL, or undefined when it is empty;
 * timeoutMs bounds its answers (-search.maxQueryDuration). Throws for a URL it cannot use.
 */
export function vmalertProxyFromFlags(timeoutMs: number): VmalertProxy | undefined {
  return vmalertProxyURL.value === '' ? undefined : new VmalertProxy(vmalertProxyURL.value, timeoutMs);
}

/** SelectAuthKeys are the auth-key getters of the select admin routes. */
export const selectAuthKeys = {
  delete: () => deleteAuthKey.value,
  resetCache: () => resetCacheAuthKey.value,
};
