import { flushCompileCache } from 'node:module';
import { setTimeout as delay } from 'node:timers/promises';
import { shutdownDelayMs } from '../httpserver/index.ts';
import { startProcessCollectors } from '../metrics/index.ts';
import type { Runtime } from './runtime.ts';
import { timerMs } from '../timer/index.ts';

/** Component is one started part of a binary, stopped in reverse order of start. */
export interface Component {
  readonly name: string;
  stop(): Promise<void> | void;
  /** reload is called on SIGHUP (config re-read); components without config leave it out. */
  reload?(): Promise<void> | void;
  /** beginShutdownDelay: servers the component runs itself answer 503 on /health from now on. */
  beginShutdownDelay?(): void;
  /**
   * closeServers stops servers the component runs itself (further threads of the binary's server)
   * like the binary's own: no new connections, in-flight requests finish. Runs with its close.
   */
  closeServers?(): Promise<void>;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(3)}s`;

/**
 * DEFERRED_START_MS: how long after a binary starts serving it starts what its first answers do
 * not need (prom-client's process collectors, whose first scrape starts them earlier), so that
 * work is not on the start path of the first requests (issue 18 item 4).
 */
const DEFERRED_START_MS = 1000;

/**
 * serveUntilSignal routes SIGHUP to the components' reload and, on SIGTERM or SIGINT: answers 503 on
 * /health for -http.shutdownDelay, stops accepting connections, lets in-flight requests finish
 * within -http.maxGracefulShutdownDuration, stops components in reverse order (logging how long
 * each step took) and exits 0. A second signal during shutdown exits 1 at once.
 * The modules of the start path are loaded by now: their compiled code goes to Node's compile
 * cache (when a binary enabled it, see reexec.ts) at once, so a next start finds it even if this
 * process is killed rather than stopped; so does that of the deferred start, DEFERRED_START_MS later.
 */
export function serveUntilSignal(rt: Runtime, components: readonly Component[]): Promise<never> {
  const log = rt.logger;
  flushCompileCache();
  setTimeout(() => {
    startProcessCollectors();
    flushCompileCache();
  }, DEFERRED_START_MS).unref();
  rt.onReload(() => {
    log.info('received SIGHUP; reloading configuration');
    for (const c of components) {
      if (c.reload === undefined) continue;
      Promise.resolve().then(() => c.reload?.()).catch((err: unknown) => log.error({ err }, `cannot reload ${c.name}`));
    }
  });
  return new Promise<never>(() => {
    let shuttingDown = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (shuttingDown) {
        log.warn(`received ${signal} again during shutdown; exiting at once`);
        process.exit(1);
      }
      shuttingDown = true;
      void shutdown(rt, components, signal).then(() => process.exit(0), (err: unknown) => {
        log.error({ err }, 'cannot shut down cleanly');
        process.exit(1);
      });
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}

async function shutdown(rt: Runtime, components: readonly Component[], signal: string): Promise<void> {
  const log = rt.logger;
  log.info(`received ${signal}; shutting down`);
  const wait = shutdownDelayMs();
  if (wait > 0) {
    rt.server.beginShutdownDelay();
    for (const c of components) c.beginShutdownDelay?.();
    log.info(`/health answers 503 for -http.shutdownDelay=${seconds(wait)} before the server stops`);
    await delay(timerMs(wait));
  }
  let t = performance.now();
  await Promise.all([rt.server.close(), ...components.map((c) => c.closeServers?.())]);
  log.info(`stopped the http server in ${seconds(performance.now() - t)}`);
  for (const c of [...components].reverse()) {
    t = performance.now();
    await c.stop();
    log.info(`stopped ${c.name} in ${seconds(performance.now() - t)}`);
  }
  rt.stopPushMetrics();
  log.info(`${rt.binary} stopped`);
}
