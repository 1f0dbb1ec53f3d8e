import compress from '@fastify/compress';
import Fastify, { type FastifyInstance, type FastifyPluginAsync, type FastifyReply, type FastifyRequest } from 'fastify';
import { type Server as HttpServerNode } from 'node:http';
import { type AddressInfo, type Server as NetServer } from 'node:net';
import { type Server as TlsServer } from 'node:tls';
import { type FlagSet } from '../flags/index.ts';
import { type Logger } from '../logger/index.ts';
import { counter } from '../metrics/index.ts';
import { checkBasicAuth, constantTimeEqual } from './auth.ts';
import { builtinRoutes } from './builtin-routes.ts';
import { ConnectionLifetime } from './conn-lifetime.ts';
import { parseListenAddr } from './listen-addr.ts';
import { createProxyProtocolListener } from './proxy-listener.ts';
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
 * HttpServer is a fastify app with Strata's built-in routes, auth, TLS, PROXY protocol, connection
 * lifetime and graceful shutdown. Components add their routes with `register` (under -http.pathPrefix).
 */
export class HttpServer {
  readonly app: FastifyInstance;
  readonly #o: HttpServerOptions;
  readonly #lifetime: ConnectionLifetime;
  #front: NetServer | undefined;
  #stopTlsWatch: () => void = () => {};
  #healthy = true;

  constructor(o: HttpServerOptions) {
    this.#o = o;
    this.#lifetime = new ConnectionLifetime(o.connTimeoutMs, o.random);
    const tls = o.tls === undefined ? undefined : readTlsContext(o.tls);
    this.app = Fastify({
      logger: false,
      keepAliveTimeout: o.idleConnTimeoutMs,
      forceCloseConnections: 'idle',
      bodyLimit: o.bodyLimit ?? 32 * 1024 * 1024,
      ...(tls === undefined ? {} : { https: tls }),
    }) as unknown as FastifyInstance;
    this.#lifetime.attach(this.app.server as HttpServerNode, tls !== undefined);
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

  #installHooks(): void {
    const o = this.#o;
    const requests = counter(`${o.metricsPrefix}_http_requests_total`, 'HTTP requests served, by route', ['path']);
    const errors = counter(`${o.metricsPrefix}_http_request_errors_total`, 'HTTP requests answered with a status of 400 or above, by route and status', ['path', 'code']);
    const authFailures = counter(`${o.metricsPrefix}_http_auth_errors_total`, 'Requests rejected for missing or wrong credentials or auth keys', ['path']);
    this.app.addHook('onRequest', async (req, reply) => {
      const path = req.routeOptions.url ?? 'unsupported';
      requests.inc({ path });
      if (!this.#authorize(req, reply)) {
        authFailures.inc({ path });
        return reply;
      }
    });
    this.app.addHook('onResponse', async (req, reply) => {
      if (reply.statusCode >= 400) errors.inc({ path: req.routeOptions.url ?? 'unsupported', code: String(reply.statusCode) });
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

  /** listen binds -httpListenAddr and returns the bound "host:port". */
  async listen(): Promise<string> {
    const o = this.#o;
    const { host, port } = parseListenAddr(o.listenAddr, o.enableTCP6);
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
      await listenOn(this.#front, host, port);
      return formatAddress(this.#front.address() as AddressInfo);
    }
    await listenOn(server, host, port);
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
    this.#stopTlsWatch();
    this.#front?.close();
    const server = this.app.server as HttpServerNode;
    const closing = this.app.close();
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

function listenOn(server: NetServer, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.removeListener('error', reject);
      resolve();
    });
  });
}

function formatAddress(a: AddressInfo): string {
  return a.family === 'IPv6' ? `[${a.address}]:${a.port}` : `${a.address}:${a.port}`;
}
