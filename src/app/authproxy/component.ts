// The auth proxy as a running component: one AuthProxy, -auth.config loaded and reloaded, its
// routes registered; in a further thread, the config the first thread serves.

import { ConfigReloader, readConfigText, type ReloadOutcome } from '../../lib/config/index.ts';
import type { HttpServer } from '../../lib/httpserver/index.ts';
import type { Logger } from '../../lib/logger/index.ts';
import type { Component } from '../../lib/process/index.ts';
import { ConfigError } from './config-error.ts';
import { parseAuthConfig } from './config-parse.ts';
import type { AuthConfig } from './config-types.ts';
import type { AuthProxyFlags } from './flags.ts';
import { AuthProxy } from './proxy.ts';
import * as m from './metrics.ts';
import { responseWindow } from './response-window.ts';
import { registerAuthProxyRoutes } from './routes.ts';
import type { SharedBuffers } from './state.ts';

/** ThreadConfig is a config as the first thread serves it: its text and its shared counting cells. */
export interface ThreadConfig {
  readonly text: string;
  readonly shared: SharedBuffers;
}

/** ThreadInit makes a proxy serve from a further thread: config and reloads come from the first thread. */
export interface ThreadInit {
  /** globalLimiter is the first thread's -maxConcurrentRequests semaphore buffer. */
  readonly globalLimiter: SharedArrayBuffer;
  readonly config: ThreadConfig;
  /** requestReload asks the first thread to reload (/-/reload served by this thread) and resolves with the outcome. */
  readonly requestReload: () => Promise<ReloadOutcome>;
}

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
  /** thread: this proxy serves from a further thread (see ThreadInit); it then reads no config itself. */
  readonly thread?: ThreadInit;
}

/** AuthProxyComponent is the running auth proxy: reload on SIGHUP, stop at shutdown. */
export interface AuthProxyComponent extends Component {
  readonly proxy: AuthProxy;
  /** reloadConfig re-reads -auth.config; resolves with why the new config was rejected, if it was. */
  reloadConfig(): Promise<ReloadOutcome>;
  reload(): Promise<void>;
  /** config is the config in use, for further threads (undefined in a further thread). */
  config(): ThreadConfig | undefined;
  /**
   * onConfig registers a listener told every config the proxy starts serving after this call; a
   * reload is done (and logged) when the listeners' promises settle.
   */
  onConfig(listener: (c: ThreadConfig) => Promise<void>): void;
  /** applyThreadConfig starts serving a config the first thread serves (in a further thread). */
  applyThreadConfig(c: ThreadConfig): void;
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
    ...(o.thread === undefined ? {} : { globalLimiter: o.thread.globalLimiter }),
  });
  const parse = { env: o.env ?? process.env, ipFiltersAllowed: o.ipFiltersAllowed };
  let current: ThreadConfig | undefined;
  const listeners: Array<(c: ThreadConfig) => Promise<void>> = [];
  const reloader = new ConfigReloader<AuthConfig>({
    read: () => readConfigText(f.authConfig, 'auth config'),
    parse: (text) => parseAuthConfig(text, parse),
    isInvalid: (err) => err instanceof ConfigError,
    metrics: { successful: m.reloadSuccessful, errors: m.reloadErrors, successTimestamp: m.reloadSuccessTimestamp },
    what: 'auth config',
    apply: async (cfg, text) => {
      proxy.setConfig(cfg);
      const c: ThreadConfig = { text, shared: proxy.sharedBuffers() };
      current = c;
      await Promise.all(listeners.map((l) => l(c)));
    },
    logger, location: f.authConfig, now,
  });
  // A further thread parses the text the first thread parsed (so both serve the same config) and
  // counts in the first thread's cells.
  const applyThreadConfig = (c: ThreadConfig) => proxy.setConfig(parseAuthConfig(c.text, parse), c.shared);
  if (o.thread === undefined) await reloader.loadInitial();
  else applyThreadConfig(o.thread.config);
  const requestReload = o.thread?.requestReload;
  registerAuthProxyRoutes(o.server, {
    proxy,
    reload: requestReload ?? (() => reloader.reload()),
    reloadAuthKey: () => f.reloadAuthKey,
  });
  if (o.thread === undefined) reloader.startInterval(f.configCheckIntervalMs);
  return {
    name: 'authproxy',
    proxy,
    reloadConfig: () => reloader.reload(),
    reload: async () => void (await reloader.reload()),
    config: () => current,
    onConfig: (l) => void listeners.push(l),
    applyThreadConfig,
    stop: async () => {
      reloader.stop();
      await proxy.stop();
    },
  };
}
