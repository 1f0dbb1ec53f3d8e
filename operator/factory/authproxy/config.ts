// Renders the auth proxy config file (SPEC B1) from resolved users. Pure and deterministic:
// users are sorted by namespace/name, and duplicate credentials keep the oldest user.
import { dump } from 'js-yaml';
import type { UrlMapEntry } from '../../api/auth-proxy-user.ts';
import type { AuthProxySpec } from '../../api/auth-proxy.ts';
import type { Rejection, ResolvedTarget, ResolvedUser } from './users.ts';

/** RenderedConfig is the config text plus which users made it in. */
export interface RenderedConfig {
  readonly yaml: string;
  readonly accepted: readonly string[];
  readonly rejected: ReadonlyMap<string, Rejection>;
}

/** RouteSource is what a user or the unauthorized_user section routes with. */
export interface RouteSource {
  readonly targets: readonly ResolvedTarget[];
  readonly urlMap?: readonly UrlMapEntry[];
  readonly defaultURL?: readonly string[];
  readonly headers?: readonly string[];
  readonly ipFilters?: { readonly allowList?: readonly string[]; readonly denyList?: readonly string[] };
}

function ipFilters(f: RouteSource['ipFilters']): Record<string, string[]> | undefined {
  if (f === undefined) return undefined;
  const out: Record<string, string[]> = {};
  if (f.allowList !== undefined && f.allowList.length > 0) out['allow_list'] = [...f.allowList];
  if (f.denyList !== undefined && f.denyList.length > 0) out['deny_list'] = [...f.denyList];
  return Object.keys(out).length === 0 ? undefined : out;
}

/** routes renders url_prefix, url_map, default_url, headers and ip_filters of one section. */
export function routes(src: RouteSource): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const prefixes = src.targets.filter((t) => t.paths.length === 0);
  if (prefixes.length === 1) out['url_prefix'] = prefixes[0]!.url;
  else if (prefixes.length > 1) out['url_prefix'] = prefixes.map((t) => t.url);
  const urlMap = [
    ...src.targets.filter((t) => t.paths.length > 0).map((t) => ({ src_paths: [...t.paths], url_prefix: [t.url], ...(t.headers.length > 0 ? { headers: [...t.headers] } : {}) })),
    ...(src.urlMap ?? []).map((m) => ({ src_paths: [...m.srcPaths], url_prefix: [...m.urlPrefix], ...(m.headers !== undefined && m.headers.length > 0 ? { headers: [...m.headers] } : {}) })),
  ];
  if (urlMap.length > 0) out['url_map'] = urlMap;
  if (src.defaultURL !== undefined && src.defaultURL.length > 0) out['default_url'] = [...src.defaultURL];
  // Headers of plain targets apply to the whole user (url_prefix has no per-target headers).
  const headers = [...(src.headers ?? []), ...prefixes.flatMap((t) => t.headers)];
  if (headers.length > 0) out['headers'] = headers;
  const f = ipFilters(src.ipFilters);
  if (f !== undefined) out['ip_filters'] = f;
  return out;
}

function userEntry(u: ResolvedUser): Record<string, unknown> {
  const spec = u.user.spec;
  const entry: Record<string, unknown> = {};
  if (u.credentials.type === 'basic') {
    entry['username'] = u.credentials.username;
    if (u.credentials.password !== '') entry['password'] = u.credentials.password;
  } else {
    entry['bearer_token'] = u.credentials.token;
  }
  // Without an explicit name, metrics show namespace/name instead of the real username.
  entry['name'] = spec.name ?? u.key;
  Object.assign(
    entry,
    routes({
      targets: u.targets,
      ...(spec.urlMap === undefined ? {} : { urlMap: spec.urlMap }),
      ...(spec.defaultURL === undefined ? {} : { defaultURL: spec.defaultURL }),
      ...(spec.headers === undefined ? {} : { headers: spec.headers }),
      ...(spec.ipFilters === undefined ? {} : { ipFilters: spec.ipFilters }),
    }),
  );
  if (spec.maxConcurrentRequests !== undefined) entry['max_concurrent_requests'] = spec.maxConcurrentRequests;
  return entry;
}

const created = (u: ResolvedUser) => u.user.metadata.creationTimestamp ?? '';

/**
 * renderAuthProxyConfig builds the config of a proxy from its resolved users (rejections from
 * resolution are passed through). Among users with identical credentials the oldest is kept.
 */
export function renderAuthProxyConfig(
  spec: AuthProxySpec,
  users: readonly ResolvedUser[],
  unresolved: ReadonlyMap<string, Rejection>,
  unauthorized: RouteSource | undefined,
): RenderedConfig {
  const rejected = new Map(unresolved);
  const seen = new Map<string, string>();
  const byAge = [...users].sort((a, b) => created(a).localeCompare(created(b)) || a.key.localeCompare(b.key));
  const kept: ResolvedUser[] = [];
  for (const u of byAge) {
    if (u.user.spec.ipFilters !== undefined && !spec.eula) {
      // The proxy ignores ip_filters without -eula; serving the user unfiltered would widen access.
      rejected.set(u.key, { reason: 'IPFiltersNeedEULA', message: 'ipFilters need an AuthProxy with eula: true' });
      continue;
    }
    const first = seen.get(u.credentials.identity);
    if (first !== undefined) {
      rejected.set(u.key, { reason: 'DuplicateCredentials', message: `the same credentials are already used by AuthProxyUser ${first}` });
      continue;
    }
    seen.set(u.credentials.identity, u.key);
    kept.push(u);
  }
  kept.sort((a, b) => a.key.localeCompare(b.key));
  const config: Record<string, unknown> = { users: kept.map(userEntry) };
  if (unauthorized !== undefined) config['unauthorized_user'] = routes(unauthorized);
  const global = ipFilters(spec.ipFilters);
  if (global !== undefined) config['ip_filters'] = global;
  return { yaml: dump(config, { noRefs: true, lineWidth: -1 }), accepted: kept.map((u) => u.key), rejected };
}
