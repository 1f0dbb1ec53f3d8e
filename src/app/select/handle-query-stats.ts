import { formatDuration } from '../../lib/flags/index.ts';
import { badData } from './errors.ts';
import type { QueryStats, QueryTotals } from './query-stats.ts';
import type { ReadContext } from './request-context.ts';
import { parseStepParam } from './time-params.ts';

// /api/v1/status/active_queries and /api/v1/status/top_queries in VictoriaMetrics' single-node
// response shapes (vmui and its users read them).

function stats(c: ReadContext): QueryStats {
  const s = c.deps.queryStats;
  // registerSelectRoutes always sets one (its default when the binary gives none).
  if (s === undefined) throw new Error('cannot report query statistics: the select routes were registered without a QueryStats');
  return s;
}

const seconds = (ms: number): number => Number((ms / 1000).toFixed(3));

/**
 * handleActiveQueries serves /api/v1/status/active_queries: the running queries, longest-running
 * first: `{"status":"ok","data":[{"duration":"0.103s","id":"…","remote_addr":"ip:port","query":…,
 * "start":ms,"end":ms,"step":ms}]}`.
 */
export async function handleActiveQueries(c: ReadContext): Promise<object> {
  const now = stats(c).options.now();
  const data = stats(c).active(c.deps.tenant).map((q) => ({
    duration: `${((now - q.startedAt) / 1000).toFixed(3)}s`,
    id: q.id.toString(16).toUpperCase().padStart(16, '0'),
    remote_addr: q.remoteAddr,
    query: q.query,
    start: q.start,
    end: q.end,
    step: q.step,
  }));
  return { status: 'ok', data };
}

/**
 * handleTopQueries serves /api/v1/status/top_queries: over the last -search.queryStats.lastQueriesCount
 * finished queries younger than `maxLifetime` (default 10m), the `topN` (default 20) by count, by
 * average duration and by total duration.
 */
export async function handleTopQueries(c: ReadContext): Promise<object> {
  const s = stats(c);
  const topNArg = c.params.get('topN');
  if (topNArg !== undefined && topNArg !== '' && !/^\d{1,9}$/.test(topNArg)) throw badData('topN', new Error(`${JSON.stringify(topNArg)} is not a non-negative integer`));
  const topN = topNArg === undefined || topNArg === '' ? 20 : Number(topNArg);
  const lifetimeArg = c.params.get('maxLifetime');
  let maxLifetimeMs = 10 * 60_000;
  if (lifetimeArg !== undefined && lifetimeArg !== '') {
    try {
      maxLifetimeMs = parseStepParam(lifetimeArg, 'maxLifetime');
    } catch (err) {
      throw badData('maxLifetime', err);
    }
  }
  const totals = s.totals(c.deps.tenant, maxLifetimeMs);
  const top = (by: (t: QueryTotals) => number) => [...totals].sort((a, b) => by(b) - by(a) || a.query.localeCompare(b.query)).slice(0, topN);
  return {
    topN: String(topN),
    maxLifetime: formatDuration(maxLifetimeMs),
    'search.queryStats.lastQueriesCount': s.options.lastQueriesCount,
    'search.queryStats.minQueryDuration': formatDuration(s.options.minQueryDurationMs),
    topByCount: top((t) => t.count).map((t) => ({ query: t.query, timeRangeSeconds: t.timeRangeSeconds, count: t.count })),
    topByAvgDuration: top((t) => t.sumDurationMs / t.count).map((t) => ({ query: t.query, timeRangeSeconds: t.timeRangeSeconds, avgDurationSeconds: seconds(t.sumDurationMs / t.count), count: t.count })),
    topBySumDuration: top((t) => t.sumDurationMs).map((t) => ({ query: t.query, timeRangeSeconds: t.timeRangeSeconds, sumDurationSeconds: seconds(t.sumDurationMs), count: t.count })),
  };
}
