import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type BalancingPolicy, normalizeRequestPath, PathError, PoolRegistry, prepareRequestBody, type RequestBody, sendPlain, type SharedSemaphore, upstreamRequestHeaders,
} from '../../lib/httpproxy/index.ts';
import type { Logger } from '../../lib/logger/index.ts';
import { authenticate, countHeader } from './authenticate.ts';
import type { BackendLoad } from './backend-load.ts';
import type { AuthConfig } from './config-types.ts';
import { ERRORS, type ProxyError, type ProxyErrorCode } from './errors.ts';
import { forwardWithRetries, type ForwardOptions } from './forward-retry.ts';
import * as m from './metrics.ts';
import { selectRoute } from './routing.ts';
import { ConcurrencySlots } from './slots.ts';
import {
  adoptSharedBuffers, buildState, type ProxyState, sharedBuffers, type SharedBuffers, type UserState,
} from './state.ts';

/** AuthProxyOptions are the auth proxy's flags as values (see flags.ts), plus injected clock and logger. */
export interface AuthProxyOptions extends ForwardOptions {
  readonly maxConcurrentRequests: number;
  readonly maxConcurrentPerUserRequests: number;
  readonly maxQueueDurationMs: number;
  readonly maxIdleConnsPerBackend: number;
  readonly loadBalancingPolicy: BalancingPolicy;
  readonly logInvalidAuthTokens: boolean;
  /** pathPrefix (-http.pathPrefix) is removed from request paths before routing. */
  readonly pathPrefix: string;
  /**
   * globalLimiter is the buffer of another thread's -maxConcurrentRequests semaphore, for a proxy
   * serving the same port in a further thread; by default the proxy makes its own.
   */
  readonly globalLimiter?: SharedArrayBuffer;
}

/**
 * AuthProxy serves requests under one config at a time: it authenticates (authenticate.ts), routes,
 * holds concurrency slots (slots.ts) and forwards with retries (forward-retry.ts). setConfig swaps
 * the config atomically: requests in flight finish under the state they started with.
 */
export class AuthProxy {
  readonly #o: AuthProxyOptions;
  readonly #slots: ConcurrencySlots;
  readonly #pools: PoolRegistry;
  readonly #limiters = new Map<string, SharedSemaphore>();
  readonly #loads = new Map<string, BackendLoad>();
  readonly #snapshot = () => this.limitSnapshot();
  #state: ProxyState | undefined;

  constructor(o: AuthProxyOptions) {
    this.#o = o;
    this.#slots = new ConcurrencySlots(o);
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
    return this.#slots.global.buffer;
  }

  /** sharedBuffers are the current state's limiter and load buffers (for further threads). */
  sharedBuffers(): SharedBuffers {
    return sharedBuffers({ limiters: this.#limiters, loads: this.#loads });
  }

  /** limitSnapshot reports capacities and current counts for the gauges. */
  limitSnapshot(): m.LimitSnapshot {
    const s = this.#state;
    const g = this.#slots.global;
    return {
      global: { capacity: g.capacity, current: g.current },
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
    const auth = authenticate(state, header, query);
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
    if (!this.#slots.tryAcquire(user)) {
      const limit = await this.#slots.acquire(user, req);
      if (limit !== undefined) return this.#reject(res, 'ERR_AUTHPROXY_TOO_MANY_REQUESTS', limit);
    }
    try {
      let body: RequestBody;
      try {
        body = hasBody(req) ? await prepareRequestBody(req, this.#o.maxRequestBodySizeToRetry) : NO_BODY;
      } catch (err) {
        return this.#reject(res, 'ERR_AUTHPROXY_BAD_REQUEST', (err as Error).message);
      }
      const headers = upstreamRequestHeaders(req.rawHeaders, ip, route.headers);
      await forwardWithRetries(this.#o, user, route, req, res, { path, query, headers, body });
    } finally {
      this.#slots.release(user);
    }
  }

  #reject(res: ServerResponse, code: ProxyErrorCode, detail?: string): void {
    const e: ProxyError = ERRORS[code];
    if (e.reason !== undefined) m.requestErrors.inc({ reason: e.reason });
    sendPlain(res, e.status, e.message(detail ?? ''), e.headers);
  }
}

const NO_BODY: RequestBody = { kind: 'none' };

/** hasBody: the request announces a body (chunked, or a non-zero Content-Length). */
function hasBody(req: IncomingMessage): boolean {
  const cl = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (cl !== undefined && cl !== '0');
}
