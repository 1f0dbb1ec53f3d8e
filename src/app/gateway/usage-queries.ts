// How limit usage is measured (SPEC A2 rule 5; DECISIONS.md "Usage queries"): one instant query
// per limited quantity and window to -datasource.url, which holds the cluster's own per-tenant
// statistics, summed by tenant. Pure: query texts and the parsing of answers.
import { quoteString } from '../../lib/promql/index.ts';
import type { LabelPair, Tenant } from './claims.ts';
import type { LimitType, RateLimitConfig, Resolution } from './ratelimit-config.ts';

/** COUNTERS are the per-tenant counters each rate is computed from (DECISIONS.md "Per-tenant statistics"). */
const COUNTERS: Readonly<Record<Exclude<LimitType, 'active_series'>, string>> = {
  rows_inserted: 'tsdb_tenant_inserted_rows_total',
  new_series: 'tsdb_tenant_timeseries_created_total',
  queries: 'tsdb_tenant_select_requests_total',
};
const ACTIVE_SERIES = 'tsdb_tenant_active_timeseries';
const WINDOW: Readonly<Record<Resolution, string>> = { minute: '1m', hour: '1h' };
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** UsageKey names one measured quantity: "<type>/<resolution>"; active series have no window ("active_series"). */
export type UsageKey = string;

/** usageKey is the key of a limit's usage; every window of active_series shares one value. */
export function usageKey(type: LimitType, resolution: Resolution): UsageKey {
  return type === 'active_series' ? type : `${type}/${resolution}`;
}

/** UsageQuery is one query the poller sends. */
export interface UsageQuery {
  readonly key: UsageKey;
  readonly expr: string;
}

/** parseExtraLabels reads -ratelimit.extraLabels ("name=value" each); throws Error naming a bad one. */
export function parseExtraLabels(values: readonly string[]): LabelPair[] {
  return values.map((v) => {
    const eq = v.indexOf('=');
    const name = eq < 0 ? '' : v.slice(0, eq);
    if (!LABEL_NAME.test(name)) throw new Error(`-ratelimit.extraLabels entry ${JSON.stringify(v)} must look like name=value with a valid label name`);
    return { name, value: v.slice(eq + 1) };
  });
}

/**
 * usageQueries returns the queries that measure every quantity some limit of cfg needs, with the
 * extra labels as filters, in a stable order. Pure.
 */
export function usageQueries(cfg: RateLimitConfig, extraLabels: readonly LabelPair[]): UsageQuery[] {
  const filter = extraLabels.length === 0 ? '' : `{${extraLabels.map((l) => `${l.name}=${quoteString(l.value)}`).join(',')}}`;
  const keys = new Map<UsageKey, string>();
  for (const l of cfg.limits) {
    const key = usageKey(l.type, l.resolution);
    if (keys.has(key)) continue;
    keys.set(key, l.type === 'active_series'
      ? `sum(${ACTIVE_SERIES}${filter}) by (accountID,projectID)`
      : `sum(increase(${COUNTERS[l.type]}${filter}[${WINDOW[l.resolution]}])) by (accountID,projectID)`);
  }
  return [...keys].sort(([a], [b]) => (a < b ? -1 : 1)).map(([key, expr]) => ({ key, expr }));
}

/** tenantKey is the map key of a tenant: "<accountID>:<projectID>". */
export function tenantKey(t: Tenant): string {
  return `${t.accountID}:${t.projectID}`;
}

/** UsageParseError: a datasource answer is not an instant-query vector. */
export class UsageParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageParseError';
  }
}

const TENANT_ID = /^(0|[1-9]\d{0,9})$/;

/**
 * parseUsageAnswer reads a Prometheus API instant-query answer (`{"status":"success","data":
 * {"resultType":"vector","result":[{"metric":{accountID,projectID},"value":[t,"v"]}]}}`) into usage
 * per tenant key. Series without a valid accountID are skipped (they belong to no tenant); a
 * missing projectID is 0. Throws UsageParseError for anything else. Pure.
 */
export function parseUsageAnswer(body: unknown): Map<string, number> {
  const b = body as { status?: unknown; data?: { resultType?: unknown; result?: unknown } } | null;
  if (typeof b !== 'object' || b === null || b.status !== 'success') throw new UsageParseError(`the answer is not a successful query response: ${JSON.stringify(body).slice(0, 200)}`);
  if (b.data?.resultType !== 'vector' || !Array.isArray(b.data.result)) throw new UsageParseError(`the answer is not an instant vector (resultType ${JSON.stringify(b.data?.resultType)})`);
  const out = new Map<string, number>();
  for (const s of b.data.result as unknown[]) {
    const e = s as { metric?: Record<string, unknown>; value?: unknown };
    const acc = e.metric?.accountID;
    const proj = e.metric?.projectID ?? '0';
    if (typeof acc !== 'string' || !TENANT_ID.test(acc) || typeof proj !== 'string' || !TENANT_ID.test(proj)) continue;
    if (Number(acc) > 0xffff_ffff || Number(proj) > 0xffff_ffff) continue;
    const v = Array.isArray(e.value) ? Number(e.value[1]) : NaN;
    if (Number.isNaN(v)) throw new UsageParseError(`the value of tenant ${acc}:${proj} is not a number: ${JSON.stringify(e.value)}`);
    const key = `${acc}:${proj}`;
    out.set(key, (out.get(key) ?? 0) + v);
  }
  return out;
}
