import { type HttpServer } from '../../lib/httpserver/index.ts';
import { type Logger } from '../../lib/logger/index.ts';
import { type Component } from '../../lib/process/index.ts';
import { readConfigText } from './config-source.ts';
import { type AuthProxyFlags } from './flags.ts';
import { AuthProxy } from './proxy.ts';
import { ConfigReloader } from './reloader.ts';
import { responseWindow } from './response-window.ts';
import { registerAuthProxyRoutes } from './routes.ts';

export { ConfigError } from './config-error.ts';
export { parseAuthConfig, type ParseOptions } from './config-parse.ts';
export { type AuthConfig, type TargetUrl, type UrlMapEntry, type UserConfig } from './config-types.ts';
export { authProxyFlagsFromFlags, type AuthProxyFlags } from './flags.ts';
export { AuthProxy, type AuthProxyOptions } from './proxy.ts';

/** InitOptions wire the auth proxy into a binary (or a test). */
export interface InitOptions {
  readonly flags: AuthProxyFlags;
  readonly server: HttpServer;
  readonly logger: Logger;
  /** pathPrefix is -http.pathPrefix (stripped from proxied paths). */
  readonly pathPrefix: string;
  /** ipFiltersAllowed is -eula: ip_filters is an enterprise feature. */
  readonly ipFiltersAllowed: boolean;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly now?: () => number;
  /**
   * bufferBudgetBytes is the memory response buffers of all concurrent requests may use together
   * (a share of -memory.allowed*): each request may buffer budget / -maxConcurrentRequests bytes
   * for a slow client, between 64 KiB and 256 KiB. Default: 256 KiB per request.
   */
  readonly bufferBudgetBytes?: number;
}

/** AuthProxyComponent is the running auth proxy: reload on SIGHUP, stop at shutdown. */
export interface AuthProxyComponent extends Component {
  readonly proxy: AuthProxy;
  /** reloadConfig re-reads -auth.config; resolves false when the new config was rejected. */
  reloadConfig(): Promise<boolean>;
  reload(): Promise<void>;
}

/**
 * initAuthProxy loads -auth.config (throwing when it cannot be read or is invalid), registers the
 * routes on server (before it listens) and starts the -configCheckInterval timer.
 */
export async function initAuthProxy(o: InitOptions): Promise<AuthProxyComponent> {
  const f = o.flags;
  const now = o.now ?? Date.now;
  const logger = o.logger.child({ component: 'authproxy' });
  const proxy = new AuthProxy({
    maxConcurrentRequests: f.maxConcurrentRequests, maxConcurrentPerUserRequests: f.maxConcurrentPerUserRequests,
    maxQueueDurationMs: f.maxQueueDurationMs, maxRequestBodySizeToRetry: f.maxRequestBodySizeToRetry,
    maxIdleConnsPerBackend: f.maxIdleConnsPerBackend, failTimeoutMs: f.failTimeoutMs, responseTimeoutMs: f.responseTimeoutMs,
    loadBalancingPolicy: f.loadBalancingPolicy, logInvalidAuthTokens: f.logInvalidAuthTokens, pathPrefix: o.pathPrefix, logger, now,
    responseWindowBytes: responseWindow(o.bufferBudgetBytes, f.maxConcurrentRequests),
  });
  const reloader = new ConfigReloader({
    read: () => readConfigText(f.authConfig),
    parse: { env: o.env ?? process.env, ipFiltersAllowed: o.ipFiltersAllowed },
    apply: (cfg) => proxy.setConfig(cfg),
    logger, location: f.authConfig, now,
  });
  await reloader.loadInitial();
  registerAuthProxyRoutes(o.server, {
    proxy,
    reload: () => void reloader.reload(),
    reloadAuthKey: () => f.reloadAuthKey,
  });
  reloader.startInterval(f.configCheckIntervalMs);
  return {
    name: 'authproxy',
    proxy,
    reloadConfig: () => reloader.reload(),
    reload: async () => void (await reloader.reload()),
    stop: async () => {
      reloader.stop();
      await proxy.stop();
    },
  };
}
