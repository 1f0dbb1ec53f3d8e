import { readFile } from 'node:fs/promises';
import { ConfigReloader, readConfigText } from '../../lib/config/index.ts';
import type { HttpServer } from '../../lib/httpserver/index.ts';
import type { Logger } from '../../lib/logger/index.ts';
import type { Component } from '../../lib/process/index.ts';
import { Datasource } from './datasource.ts';
import type { GatewayFlags, RateLimitFlags } from './flags.ts';
import { KeyStore } from './key-store.ts';
import { KeyError, parsePublicKeyPem, type VerificationKey } from './keys.ts';
import { RateLimiter } from './limiter.ts';
import * as m from './metrics.ts';
import { GatewayProxy } from './proxy.ts';
import { parseRateLimitConfig, type RateLimitConfig, RateLimitConfigError } from './ratelimit-config.ts';
import { type FetchJson, fetchJson, RemoteKeySet } from './remote-keys.ts';
import { registerGatewayRoutes } from './routes.ts';
import { TokenCache } from './token-cache.ts';
import { TokenVerifier } from './token-verifier.ts';
import { UsagePoller } from './usage-poller.ts';
import { usageQueries, type UsageQuery } from './usage-queries.ts';

export { type Claims, ClaimsError, parseClaims } from './claims.ts';
export { gatewayFlagsFromFlags, type GatewayFlags } from './flags.ts';
export { parseRateLimitConfig, type RateLimitConfig, RateLimitConfigError } from './ratelimit-config.ts';

/** TOKEN_CACHE_ENTRIES and TOKEN_CACHE_BYTES bound the verified-token cache (token-cache.ts). */
const TOKEN_CACHE_ENTRIES = 10_000;
const TOKEN_CACHE_BYTES = 8 << 20;

/** InitOptions wire the gateway into a binary (or a test). */
export interface InitOptions {
  readonly flags: GatewayFlags;
  readonly server: HttpServer;
  readonly logger: Logger;
  /** pathPrefix is -http.pathPrefix (stripped from forwarded paths). */
  readonly pathPrefix: string;
  /** now returns ms since the epoch. */
  readonly now?: () => number;
  /** fetchJson fetches key-set documents (tests inject one). */
  readonly fetchJson?: FetchJson;
}

/**
 * initGateway loads the keys and the rate limit config (throwing, with the flag and file named,
 * when one cannot be used), registers the proxy on server (before it listens) and starts the key
 * refreshes, the config re-reads and the usage poller.
 */
export async function initGateway(o: InitOptions): Promise<Component> {
  const f = o.flags;
  const now = o.now ?? Date.now;
  const logger = o.logger.child({ component: 'gateway' });
  const cache = new TokenCache(TOKEN_CACHE_ENTRIES, TOKEN_CACHE_BYTES);
  const keys = await keyStore(f, logger, now, o.fetchJson ?? ((u) => fetchJson(u)), () => cache.clear());
  if (f.enableAuth && !keys.configured) {
    logger.warn('-enable.auth is set without -auth.publicKeyFiles, -auth.publicKeys, -auth.jwksEndpoints or -auth.oidcDiscoveryEndpoints: token signatures are NOT checked, only their structure, algorithm, exp and claims');
  }
  if (!f.enableAuth && keys.configured) logger.warn('verification keys are given but -enable.auth is not set: tokens are not checked at all');
  if (!f.enableAuth) logger.warn('-enable.auth is not set: every request is forwarded as tenant 0:0 with full access');
  const stops: Array<() => void | Promise<void>> = [];
  let limiter: RateLimiter | undefined;
  let reload: (() => Promise<void>) | undefined;
  if (f.rateLimit !== undefined) {
    const rl = await startRateLimiter(f.rateLimit, logger, now);
    limiter = rl.limiter;
    reload = rl.reload;
    stops.push(rl.stop);
  }
  const proxy = new GatewayProxy({
    auth: f.enableAuth ? { verifier: new TokenVerifier({ keys, cache, now }), header: f.authHeader } : undefined,
    clusterMode: f.clusterMode, read: f.read, write: f.write, limiter, pathPrefix: o.pathPrefix,
    responseTimeoutMs: f.responseTimeoutMs, logInvalidAuthTokens: f.logInvalidAuthTokens, logger,
  });
  registerGatewayRoutes(o.server, proxy);
  if (f.enableAuth) await keys.start();
  return {
    name: 'gateway',
    ...(reload === undefined ? {} : { reload }),
    stop: async () => {
      keys.stop();
      for (const s of stops) await s();
      await proxy.stop();
    },
  };
}

async function keyStore(f: GatewayFlags, logger: Logger, now: () => number, fetch: FetchJson, onChange: () => void): Promise<KeyStore> {
  const fixed: VerificationKey[] = [];
  for (const path of f.publicKeyFiles) {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      throw new KeyError(`cannot read -auth.publicKeyFiles file "${path}": ${(err as Error).message}`, { cause: err });
    }
    fixed.push(parsePublicKeyPem(text, `-auth.publicKeyFiles file "${path}"`));
  }
  f.publicKeys.forEach((text, i) => fixed.push(parsePublicKeyPem(text, `-auth.publicKeys[${i}]`)));
  if (fixed.length > 0) {
    m.keysLoaded.set({ source: 'flags' }, fixed.length);
    logger.info(`loaded ${fixed.length} public key${fixed.length === 1 ? '' : 's'} (${f.publicKeyFiles.length} from -auth.publicKeyFiles, ${f.publicKeys.length} from -auth.publicKeys)`);
  }
  const remote = (url: string, discovery: boolean) => new RemoteKeySet({
    url, discovery, fetchJson: fetch, now, refreshIntervalMs: f.jwksRefreshIntervalMs, minRefreshIntervalMs: f.jwksMinRefreshIntervalMs, logger, onChange,
  });
  return new KeyStore(fixed, [...f.jwksEndpoints.map((u) => remote(u, false)), ...f.oidcDiscoveryEndpoints.map((u) => remote(u, true))]);
}

async function readIfSet(path: string, flag: string): Promise<Buffer | undefined> {
  if (path === '') return undefined;
  try {
    return await readFile(path);
  } catch (err) {
    throw new Error(`cannot read -${flag} "${path}": ${(err as Error).message}`, { cause: err });
  }
}

async function startRateLimiter(f: RateLimitFlags, logger: Logger, now: () => number) {
  const tls = f.datasource.tls;
  const datasource = new Datasource({ ...f.datasource, now }, {
    ca: await readIfSet(tls.caFile, 'datasource.tlsCAFile'),
    cert: await readIfSet(tls.certFile, 'datasource.tlsCertFile'),
    key: await readIfSet(tls.keyFile, 'datasource.tlsKeyFile'),
  });
  const limiter = new RateLimiter();
  let queries: readonly UsageQuery[] = [];
  const poller = new UsagePoller({
    query: (expr) => datasource.query(expr), queries: () => queries, onUsage: (u) => limiter.setUsage(u), intervalMs: f.refreshIntervalMs, logger, now,
  });
  const reloader = new ConfigReloader<RateLimitConfig>({
    read: () => readConfigText(f.configLocation, 'rate limit config'),
    parse: parseRateLimitConfig,
    isInvalid: (err) => err instanceof RateLimitConfigError,
    metrics: { successful: m.reloadSuccessful, errors: m.reloadErrors, successTimestamp: m.reloadSuccessTimestamp },
    what: 'rate limit config', location: f.configLocation, logger, now,
    apply: (cfg) => {
      limiter.setConfig(cfg);
      queries = usageQueries(cfg, f.extraLabels);
      publishLimits(cfg);
      logger.info(`rate limiting with ${cfg.limits.length} limit${cfg.limits.length === 1 ? '' : 's'}, usage from ${datasource.name} every ${f.refreshIntervalMs / 1000}s`);
      void poller.refresh();
    },
  });
  await reloader.loadInitial();
  reloader.startInterval(f.configCheckIntervalMs);
  poller.start();
  return {
    limiter,
    reload: async () => void (await reloader.reload()),
    stop: async () => {
      reloader.stop();
      poller.stop();
      await datasource.close();
    },
  };
}

function publishLimits(cfg: RateLimitConfig): void {
  m.limits.reset();
  for (const l of cfg.limits) {
    m.limits.set({
      accountID: l.tenant === undefined ? '' : String(l.tenant.accountID), projectID: l.tenant === undefined ? '' : String(l.tenant.projectID),
      type: l.type, resolution: l.resolution,
    }, l.value);
  }
}
