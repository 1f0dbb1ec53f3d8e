import Fastify, { type FastifyInstance, type FastifyPluginAsync, type FastifyReply, type FastifyRequest } from 'fastify';
import type { IncomingMessage, Server as HttpServerNode, ServerResponse } from 'node:http';
import type { AddressInfo, Server as NetServer } from 'node:net';
import type { Server as TlsServer } from 'node:tls';
import type { FlagSet } from '../flags/index.ts';
import type { Logger } from '../logger/index.ts';
import { counter } from '../metrics/index.ts';
import { checkBasicAuth, constantTimeEqual } from './auth.ts';
import { compress } from './compress.ts';
import { builtinRoutes } from './builtin-routes.ts';
import { ConnectionLifetime } from './conn-lifetime.ts';
import { AcceptGroup } from './accept-group.ts';
import { parseListenAddr } from './listen-addr.ts';
import { aliasesOf, PrefixAliases } from './prefix-aliases.ts';
import { createProxyProtocolListener } from './proxy-listener.ts';
import { RawCatchAllTable } from './raw-routes.ts';
import { lazySchemaCompilers } from './schema-compilers.ts';
import './route-config.ts';
import { readTlsContext, type TlsOptions, watchTlsFiles } from './tls.ts';
import { timerMs } from '../timer/index.ts';

/** HttpServerOptions configure one server; httpServerOptionsFromFlags builds them from the common flags. */
export interface HttpServerOptions {
  readonly listenAddr: string;
  readonly enableTCP6: boolean;
  /** pathPrefix is prepended to every route ("" for none). */
  readonly pathPrefix: string;
  /** tls enables HTTPS with certificate rotation; undefined serves plain HTTP. */
  readonly tls: TlsOptions | undefined;
  readonly connTimeoutMs: number;
  readonly idleConnTimeoutMs: number;
  readonly maxGracefulShutdownMs: number;
  readonly disableResponseCompression: boolean;
  readonly useProxyProtocol: boolean;
  /** basicAuth protects every route without an auth key of its own; undefined disables it. */
  readonly basicAuth: { readonly username: string; readonly password: string } | undefined;
  readonly metricsAuthKey: string;
  readonly flagsAuthKey: string;
  readonly pprofAuthKey: string;
  readonly flagSet: FlagSet;
  readonly logger: Logger;
  /** metricsPrefix names this binary's metrics (tsdb, gateway, authproxy, backupmanager, operator). */
  readonly metricsPrefix: string;
  /** bodyLimit caps bodies fastify parses itself (JSON, forms); streaming routes enforce their own. */
  readonly bodyLimit?: number;
  readonly random?: () => number;
}

/**
 * RawHandler serves one request with Node's own request and response objects, outside fastify's
 * request lifecycle: no hooks, no -httpAuth.*, no compression, no error handler. It must answer
 * every request itself (authentication included) and must not throw.
 */
export type RawHandler = (req: IncomingMessage, res: ServerResponse) => void;

type NodeRequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * HttpServer is a fastify app with Strata's built-in routes, auth, TLS, PROXY protocol, connection
 * lifetime and graceful shutdown. Components add their routes with `register` (under -http.pathPrefix).
 */
export class HttpServer {
  readonly app: FastifyInstance;
  readonly #o: HttpServerOptions;
  readonly #lifetime: ConnectionLifetime;
  #front: NetServer | undefined;
  #acceptors: AcceptGroup | undefined;
  #stopTlsWatch: () => void = () => {};
  #healthy = true;
  #closing = false;
  readonly #rawTable: RawCatchAllTable;
  #raw: RawHandler | undefined;
  #countRaw: ((res: ServerResponse) => void) | undefined;

  constructor(o: HttpServerOptions) {
    this.#o = o;
    this.#lifetime = new ConnectionLifetime(o.connTimeoutMs, o.random);
    const tls = o.tls === undefined ? undefined : readTlsContext(o.tls);
    const aliases = new PrefixAliases();
    this.app = Fastify({
      rewriteUrl: aliases.rewrite,
      logger: false,
      keepAliveTimeout: o.idleConnTimeoutMs,
      forceCloseConnections: 'idle',
      bodyLimit: o.bodyLimit ?? 32 * 1024 * 1024,
      schemaController: { compilersFactory: lazySchemaCompilers() },
      ...(tls === undefined ? {} : { https: tls }),
    }) as unknown as FastifyInstance;
    this.#rawTable = new RawCatchAllTable(o.pathPrefix);
    this.app.addHook('onRoute', (route) => {
      aliases.onRoute(route);
      if (route.config?.rawCatchAll !== true) for (const url of [route.url, ...aliasesOf(route).map((a) => a.aliased)]) this.#rawTable.addRoute(url);
    });
    const server = this.app.server as HttpServerNode;
    // fastify's request listener moves behind a dispatcher that hands raw catch-all requests over
    // first; the connection lifetime's listener runs before both, so it sees every response unsent.
    const [fastifyListener] = server.listeners('request') as NodeRequestListener[];
    if (fastifyListener === undefined) throw new Error('cannot find fastify\'s request listener on its HTTP server');
    server.removeListener('request', fastifyListener);
    this.#lifetime.attach(server, tls !== undefined);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (this.#raw !== undefined && !this.#closing && this.#rawTable.claims(req.url ?? '')) this.#serveRaw(this.#raw, req, res);
      else fastifyListener.call(server, req, res);
    });
    this.#installHooks();
    if (!o.disableResponseCompression) {
      void this.app.register(compress, { global: true, globalDecompression: false, threshold: 1024, encodings: ['gzip', 'deflate'] });
    }
    this.register(async (scope) => builtinRoutes(scope, {
      flagSet: o.flagSet, metricsAuthKey: o.metricsAuthKey, flagsAuthKey: o.flagsAuthKey, pprofAuthKey: o.pprofAuthKey,
      healthy: () => this.#healthy,
    }));
  }

  /** register adds a fastify plugin under -http.pathPrefix. */
  register<O extends Record<string, unknown>>(plugin: FastifyPluginAsync<O>, opts?: O): void {
    void this.app.register(plugin, { ...(opts ?? ({} as O)), prefix: this.#o.pathPrefix });
  }

  /**
   * registerRawCatchAll serves every path under -http.pathPrefix that no other route claims, with
   * any method, through handler: the paths fastify would send to a catch-all `/*` route. Most such
   * requests reach handler straight from Node's 'request' event (no fastify request, reply, hooks
   * or promises: a proxy's hot path); the few whose routing needs fastify's URL decoding (see
   * RawCatchAllTable), and every request once close() began (fastify answers those 503), go
   * through equivalent fastify routes, which hand the same objects to handler. Either way the
   * request is counted in <metricsPrefix>_http_requests_total{path="<pathPrefix>/*"} and -httpAuth.* does not apply:
   * handler authenticates. At most one per server, before listen().
   */
  registerRawCatchAll(handler: RawHandler): void {
    if (this.#raw !== undefined) throw new Error('cannot register a second raw catch-all route');
    this.#raw = handler;
    this.register(async (app) => {
      // Bodies are handler's to read: fastify must neither parse nor consume them.
      app.removeAllContentTypeParsers();
      app.addContentTypeParser('*', (_req, _payload, done) => done(null));
      const config = { public: true, rawCatchAll: true };
      const viaFastify = async (req: FastifyRequest, reply: FastifyReply) => {
        reply.hijack();
        handler(req.raw, reply.raw);
      };
      app.all('/', { config }, viaFastify);
      app.all('/*', { config }, viaFastify);
    });
  }

  #serveRaw(handler: RawHandler, req: IncomingMessage, res: ServerResponse): void {
    this.#countRaw?.(res);
    handler(req, res);
  }

  #installHooks(): void {
    const o = this.#o;
    const requests = counter(`${o.metricsPrefix}_http_requests_total`, 'HTTP requests served, by route', ['path']);
    const errors = counter(`${o.metricsPrefix}_http_request_errors_total`, 'HTTP requests answered with a status of 400 or above, by route and status', ['path', 'code']);
    const authFailures = counter(`${o.metricsPrefix}_http_auth_errors_total`, 'Requests rejected for missing or wrong credentials or auth keys', ['path']);
    const rawRoute = `${o.pathPrefix}/*`;
    const rawRequests = requests.labels(rawRoute);
    // A component may have declared the same name with other labels first (the auth proxy's
    // <prefix>_http_request_errors_total{reason} of the spec); counting into it would throw.
    const errorsByRoute = hasLabels(errors, ['path', 'code']);
    function onRawFinish(this: ServerResponse): void {
      if (this.statusCode >= 400 && errorsByRoute) errors.inc({ path: rawRoute, code: String(this.statusCode) });
    }
    this.#countRaw = (res) => {
      rawRequests.inc();
      res.on('finish', onRawFinish);
    };
    // Callback hooks, not async ones: fastify chains an async hook's promise, a promise and a
    // microtask turn more per hook and request. A request #authorize answered ends its hooks.
    this.app.addHook('onRequest', (req, reply, done) => {
      const path = req.routeOptions.url ?? 'unsupported';
      requests.inc({ path });
      if (this.#authorize(req, reply)) done();
      else authFailures.inc({ path });
    });
    this.app.addHook('onResponse', (req, reply, done) => {
      if (reply.statusCode >= 400 && errorsByRoute) errors.inc({ path: req.routeOptions.url ?? 'unsupported', code: String(reply.statusCode) });
      done();
    });
    this.app.setNotFoundHandler(async (req, reply) => reply.code(404).type('text/plain').send(`unsupported path requested: ${JSON.stringify(req.url.split('?')[0])}`));
    this.app.setErrorHandler(async (err: Error & { statusCode?: number }, req, reply) => {
      const status = err.statusCode !== undefined && err.statusCode >= 400 ? err.statusCode : 500;
      if (status >= 500) o.logger.error({ err }, `cannot serve ${req.method} ${req.url.split('?')[0]}`);
      return reply.code(status).type('text/plain').send(status >= 500 ? `internal error: ${err.message}` : err.message);
    });
  }

  /** #authorize applies a route's auth key, else -httpAuth.*; it answers 401 itself and returns false on failure. */
  #authorize(req: FastifyRequest, reply: FastifyReply): boolean {
    const config = req.routeOptions.config;
    if (config.public === true) return true;
    const key = config.authKey?.() ?? '';
    if (key !== '') {
      const given = (req.query as Record<string, unknown>).authKey;
      if (typeof given === 'string' && constantTimeEqual(given, key)) return true;
      void reply.code(401).type('text/plain').send(`The provided authKey doesn't match -${config.authKeyFlag ?? 'authKey'}`);
      return false;
    }
    const basic = this.#o.basicAuth;
    if (basic === undefined || checkBasicAuth(req.headers.authorization, basic.username, basic.password)) return true;
    void reply.code(401).header('www-authenticate', 'Basic realm="Restricted"').type('text/plain').send('Unauthorized');
    return false;
  }

  /**
   * listen binds -httpListenAddr and returns the bound "host:port". joinPort makes this server a
   * further thread's server on the port that the first thread's server bound (AcceptGroup join).
   */
  async listen(joinPort?: number): Promise<string> {
    const o = this.#o;
    const addr = parseListenAddr(o.listenAddr, o.enableTCP6);
    const host = addr.host;
    const port = joinPort ?? addr.port;
    const join = joinPort !== undefined;
    await this.app.ready();
    const server = this.app.server as HttpServerNode;
    if (o.tls !== undefined) {
      this.#stopTlsWatch = watchTlsFiles(o.tls, server as unknown as TlsServer,
        () => o.logger.info(`reloaded TLS certificate "${o.tls?.certFile}"`),
        (err) => o.logger.error({ err }, 'cannot reload TLS certificate; keeping the previous one'));
    }
    if (o.useProxyProtocol) {
      const rejects = counter(`${o.metricsPrefix}_proxy_protocol_errors_total`, 'Connections closed because of a missing or malformed PROXY protocol header');
      this.#front = createProxyProtocolListener(server, o.tls !== undefined, {
        headerTimeoutMs: 5000,
        onReject: (reason, peer) => {
          rejects.inc();
          o.logger.warn(`closed connection from ${peer}: ${reason}`);
        },
      });
      this.#acceptors = await AcceptGroup.listen(this.#front, host, port, undefined, join);
      return formatAddress(this.#front.address() as AddressInfo);
    }
    this.#acceptors = await AcceptGroup.listen(server, host, port, undefined, join);
    return formatAddress(server.address() as AddressInfo);
  }

  /** port is the bound port (after listen). */
  get port(): number {
    return ((this.#front ?? this.app.server).address() as AddressInfo).port;
  }

  /** beginShutdownDelay makes /health answer 503 (the start of -http.shutdownDelay). */
  beginShutdownDelay(): void {
    this.#healthy = false;
  }

  /**
   * close stops accepting connections, lets in-flight requests finish for up to
   * -http.maxGracefulShutdownDuration, then closes whatever is left.
   */
  async close(): Promise<void> {
    this.#closing = true;
    this.#stopTlsWatch();
    this.#front?.close();
    const server = this.app.server as HttpServerNode;
    // Connections accepted by the extra listening sockets count on those sockets' servers.
    const closing = Promise.all([this.app.close(), this.#acceptors?.close()]);
    // Keep-alive connections would otherwise linger until -http.idleConnTimeout.
    this.#lifetime.expireAll();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timerMs(this.#o.maxGracefulShutdownMs));
    });
    await Promise.race([closing, deadline]);
    clearTimeout(timer);
    server.closeAllConnections();
    await closing;
  }
}

function hasLabels(metric: object, names: readonly string[]): boolean {
  const have = (metric as { labelNames?: readonly string[] }).labelNames ?? [];
  return names.every((n) => have.includes(n));
}

function formatAddress(a: AddressInfo): string {
  return a.family === 'IPv6' ? `[${a.address}]:${a.port}` : `${a.address}:${a.port}`;
}
