import type { Pool } from 'undici';
import {
  type Backend, Balancer, type BalancingPolicy, type ExtraHeaders, extraHeaders, type HeaderPair, type IpFilter, type PoolRegistry, SharedSemaphore,
} from '../../lib/httpproxy/index.ts';
import { type Counter, type Summary } from '../../lib/metrics/index.ts';
import { BackendLoad } from './backend-load.ts';
import { type AuthConfig, type TargetUrl, type UserConfig } from './config-types.ts';
import * as m from './metrics.ts';

type CounterChild = ReturnType<Counter<string>['labels']>;
type SummaryChild = ReturnType<Summary<string>['labels']>;

/** Target is a backend URL with its live load, failure state (shared by all threads) and connection pool. */
export class Target implements Backend {
  readonly url: TargetUrl;
  readonly pool: Pool;
  readonly errors: CounterChild;
  readonly load: BackendLoad;

  constructor(url: TargetUrl, pool: Pool, errors: CounterChild, load: BackendLoad) {
    this.url = url;
    this.pool = pool;
    this.errors = errors;
    this.load = load;
  }

  get inFlight(): number {
    return this.load.inFlight;
  }

  get brokenUntilMs(): number {
    return this.load.brokenUntilMs;
  }
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
  readonly limiter: SharedSemaphore;
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

/**
 * SharedBuffers are the buffers behind a state's per-user limiters (by credentials) and backend
 * loads (by URL text), sent to the other threads with the config so that they count in the same cells.
 */
export interface SharedBuffers {
  readonly limiters: ReadonlyMap<string, SharedArrayBuffer>;
  readonly loads: ReadonlyMap<string, SharedArrayBuffer>;
}

/** StateDeps are what building a state needs from the running proxy. */
export interface StateDeps {
  readonly pools: PoolRegistry;
  /**
   * limiters and loads keep per-user semaphores (keyed by credentials) and backend loads (keyed by
   * URL text) across reloads so that in-flight counts survive; entries the config no longer uses go.
   */
  readonly limiters: Map<string, SharedSemaphore>;
  readonly loads: Map<string, BackendLoad>;
  readonly maxConcurrentPerUserRequests: number;
  readonly policy: BalancingPolicy;
}

/** buildState turns a parsed config into serving state, reusing pools and per-user limiters. */
export function buildState(cfg: AuthConfig, deps: StateDeps): ProxyState {
  const origins = new Set<string>();
  const keep = new Map<string, SharedSemaphore>();
  const keepLoads = new Map<string, BackendLoad>();
  const targets = new Map<string, Target>();
  const target = (url: TargetUrl): Target => {
    origins.add(url.origin);
    // One Target per distinct URL text, so routes sharing a backend share its load and failures.
    let t = targets.get(url.text);
    if (t === undefined) {
      const load = deps.loads.get(url.text) ?? new BackendLoad();
      keepLoads.set(url.text, load);
      t = new Target(url, deps.pools.get(url.origin), m.backendErrors.labels(url.text), load);
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
    if (limiter === undefined) limiter = SharedSemaphore.create(capacity);
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
  deps.loads.clear();
  for (const [k, v] of keepLoads) deps.loads.set(k, v);
  deps.pools.retain(origins);
  return { byKey, users, unauthorized, ipFilter: cfg.ipFilter };
}

/** mergeHeaders: a url_map entry's headers replace the user's headers of the same name. */
function mergeHeaders(user: readonly HeaderPair[], entry: readonly HeaderPair[]): HeaderPair[] {
  if (entry.length === 0) return [...user];
  const names = new Set(entry.map((h) => h.name.toLowerCase()));
  return [...user.filter((h) => !names.has(h.name.toLowerCase())), ...entry];
}

/** sharedBuffers lists the buffers of a proxy's limiters and loads (after buildState). */
export function sharedBuffers(deps: Pick<StateDeps, 'limiters' | 'loads'>): SharedBuffers {
  return {
    limiters: new Map([...deps.limiters].map(([k, v]) => [k, v.buffer])),
    loads: new Map([...deps.loads].map(([k, v]) => [k, v.buffer])),
  };
}

/** adoptSharedBuffers makes deps count in another thread's cells (before buildState). */
export function adoptSharedBuffers(deps: Pick<StateDeps, 'limiters' | 'loads'>, b: SharedBuffers): void {
  for (const [k, buf] of b.limiters) if (deps.limiters.get(k)?.buffer !== buf) deps.limiters.set(k, new SharedSemaphore(buf));
  for (const [k, buf] of b.loads) if (deps.loads.get(k)?.buffer !== buf) deps.loads.set(k, new BackendLoad(buf));
}
