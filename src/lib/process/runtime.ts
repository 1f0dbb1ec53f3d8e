import { readBuildInfo, versionLine } from '../buildinfo/index.ts';
import { defaultFlagSet, FlagError, mustParseProcessFlags, parseProcessFlags } from '../flags/index.ts';
import { HttpServer, httpServerOptionsFromFlags, setDefaultListenAddr, useProxyProtocolFlag } from '../httpserver/index.ts';
import { processInterner } from '../intern/index.ts';
import { initLogger, type Logger } from '../logger/index.ts';
import { type MemoryBudget, processMemoryBudget } from '../memory/index.ts';
import { registerProcessMetrics, startPushMetricsFromFlags } from '../metrics/index.ts';
import { eulaAccepted, eulaRequiredMessage } from './common-flags.ts';

/** RuntimeOptions describe the binary being started. */
export interface RuntimeOptions {
  /** binary is the name printed by -version and -help ("tsdb"). */
  readonly binary: string;
  /** metricsPrefix prefixes this binary's own metrics ("tsdb", "authproxy"). */
  readonly metricsPrefix: string;
  readonly defaultListenAddr: string;
  /** allowProxyProtocol: only the gateway and the auth proxy accept -httpListenAddr.useProxyProtocol (SPEC common flags). */
  readonly allowProxyProtocol?: boolean;
  /** requireEula: the binary refuses to start without -eula. */
  readonly requireEula?: boolean;
}

/** Runtime is what every binary gets after startup: parsed flags, logger, memory budget and an HTTP server not yet listening. */
export interface Runtime {
  readonly binary: string;
  readonly logger: Logger;
  readonly positionals: readonly string[];
  readonly server: HttpServer;
  readonly memoryBudget: MemoryBudget;
  readonly stopPushMetrics: () => void;
  /** onReload registers a SIGHUP handler; SIGHUP is caught from startup on, so an early one never kills the process. */
  onReload(handler: () => void): void;
}

/**
 * FLAGS_CHECK_VAR set to "1" makes startRuntime stop once the command line is accepted: it prints
 * {"binary", "flags" (those given, secrets masked), "positionals"} as one JSON line and exits 0,
 * before logging, metrics or servers start. A rejected command line exits 2 as usual. Every app
 * module of a binary registers its flags on import, before startRuntime, so this checks a command
 * line against the binary's whole flag set (test/images/flags.test.ts does so for every container
 * the operator renders).
 */
export const FLAGS_CHECK_VAR = 'STRATA_FLAGS_CHECK';

/**
 * startRuntime parses flags (exiting 2 on bad ones), sets up logging, process metrics, metrics push,
 * the memory budget and the HTTP server. Startup problems are logged and exit the process.
 */
export function startRuntime(o: RuntimeOptions): Runtime {
  setDefaultListenAddr(o.defaultListenAddr);
  const positionals = mustParseProcessFlags(o.binary);
  // Command-line problems end the process with one plain line and status 2, like a bad flag.
  const usage = (message: string): never => {
    process.stderr.write(`${o.binary}: ${message}\n`);
    process.exit(2);
  };
  if (o.requireEula === true && !eulaAccepted()) usage(eulaRequiredMessage(o.binary));
  if (o.allowProxyProtocol !== true && useProxyProtocolFlag()) {
    usage(`-httpListenAddr.useProxyProtocol is supported only by the gateway and the auth proxy, not by ${o.binary}`);
  }
  const logger = initLogger();
  const reloaders: Array<() => void> = [];
  process.on('SIGHUP', () => {
    if (reloaders.length === 0) logger.info('received SIGHUP; nothing to reload yet');
    for (const r of reloaders) r();
  });
  let serverOptions;
  try {
    serverOptions = httpServerOptionsFromFlags(logger, o.metricsPrefix);
  } catch (err) {
    return usage((err as Error).message);
  }
  if (process.env[FLAGS_CHECK_VAR] === '1') {
    process.stdout.write(`${JSON.stringify({ binary: o.binary, flags: defaultFlagSet.setFlags(), positionals })}\n`);
    process.exit(0);
  }
  const info = readBuildInfo();
  logger.info(`starting ${versionLine(o.binary, info)}`);
  const set = defaultFlagSet.setFlags();
  if (Object.keys(set).length > 0) logger.info(`flags given: ${Object.entries(set).map(([k, v]) => `-${k}=${JSON.stringify(v)}`).join(' ')}`);
  try {
    registerProcessMetrics(o.metricsPrefix, info);
    const memoryBudget = processMemoryBudget();
    processInterner();
    const server = new HttpServer(serverOptions);
    const stopPushMetrics = startPushMetricsFromFlags(logger);
    return { binary: o.binary, logger, positionals, server, memoryBudget, stopPushMetrics, onReload: (h) => void reloaders.push(h) };
  } catch (err) {
    if (err instanceof FlagError) return usage(err.message);
    logger.fatal({ err }, `cannot start ${o.binary}`);
    process.exit(1);
  }
}

/** ThreadRuntime is what a further thread of a binary gets: its logger and its own HTTP server. */
export interface ThreadRuntime {
  readonly logger: Logger;
  readonly server: HttpServer;
}

/**
 * startThreadRuntime sets up a further thread of a binary whose first thread ran startRuntime with
 * the same options and command line (passed as the worker's argv): flags, logging and an HTTP
 * server not yet listening (HttpServer.listen(joinPort) joins the first thread's port). Process-wide
 * parts stay with the first thread: signals, process metrics, metrics push, the memory budget.
 * Throws when the flags do not parse (the first thread accepted them, so that is a bug).
 */
export function startThreadRuntime(o: RuntimeOptions): ThreadRuntime {
  setDefaultListenAddr(o.defaultListenAddr);
  const outcome = parseProcessFlags(o.binary, process.argv.slice(2), process.env);
  if (outcome.kind !== 'run') throw new Error(`cannot start a thread of ${o.binary}: its flags do not parse: ${outcome.stderr.trim()}`);
  const logger = initLogger();
  return { logger, server: new HttpServer(httpServerOptionsFromFlags(logger, o.metricsPrefix)) };
}
