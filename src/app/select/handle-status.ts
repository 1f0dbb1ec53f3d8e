import { readBuildInfo } from '../../lib/buildinfo/index.ts';
import { parse } from '../../lib/promql/index.ts';
import { ApiError, badData } from './errors.ts';
import type { ReadContext } from './request-context.ts';

// Status and discovery calls Grafana's Prometheus data source makes besides queries, in the
// response shapes it parses (Prometheus web/api/v1/api.go).

let buildInfo: ReturnType<typeof readBuildInfo> | undefined;

/**
 * handleBuildInfo serves /api/v1/status/buildinfo with Strata's version: Grafana asks it to tell
 * Prometheus (no `features`) from Mimir and Cortex (404). Fields Strata does not record are "".
 */
export async function handleBuildInfo(): Promise<object> {
  buildInfo ??= readBuildInfo();
  return {
    status: 'success',
    data: { version: buildInfo.version, revision: buildInfo.gitSha, branch: '', buildUser: '', buildDate: '', goVersion: process.version },
  };
}

/** handleStatusConfig serves /api/v1/status/config: Strata has no Prometheus configuration file. */
export async function handleStatusConfig(): Promise<object> {
  return { status: 'success', data: { yaml: '' } };
}

/**
 * handleQueryExemplars serves /api/v1/query_exemplars: Strata stores no exemplars (remote write's
 * are dropped and counted), so a valid query has none; a bad one is 400 as in Prometheus.
 */
export async function handleQueryExemplars(c: ReadContext): Promise<object> {
  const q = c.params.get('query');
  if (q === undefined || q.trim() === '') throw new ApiError('bad_data', 'missing "query" arg');
  parse(q);
  return { status: 'success', data: [] };
}

/**
 * handleMetadata serves /api/v1/metadata: `metric` (one family), `limit` (families) and
 * `limit_per_metric` (entries per family), as `{"status":"success","data":{"<name>":[{"type",
 * "help","unit"}]}}`. Without a metadata store (not wired on this node) the answer is empty.
 */
export async function handleMetadata(c: ReadContext): Promise<object> {
  const limit = limitArg(c, 'limit');
  const limitPerMetric = limitArg(c, 'limit_per_metric');
  const metric = c.params.get('metric') ?? '';
  const data = c.deps.metadata?.query(c.deps.tenant, { metric, limit, limitPerMetric }) ?? {};
  return { status: 'success', data };
}

// limitArg reads a limit: an integer; 0 or less (or none) means no limit, as in Prometheus.
function limitArg(c: ReadContext, name: string): number {
  const v = c.params.get(name);
  if (v === undefined || v === '') return 0;
  if (!/^[+-]?\d+$/.test(v.trim())) throw badData(name, new Error(`${JSON.stringify(v)} is not an integer`));
  return Math.max(0, Number(v));
}
