import { type Pool } from 'undici';
import {
  type Backend, Balancer, type BalancingPolicy, type ExtraHeaders, extraHeaders, type HeaderPair, type IpFilter, type PoolRegistry, Semaphore,
} from '../../lib/httpproxy/index.ts';
import { type Counter, type Summary } from '../../lib/metrics/index.ts';
import { type AuthConfig, type TargetUrl, type UserConfig } from './config-types.ts';
import * as m from './metrics.ts';

type CounterChild = ReturnType<Counter<string>['labels']>;
type SummaryChild = ReturnType<Summary<string>['labels']>;

/** Target is a backend URL with its live load, failure state and connection pool. */
export interface Target extends Backend {
  readonly url: TargetUrl;
  readonly pool: Pool;
  readonly errors: CounterChild;
}

/** Route is where a matched request goes: balanced targets plus the headers to add. */
export interface Route {
  readonly balancer: Balancer<Target>;
  readonly headers: ExtraHeaders;
  /** isDefaultUrl: the request path goes into the request_path arg instead of being appended. */
  readonly isDefaultUrl: boolean;
}

/** UserState is a configured user (or unauthorized_user) ready to serve. */
export interface UserState {
  readonly cfg: UserConfig;
  readonly unauthorized: boolean;
  readonly limiter: Semaphore;
  readonly requests: CounterChild;
  readonly duration: SummaryChild;
  readonly limitReached: CounterChild;
  readonly backendErrors: CounterChild;
  readonly prefixRoute: Route | undefined;
  readonly mapRoutes: ReadonlyArray<{ readonly srcPaths: readonly RegExp[]; readonly route: Route }>;
  readonly defaultRoute: Route | undefined;
}

/** ProxyState is one loaded config: users by canonical Authorization value, filters, routes. */
export interface ProxyState {
  readonly byKey: ReadonlyMap<string, UserState>;
  readonly users: readonly UserState[];
  readonly unauthorized: UserState | undefined;
  readonly ipFilter: IpFilter | undefined;
}

/** StateDeps are what building a state needs from the running proxy. */
export interface StateDeps {
  readonly pools: PoolRegistry;
  /** limiters keeps per-user semaphores across reloads (keyed by credentials) so in-flight counts survive. */
  readonly limiters: Map<string, Semaphore>;
  readonly maxConcurrentPerUserRequests: number;
  readonly policy: BalancingPolicy;
}

/** buildState turns a parsed config into serving state, reusing pools and per-user limiters. */
export function buildState(cfg: AuthConfig, deps: StateDeps): ProxyState {
  const origins = new Set<string>();
  const keep = new Map<string, Semaphore>();
  const targets = new Map<string, Target>();
  const target = (url: TargetUrl): Target => {
    origins.add(url.origin);
    // One Target per distinct URL text, so routes sharing a backend share its load and failures.
    let t = targets.get(url.text);
    if (t === undefined) {
      t = { url, pool: deps.pools.get(url.origin), errors: m.backendErrors.labels(url.text), inFlight: 0, brokenUntilMs: 0 };
      targets.set(url.text, t);
    }
    return t;
  };
  const route = (urls: readonly TargetUrl[], headers: readonly HeaderPair[], isDefaultUrl = false): Route =>
    ({ balancer: new Balancer(urls.map(target), deps.policy), headers: extraHeaders(headers), isDefaultUrl });
  const user = (u: UserConfig, unauthorized: boolean): UserState => {
    const limitKey = unauthorized ? '\0unauthorized' : u.authKeys[0]!;
    const capacity = u.maxConcurrentRequests ?? deps.maxConcurrentPerUserRequests;
    let limiter = deps.limiters.get(limitKey);
    if (limiter === undefined) limiter = new Semaphore(capacity);
    else limiter.setCapacity(capacity);
    keep.set(limitKey, limiter);
    return {
      cfg: u, unauthorized, limiter,
      requests: unauthorized ? m.unauthorizedRequests : m.userRequests.labels(u.label),
      duration: unauthorized ? m.unauthorizedDuration : m.userDuration.labels(u.label),
      limitReached: unauthorized ? m.unauthorizedLimitReached : m.userLimitReached.labels(u.label),
      backendErrors: unauthorized ? m.unauthorizedBackendErrors : m.userBackendErrors.labels(u.label),
      prefixRoute: u.urlPrefix === undefined ? undefined : route(u.urlPrefix, u.headers),
      mapRoutes: u.urlMap.map((e) => ({ srcPaths: e.srcPaths, route: route(e.urlPrefix, mergeHeaders(u.headers, e.headers)) })),
      defaultRoute: u.defaultUrl === undefined ? undefined : route(u.defaultUrl, u.headers, true),
    };
  };
  const users = cfg.users.map((u) => user(u, false));
  const byKey = new Map<string, UserState>();
  for (const u of users) for (const k of u.cfg.authKeys) byKey.set(k, u);
  const unauthorized = cfg.unauthorizedUser === undefined ? undefined : user(cfg.unauthorizedUser, true);
  deps.limiters.clear();
  for (const [k, v] of keep) deps.limiters.set(k, v);
  deps.pools.retain(origins);
  return { byKey, users, unauthorized, ipFilter: cfg.ipFilter };
}

/** mergeHeaders: a url_map entry's headers replace the user's headers of the same name. */
function mergeHeaders(user: readonly HeaderPair[], entry: readonly HeaderPair[]): HeaderPair[] {
  if (entry.length === 0) return [...user];
  const names = new Set(entry.map((h) => h.name.toLowerCase()));
  return [...user.filter((h) => !names.has(h.name.toLowerCase())), ...entry];
}
