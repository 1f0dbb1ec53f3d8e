// Which paths the gateway forwards, and where (SPEC A "The gateway exposes the TSDB paths of section
// D"; DECISIONS.md "Cluster routing"). Only the TSDB read and write APIs a tenant may use are in
// the table; admin (delete_series), internal (cache reset), snapshot and cluster-form paths
// (/select/…, /insert/…, /delete/…) are not, so a token can never reach them or another tenant.
// The table is matched against the *normalized* path (percent escapes decoded, `.`/`..`/`//`
// resolved, see lib/httpproxy normalizeRequestPath): the backend acts on exactly the path matched.
import type { NormalizedPath } from '../../lib/httpproxy/index.ts';
import type { Tenant } from './claims.ts';

/** RequestKind is what a path does: reads go to -read.url, writes to -write.url. */
export type RequestKind = 'read' | 'write';

/** ApiRoute is a forwarded path, as the single-node and the cluster TSDB name it. */
export interface ApiRoute {
  readonly kind: RequestKind;
  /** single is the upstream path of a single-node TSDB (percent-encoded, the request's own form). */
  readonly single: string;
  /** clusterPath builds the cluster path of a tenant: /select/<acc>:<proj>/<format>/… or /insert/…. */
  readonly clusterPath: (tenant: Tenant) => string;
}

// Cluster URL forms, SPEC D: queries under /select/<t>/prometheus, Graphite find under
// /select/<t>/graphite, ingestion under /insert/<t>/<format>/<path>.
type Family = 'prometheus' | 'graphite' | 'influx' | 'agentfmt';

interface RouteDef {
  readonly kind: RequestKind;
  readonly family: Family;
  /** suffix is the path below /<select|insert>/<tenant>/<family>. */
  readonly suffix: string;
}

// Reads that touch data are all confined by extra_label / extra_filters in the TSDB. Grafana's
// helpers that touch no data are harmless: build info, the (empty) config, formatting and parsing a
// query, and exemplars (Strata stores none). Others are left out until the TSDB confines them too:
// metadata ignores extra_label / extra_filters, rules and alerts come from a vmalert that knows no
// tenants, and the active/top query lists show every tenant's queries.
const READ_PROMETHEUS = [
  '/api/v1/query', '/api/v1/query_range', '/api/v1/series', '/api/v1/series/count', '/api/v1/labels', '/api/v1/status/tsdb',
  '/api/v1/export', '/api/v1/export/csv', '/api/v1/export/native', '/federate',
  '/api/v1/status/buildinfo', '/api/v1/status/config', '/api/v1/format_query', '/api/v1/parse_query', '/api/v1/query_exemplars',
];
const WRITE_PROMETHEUS = ['/api/v1/write', '/api/v1/import', '/api/v1/import/csv', '/api/v1/import/native', '/api/v1/import/prometheus'];

/** ROUTES maps each forwarded (decoded, normalized) path to its kind and cluster form. */
const ROUTES: ReadonlyMap<string, RouteDef> = new Map<string, RouteDef>([
  ...READ_PROMETHEUS.flatMap((p) => [p, `/prometheus${p}`].map((k) => [k, { kind: 'read', family: 'prometheus', suffix: p }] as const)),
  ...WRITE_PROMETHEUS.flatMap((p) => [p, `/prometheus${p}`].map((k) => [k, { kind: 'write', family: 'prometheus', suffix: p }] as const)),
  ['/graphite/metrics/find', { kind: 'read', family: 'graphite', suffix: '/metrics/find' }],
  ['/metrics/find', { kind: 'read', family: 'graphite', suffix: '/metrics/find' }],
  ['/write', { kind: 'write', family: 'influx', suffix: '/write' }],
  ['/influx/write', { kind: 'write', family: 'influx', suffix: '/write' }],
  ['/api/v2/write', { kind: 'write', family: 'influx', suffix: '/api/v2/write' }],
  ['/influx/api/v2/write', { kind: 'write', family: 'influx', suffix: '/api/v2/write' }],
  ['/agentfmt/api/v1/series', { kind: 'write', family: 'agentfmt', suffix: '/api/v1/series' }],
]);

// The one parametric route: label values. The name segment holds no "/" after normalization.
const LABEL_VALUES = /^(\/prometheus)?\/api\/v1\/label\/[^/]+\/values$/;

/** tenantSegment is the cluster URL form of a tenant, "<accountID>:<projectID>". */
export function tenantSegment(t: Tenant): string {
  return `${t.accountID}:${t.projectID}`;
}

function route(def: RouteDef, single: string): ApiRoute {
  const side = def.kind === 'read' ? 'select' : 'insert';
  return { kind: def.kind, single, clusterPath: (t) => `/${side}/${tenantSegment(t)}/${def.family}${def.suffix}` };
}

// Static paths are plain ASCII, so their encoded form is the path itself: built once.
const STATIC_ROUTES: ReadonlyMap<string, ApiRoute> = new Map([...ROUTES].map(([path, def]) => [path, route(def, path)]));

/**
 * routeFor returns how to forward a normalized request path, or undefined when the gateway does
 * not forward it. Pure.
 */
export function routeFor(p: NormalizedPath): ApiRoute | undefined {
  const r = STATIC_ROUTES.get(p.path);
  if (r !== undefined) return r;
  const m = LABEL_VALUES.exec(p.path);
  if (m === null) return undefined;
  // The encoded form has the same segments as the decoded one; only the name may be escaped.
  const suffix = m[1] === undefined ? p.encoded : p.encoded.slice('/prometheus'.length);
  return route({ kind: 'read', family: 'prometheus', suffix }, p.encoded);
}
