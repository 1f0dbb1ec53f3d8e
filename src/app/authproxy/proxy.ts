import { type IncomingMessage, type ServerResponse } from 'node:http';
import {
  type BalancingPolicy, discardRestOfBody, forward, normalizeRequestPath, PathError, PoolRegistry, prepareRequestBody, QueryError, type RequestBody,
  sendPlain, SharedSemaphore, upstreamRequestHeaders,
} from '../../lib/httpproxy/index.ts';
import { type Logger } from '../../lib/logger/index.ts';
import { type BackendLoad } from './backend-load.ts';
import { type AuthConfig } from './config-types.ts';
import { candidateKeys, queryCredentialKey } from './credentials.ts';
import { ERRORS, type ProxyError, type ProxyErrorCode } from './errors.ts';
import * as m from './metrics.ts';
import { selectRoute, upstreamPath } from './routing.ts';
import {
  adoptSharedBuffers, buildState, type ProxyState, type Route, sharedBuffers, type SharedBuffers, type Target, type UserState,
} from './state.ts';

/** AuthProxyOptions are the auth proxy's flags as values (see flags.ts), plus injected clock and logger. */
export interface AuthProxyOptions {
  readonly maxConcurrentRequests: number;
  readonly maxConcurrentPerUserRequests: number;
  readonly maxQueueDurationMs: number;
  readonly maxRequestBodySizeToRetry: number;
  readonly maxIdleConnsPerBackend: number;
  readonly failTimeoutMs: number;
  readonly responseTimeoutMs: number;
  readonly loadBalancingPolicy: BalancingPolicy;
  readonly logInvalidAuthTokens: boolean;
  /** responseWindowBytes caps response bytes buffered per request for a slow client (see forward). */
  readonly responseWindowBytes: number;
  /** pathPrefix (-http.pathPrefix) is removed from request paths before routing. */
  readonly pathPrefix: string;
  readonly logger: Logger;
  /** now returns ms since the epoch (for -failTimeout). */
  readonly now: () => number;
  /**
   * globalLimiter is the buffer of another thread's -maxConcurrentRequests semaphore, for a proxy
   * serving the same port in a further thread; by default the proxy makes its own.
   */
  readonly globalLimiter?: SharedArrayBuffer;
}

type Auth = UserState | 'missing' | 'invalid';

/**
 * AuthProxy authenticates, routes, limits and forwards requests under one config at a time.
 * setConfig swaps the config atomically: requests in flight finish under the state they started with.
 */
export class AuthProxy {
  readonly #o: AuthProxyOptions;
  readonly #global: SharedSemaphore;
  readonly #pools: PoolRegistry;
  readonly #limiters = new Map<string, SharedSemaphore>();
  readonly #loads = new Map<string, BackendLoad>();
  readonly #snapshot = () => this.limitSnapshot();
  #state: ProxyState | undefined;

  constructor(o: AuthProxyOptions) {
    this.#o = o;
    this.#global = o.globalLimiter === undefined ? SharedSemaphore.create(o.maxConcurrentRequests) : new SharedSemaphore(o.globalLimiter);
    // -maxIdleConnsPerBackend counts idle connections (SPEC); undici caps only all connections, so
    // the cap is the global concurrency limit (each connection carries one request in flight) and
    // idle ones close after 60 s. A cap of 100 made the 29th-and-later of 128 concurrent clients
    // wait for a connection (up to ~300 ms in the benchmark).
    this.#pools = new PoolRegistry({ connectionsPerOrigin: Math.max(o.maxIdleConnsPerBackend, o.maxConcurrentRequests), idleTimeoutMs: 60_000, connectTimeoutMs: 10_000 });
    m.limitSources.add(this.#snapshot);
  }

  /**
   * setConfig starts serving cfg (pools, per-user limiters and backend loads carry over). A proxy in
   * a further thread passes the buffers of the first thread's state for the same config.
   */
  setConfig(cfg: AuthConfig, shared?: SharedBuffers): void {
    const cells = { limiters: this.#limiters, loads: this.#loads };
    if (shared !== undefined) adoptSharedBuffers(cells, shared);
    this.#state = buildState(cfg, {
      pools: this.#pools, ...cells, maxConcurrentPerUserRequests: this.#o.maxConcurrentPerUserRequests, policy: this.#o.loadBalancingPolicy,
    });
  }

  /** globalLimiter is the buffer of the -maxConcurrentRequests semaphore (for further threads). */
  get globalLimiter(): SharedArrayBuffer {
    return this.#global.buffer;
  }

  /** sharedBuffers are the current state's limiter and load buffers (for further threads). */
  sharedBuffers(): SharedBuffers {
    return sharedBuffers({ limiters: this.#limiters, loads: this.#loads });
  }

  /** limitSnapshot reports capacities and current counts for the gauges. */
  limitSnapshot(): m.LimitSnapshot {
    const s = this.#state;
    return {
      global: { capacity: this.#global.capacity, current: this.#global.current },
      users: (s?.users ?? []).map((u) => ({ label: u.cfg.label, capacity: u.limiter.capacity, current: u.limiter.current })),
      unauthorized: s?.unauthorized === undefined ? undefined : { capacity: s.unauthorized.limiter.capacity, current: s.unauthorized.limiter.current },
    };
  }

  /** stop closes upstream pools, letting in-flight requests finish. */
  async stop(): Promise<void> {
    m.limitSources.delete(this.#snapshot);
    await this.#pools.close();
  }

  /**
   * handle serves one proxied request (HttpServer's raw catch-all). Every request is answered here:
   * client, config and backend problems with their status, a bug with 500 (or a cut connection
   * once the response started). Never throws.
   */
  handle = (req: IncomingMessage, res: ServerResponse): void => {
    this.#handle(req, res).catch((err: unknown) => this.#failed(req, res, err));
  };

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const state = this.#state;
    if (state === undefined) return this.#reject(res, 'ERR_AUTHPROXY_NO_CONFIG');
    const ip = req.socket.remoteAddress ?? '';
    if (state.ipFilter !== undefined && !state.ipFilter.allows(ip)) return this.#reject(res, 'ERR_AUTHPROXY_IP_DENIED', ip);
    let url = req.url ?? '/';
    const prefix = this.#o.pathPrefix;
    if (prefix !== '' && url.startsWith(prefix)) url = url.slice(prefix.length) || '/';
    const qi = url.indexOf('?');
    const query = qi < 0 ? '' : url.slice(qi + 1);
    const header = req.headers.authorization;
    // Node keeps the first of repeated Authorization headers, a backend might read another one.
    if (header !== undefined && countHeader(req.rawHeaders, 'authorization') > 1) return this.#reject(res, 'ERR_AUTHPROXY_BAD_REQUEST', 'more than one Authorization header');
    const auth = this.#authenticate(state, header, query);
    let user: UserState;
    if (typeof auth === 'string') {
      if (auth === 'invalid') this.#invalidToken(ip, url);
      if (state.unauthorized === undefined) return this.#reject(res, auth === 'missing' ? 'ERR_AUTHPROXY_MISSING_AUTH' : 'ERR_AUTHPROXY_INVALID_AUTH');
      user = state.unauthorized;
    } else {
      user = auth;
    }
    const started = performance.now();
    user.requests.inc();
    try {
      await this.#serveUser(user, req, res, ip, url, qi < 0 ? url : url.slice(0, qi), query);
    } finally {
      user.duration.observe((performance.now() - started) / 1000);
    }
  }

  // A bug, not a client or backend problem: answer 500 rather than leave the client hanging.
  #failed(req: IncomingMessage, res: ServerResponse, err: unknown): void {
    this.#o.logger.error({ err }, `cannot serve ${req.method} ${JSON.stringify((req.url ?? '').split('?')[0])}`);
    if (res.headersSent) res.destroy();
    else sendPlain(res, 500, `internal error: ${(err as Error).message}`);
  }

  #authenticate(state: ProxyState, header: string | undefined, query: string): Auth {
    if (header !== undefined) {
      const u = state.byKey.get(header);
      if (u !== undefined) return u;
      for (const k of candidateKeys(header)) {
        const c = state.byKey.get(k);
        if (c !== undefined) return c;
      }
      return 'invalid';
    }
    const key = queryCredentialKey(query);
    if (key === undefined) return 'missing';
    return state.byKey.get(key) ?? 'invalid';
  }

  #invalidToken(ip: string, url: string): void {
    m.requestErrors.inc({ reason: 'invalid_auth_token' });
    if (this.#o.logInvalidAuthTokens) this.#o.logger.warn(`cannot authorize request from ${ip} to ${JSON.stringify(url.split('?')[0])}: unknown credentials`);
  }

  async #serveUser(user: UserState, req: IncomingMessage, res: ServerResponse, ip: string, url: string, rawPath: string, query: string): Promise<void> {
    if (user.cfg.ipFilter !== undefined && !user.cfg.ipFilter.allows(ip)) return this.#reject(res, 'ERR_AUTHPROXY_IP_DENIED', ip);
    let path;
    try {
      path = normalizeRequestPath(rawPath);
    } catch (err) {
      if (err instanceof PathError) return this.#reject(res, 'ERR_AUTHPROXY_BAD_REQUEST', err.message);
      throw err;
    }
    const route = selectRoute(user, path.path);
    if (route === undefined) return this.#reject(res, 'ERR_AUTHPROXY_MISSING_ROUTE', url);
    // Both slots free is the common case: take them without a promise round trip.
    let fast = false;
    if (this.#global.tryAcquire()) {
      fast = user.limiter.tryAcquire();
      if (!fast) this.#global.release();
    }
    if (!fast && !(await this.#acquireSlots(user, req, res))) return;
    try {
      let body: RequestBody;
      try {
        body = hasBody(req) ? await prepareRequestBody(req, this.#o.maxRequestBodySizeToRetry) : NO_BODY;
      } catch (err) {
        return this.#reject(res, 'ERR_AUTHPROXY_BAD_REQUEST', (err as Error).message);
      }
      const headers = upstreamRequestHeaders(req.rawHeaders, ip, route.headers);
      await this.#forwardWithRetries(user, route, req, res, { path, query, headers, body });
    } finally {
      user.limiter.release();
      this.#global.release();
    }
  }

  // Global slot first, then the user's, each waiting within one -maxQueueDuration budget.
  async #acquireSlots(user: UserState, raw: IncomingMessage, res: ServerResponse): Promise<boolean> {
    if (this.#global.tryAcquire()) {
      if (user.limiter.tryAcquire()) return true;
    } else if (!(await this.#wait(this.#global, this.#o.maxQueueDurationMs, raw))) {
      m.globalLimitReached.inc();
      this.#reject(res, 'ERR_AUTHPROXY_TOO_MANY_REQUESTS', `-maxConcurrentRequests=${this.#global.capacity}`);
      return false;
    }
    const deadline = performance.now() + this.#o.maxQueueDurationMs;
    if (user.limiter.tryAcquire() || (await this.#wait(user.limiter, deadline - performance.now(), raw))) return true;
    this.#global.release();
    user.limitReached.inc();
    this.#reject(res, 'ERR_AUTHPROXY_TOO_MANY_REQUESTS', user.unauthorized
      ? `the max_concurrent_requests of unauthorized_user (${user.limiter.capacity})`
      : `the concurrency limit of user ${JSON.stringify(user.cfg.label)} (${user.limiter.capacity})`);
    return false;
  }

  async #wait(s: SharedSemaphore, waitMs: number, raw: IncomingMessage): Promise<boolean> {
    const a = s.acquire(waitMs);
    const onClose = () => a.cancel();
    raw.once('close', onClose);
    try {
      return await a.granted;
    } finally {
      raw.removeListener('close', onClose);
    }
  }

  async #forwardWithRetries(
    user: UserState, route: Route, raw: IncomingMessage, res: ServerResponse,
    r: { path: ReturnType<typeof normalizeRequestPath>; query: string; headers: string[]; body: RequestBody },
  ): Promise<void> {
    try {
      await this.#tryBackends(user, route, raw, res, r);
    } finally {
      // A backend may answer before the body ended (a 413 for a body over its limit), or fail while
      // receiving it: the client still sends the rest, which is read and dropped so that it gets
      // to read the answer and its connection stays usable.
      if (r.body.kind === 'stream') discardRestOfBody(raw);
    }
  }

  async #tryBackends(
    user: UserState, route: Route, raw: IncomingMessage, res: ServerResponse,
    r: { path: ReturnType<typeof normalizeRequestPath>; query: string; headers: string[]; body: RequestBody },
  ): Promise<void> {
    let tried: Set<Target> | undefined;
    let lastError: Error | undefined;
    const body = r.body.kind === 'none' ? null : r.body.kind === 'buffered' ? r.body.data : r.body.stream;
    for (;;) {
      const now = this.#o.now();
      const t = route.balancer.pick(now, tried);
      if (t === undefined) break;
      let path: string;
      try {
        path = upstreamPath(route, t, r.path, r.query);
      } catch (err) {
        if (err instanceof QueryError) return sendPlain(res, 400, err.message);
        throw err;
      }
      t.load.begin();
      const result = await forward(t.pool, {
        path, method: raw.method ?? 'GET', headers: r.headers, body, timeoutMs: this.#o.responseTimeoutMs, windowBytes: this.#o.responseWindowBytes,
      }, res);
      t.load.end();
      if (result.kind !== 'failed') return;
      lastError = result.error;
      t.errors.inc();
      user.backendErrors.inc();
      if (isTimeout(result.error)) {
        this.#o.logger.warn({ err: result.error }, `backend "${t.url.text}" did not answer within -responseTimeout=${this.#o.responseTimeoutMs}ms`);
        return sendPlain(res, 502, `cannot proxy the request to "${t.url.text}": no response within -responseTimeout`);
      }
      if (result.bodyStarted && !result.requestSent) {
        // The backend stopped taking the body and closed the connection without an answer the
        // proxy could read. The body itself may be why (the backend refused it), so this does not
        // take the backend out of rotation: one client must not be able to do that. It cannot be
        // sent again either.
        this.#o.logger.warn({ err: result.error }, `backend "${t.url.text}" closed the connection while receiving a request body`);
        return sendPlain(res, 502, `cannot proxy the request to "${t.url.text}": the backend closed the connection while receiving the request body: ${result.error.message}`);
      }
      t.load.markBroken(now + this.#o.failTimeoutMs);
      this.#o.logger.warn({ err: result.error }, `cannot proxy the request to "${t.url.text}"; skipping this backend for -failTimeout`);
      if (result.bodyStarted) {
        return sendPlain(res, 503, `cannot retry the request on another backend: its body (over -maxRequestBodySizeToRetry=${this.#o.maxRequestBodySizeToRetry} bytes) was already sent`);
      }
      (tried ??= new Set()).add(t);
    }
    sendPlain(res, 502, `cannot proxy the request: all backends failed; last error: ${lastError?.message ?? 'none'}`);
  }

  #reject(res: ServerResponse, code: ProxyErrorCode, detail?: string): void {
    const e: ProxyError = ERRORS[code];
    if (e.reason !== undefined) m.requestErrors.inc({ reason: e.reason });
    sendPlain(res, e.status, e.message(detail ?? ''), e.headers);
  }
}

function isTimeout(err: Error): boolean {
  const code = (err as { code?: string }).code;
  return code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT';
}

const NO_BODY: RequestBody = { kind: 'none' };

/** hasBody: the request announces a body (chunked, or a non-zero Content-Length). */
function hasBody(req: IncomingMessage): boolean {
  const cl = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (cl !== undefined && cl !== '0');
}

function countHeader(raw: readonly string[], lowerName: string): number {
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === lowerName.length && raw[i]!.toLowerCase() === lowerName) n++;
  return n;
}
