// The request path of the gateway: token → path policy → mode → rate limit → rewrite → stream to
// the target. Every request is answered here, never thrown: client and token problems with their
// status (errors.ts), a target that does not answer with 502, a bug with 500.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { Pool } from 'undici';
import {
  type ExtraHeaders, forward, type ForcedArgs, mergeQueryArgs, NO_FORCED_ARGS, normalizeRequestPath, PathError, PoolRegistry, QueryError,
  sendPlain, upstreamRequestHeaders,
} from '../../lib/httpproxy/index.ts';
import type { Logger } from '../../lib/logger/index.ts';
import { mayRead, mayWrite } from './claims.ts';
import { ERRORS, type GatewayErrorCode } from './errors.ts';
import { FormArgFilter } from './form-args.ts';
import type { RateLimiter } from './limiter.ts';
import * as m from './metrics.ts';
import { type ApiRoute, type RequestKind, routeFor } from './path-policy.ts';
import type { TokenEntry } from './token-cache.ts';
import { tokenFromHeader, type TokenVerifier } from './token-verifier.ts';

/** Target is -read.url or -write.url: where one kind of request goes. */
export interface Target {
  /** url is the flag value, for messages. */
  readonly url: string;
  /** origin is "scheme://host:port" (the pool key). */
  readonly origin: string;
  /** basePath is the URL's path without a trailing slash ("" for none), put before every path. */
  readonly basePath: string;
}

/** parseTarget reads a -read.url / -write.url value; throws Error naming the flag. */
export function parseTarget(flag: string, text: string): Target {
  let u: URL;
  try {
    u = new URL(text);
  } catch (err) {
    throw new Error(`-${flag}=${JSON.stringify(text)} is not a URL`, { cause: err });
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`-${flag}=${JSON.stringify(text)} must be an http or https URL`);
  if (u.search !== '' || u.hash !== '' || u.username !== '' || u.password !== '') throw new Error(`-${flag}=${JSON.stringify(text)} must not have a query, fragment or credentials`);
  return { url: text, origin: u.origin, basePath: u.pathname.replace(/\/+$/, '') };
}

/** GatewayProxyOptions are the gateway's settings as values, with injected clock and logger. */
export interface GatewayProxyOptions {
  /** auth is undefined without -enable.auth: every request then acts as a token with empty claims. */
  readonly auth: { readonly verifier: TokenVerifier; readonly header: string } | undefined;
  readonly clusterMode: boolean;
  readonly read: Target | undefined;
  readonly write: Target | undefined;
  /** limiter is undefined without -enable.rateLimit. */
  readonly limiter: RateLimiter | undefined;
  /** pathPrefix (-http.pathPrefix) is removed from request paths. */
  readonly pathPrefix: string;
  readonly responseTimeoutMs: number;
  readonly logInvalidAuthTokens: boolean;
  readonly logger: Logger;
}

// Without -enable.auth a request has no claims: tenant 0:0 (DECISIONS.md: missing ids are 0), full access.
const NO_AUTH: TokenEntry = {
  claims: { exp: Infinity, tenant: { accountID: 0, projectID: 0 }, extraLabels: undefined, extraFilters: undefined, mode: 'full' },
  expMs: Infinity, readArgs: NO_FORCED_ARGS, writeArgs: NO_FORCED_ARGS,
};

const RETRY_AFTER = { minute: '60', hour: '3600' } as const;

// Label-bound children: the per-request cost is one increment, not a label lookup.
const PER_KIND = {
  read: { forwarded: m.forwarded.labels('read'), duration: m.duration.labels('read'), backendErrors: m.backendErrors.labels('read') },
  write: { forwarded: m.forwarded.labels('write'), duration: m.duration.labels('write'), backendErrors: m.backendErrors.labels('write') },
} as const;
const FORM = 'application/x-www-form-urlencoded';

/** GatewayProxy serves every request of the raw catch-all route. */
export class GatewayProxy {
  readonly #o: GatewayProxyOptions;
  readonly #pools: PoolRegistry;
  readonly #readPool: Pool | undefined;
  readonly #writePool: Pool | undefined;
  /** #drop: headers never forwarded (the token's); #dropFiltered also drops Content-Length of filtered bodies. */
  readonly #drop: ExtraHeaders;
  readonly #dropFiltered: ExtraHeaders;

  constructor(o: GatewayProxyOptions) {
    this.#o = o;
    this.#pools = new PoolRegistry({ connectionsPerOrigin: 1024, idleTimeoutMs: 60_000, connectTimeoutMs: 10_000 });
    this.#readPool = o.read === undefined ? undefined : this.#pools.get(o.read.origin);
    this.#writePool = o.write === undefined ? undefined : this.#pools.get(o.write.origin);
    const token = o.auth === undefined ? [] : [o.auth.header];
    this.#drop = { pairs: [], lowerNames: new Set(token) };
    this.#dropFiltered = { pairs: [], lowerNames: new Set([...token, 'content-length']) };
  }

  /** stop closes the upstream pools, letting requests in flight finish. */
  async stop(): Promise<void> {
    await this.#pools.close();
  }

  /** handle serves one request (HttpServer's raw catch-all). Never throws. */
  handle = (req: IncomingMessage, res: ServerResponse): void => {
    this.#handle(req, res, performance.now()).catch((err: unknown) => this.#failed(req, res, err));
  };

  async #handle(req: IncomingMessage, res: ServerResponse, started: number): Promise<void> {
    m.requests.inc();
    const o = this.#o;
    let url = req.url ?? '/';
    if (o.pathPrefix !== '' && url.startsWith(o.pathPrefix)) url = url.slice(o.pathPrefix.length) || '/';
    const qi = url.indexOf('?');
    const rawPath = qi < 0 ? url : url.slice(0, qi);
    const query = qi < 0 ? '' : url.slice(qi + 1);
    const entry = o.auth === undefined ? NO_AUTH : await this.#authenticate(req, res, o.auth, rawPath);
    if (entry === undefined) return;
    let route: ApiRoute | undefined;
    try {
      route = routeFor(normalizeRequestPath(rawPath));
    } catch (err) {
      if (err instanceof PathError) return this.#reject(res, 'ERR_GATEWAY_BAD_REQUEST', err.message);
      throw err;
    }
    if (route === undefined) return this.#reject(res, 'ERR_GATEWAY_UNSUPPORTED_PATH', JSON.stringify(rawPath.slice(0, 200)));
    const kind = route.kind;
    const c = entry.claims;
    if (kind === 'read' ? !mayRead(c.mode) : !mayWrite(c.mode)) {
      return this.#reject(res, 'ERR_GATEWAY_FORBIDDEN_MODE', `the token is for ${c.mode === 'read' ? 'reads' : 'writes'} only (svc_access.mode ${c.mode === 'read' ? 1 : 2}); ${rawPath} is a ${kind} path`);
    }
    const target = kind === 'read' ? o.read : o.write;
    const pool = kind === 'read' ? this.#readPool : this.#writePool;
    if (target === undefined || pool === undefined) return this.#reject(res, 'ERR_GATEWAY_UNSUPPORTED_PATH', `${kind}s: -${kind}.url is not set`);
    const exceeded = o.limiter?.check(c.tenant, kind);
    if (exceeded !== undefined) {
      m.rateLimited.inc({ type: exceeded.type, resolution: exceeded.resolution });
      return this.#reject(res, 'ERR_GATEWAY_RATE_LIMITED', exceeded.type, { 'retry-after': RETRY_AFTER[exceeded.resolution] });
    }
    const forced = kind === 'read' ? entry.readArgs : entry.writeArgs;
    let args: string;
    try {
      args = mergeQueryArgs(query, forced);
    } catch (err) {
      if (err instanceof QueryError) return this.#reject(res, 'ERR_GATEWAY_BAD_REQUEST', err.message);
      throw err;
    }
    const body = this.#body(req, res, kind, forced);
    if (body === false) return;
    const path = `${target.basePath}${o.clusterMode ? route.clusterPath(c.tenant) : route.single}${args === '' ? '' : `?${args}`}`;
    const headers = upstreamRequestHeaders(req.rawHeaders, req.socket.remoteAddress ?? '', body.filtered ? this.#dropFiltered : this.#drop);
    const km = PER_KIND[kind];
    km.forwarded.inc();
    m.overhead.observe((performance.now() - started) / 1000);
    const result = await forward(pool, { path, method: req.method ?? 'GET', headers, body: body.stream, timeoutMs: o.responseTimeoutMs }, res);
    km.duration.observe((performance.now() - started) / 1000);
    if (result.kind !== 'failed') return;
    const cause = result.error.cause ?? result.error;
    if (cause instanceof QueryError) return this.#reject(res, 'ERR_GATEWAY_BAD_REQUEST', cause.message);
    km.backendErrors.inc();
    o.logger.warn({ err: result.error }, `cannot proxy a ${kind} request to -${kind}.url="${target.url}"`);
    sendPlain(res, ERRORS.ERR_GATEWAY_BACKEND.status, `cannot proxy the request to -${kind}.url: ${result.error.message}`);
  }

  // Returns the cached or freshly verified token, or answers 401 and returns undefined.
  async #authenticate(req: IncomingMessage, res: ServerResponse, auth: { verifier: TokenVerifier; header: string }, rawPath: string): Promise<TokenEntry | undefined> {
    const value = req.headers[auth.header];
    // Node keeps the first of repeated headers; a backend (or another proxy) might read another one.
    const duplicated = Array.isArray(value) || (value !== undefined && countHeader(req.rawHeaders, auth.header) > 1);
    const token = duplicated ? '' : tokenFromHeader(value as string | undefined);
    const cached = token === '' ? undefined : auth.verifier.cached(token);
    if (cached !== undefined) {
      m.tokenCacheHits.inc();
      return cached;
    }
    if (duplicated) return this.#unauthorized(req, res, 'malformed_token', `more than one ${auth.header} header`, rawPath);
    m.tokenCacheMisses.inc();
    const v = await auth.verifier.verify(token);
    if (v.ok) return v.entry;
    return this.#unauthorized(req, res, v.reason, v.detail, rawPath);
  }

  #unauthorized(req: IncomingMessage, res: ServerResponse, reason: string, detail: string, rawPath: string): undefined {
    m.authRejects.inc({ reason });
    m.rejects.inc({ reason });
    if (this.#o.logInvalidAuthTokens) this.#o.logger.warn(`rejected a request from ${req.socket.remoteAddress ?? '?'} to ${JSON.stringify(rawPath.slice(0, 200))}: ${reason}: ${detail}`);
    const e = ERRORS.ERR_GATEWAY_UNAUTHORIZED;
    sendPlain(res, e.status, e.message());
    return undefined;
  }

  // What goes upstream as the body: nothing, the client's stream, or (for a form-encoded read whose
  // token forces args) the stream filtered by FormArgFilter. Answers 400/415 and returns false for a
  // read body the gateway cannot check.
  #body(req: IncomingMessage, res: ServerResponse, kind: RequestKind, forced: ForcedArgs): { stream: Readable | null; filtered: boolean } | false {
    const cl = req.headers['content-length'];
    if (req.headers['transfer-encoding'] === undefined && (cl === undefined || cl === '0')) return { stream: null, filtered: false };
    // Writes carry data; their args are read from the URL only (DECISIONS.md "Write bodies").
    if (kind === 'write') return { stream: req, filtered: false };
    if (countHeader(req.rawHeaders, 'content-type') > 1) return this.#reject(res, 'ERR_GATEWAY_BAD_REQUEST', 'more than one Content-Type header'), false;
    const encoding = req.headers['content-encoding'];
    if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
      return this.#reject(res, 'ERR_GATEWAY_UNSUPPORTED_MEDIA_TYPE', `a read request body must not be compressed (Content-Encoding: ${encoding})`), false;
    }
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== FORM) return this.#reject(res, 'ERR_GATEWAY_UNSUPPORTED_MEDIA_TYPE', `a read request body must be ${FORM}, not ${JSON.stringify(type)}`), false;
    if (forced.names.size === 0) return { stream: req, filtered: false };
    const filter = new FormArgFilter(forced.names);
    req.on('error', (err) => filter.destroy(err));
    return { stream: req.pipe(filter), filtered: true };
  }

  #reject(res: ServerResponse, code: GatewayErrorCode, detail: string, headers?: Record<string, string>): void {
    const e = ERRORS[code];
    m.rejects.inc({ reason: e.reason });
    sendPlain(res, e.status, e.message(detail), headers);
  }

  // A bug, not a client or target problem: answer 500 rather than leave the client hanging.
  #failed(req: IncomingMessage, res: ServerResponse, err: unknown): void {
    this.#o.logger.error({ err }, `cannot serve ${req.method} ${JSON.stringify((req.url ?? '').split('?')[0])}`);
    if (res.headersSent) res.destroy();
    else sendPlain(res, 500, `internal error: ${(err as Error).message}`);
  }
}

function countHeader(raw: readonly string[], lowerName: string): number {
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === lowerName.length && raw[i]!.toLowerCase() === lowerName) n++;
  return n;
}
