// gateway: the JWT gateway with rate limiting in front of the TSDB (SPEC A). An enterprise
// component: it refuses to start without -eula (status 2, one line).

// Memory: the gateway relays small answers, so what it holds is its own code and V8's spaces, not
// data (its live heap is ~21 MiB, loaded modules). With Node's defaults the young generation grew
// to 32 MiB at startup and stayed there, TypeScript stripping (a WASM module, ~20 MiB) was loaded
// on every start, glibc's per-thread arenas kept freed memory, and under load V8 pretenured the
// request objects (many are still in flight at a scavenge, so their allocation sites look
// long-lived): they were allocated straight into the old generation, which then grew to ~4× the
// live heap before a full collection. ~130 MiB idle, 255 MiB peak against vmauth's 19 MiB. The
// process re-executes itself once (same PID, so signals and supervisors are unaffected) with a
// 4 MiB semi-space (2 MiB promoted 128 connections' requests in flight), no allocation-site
// pretenuring (the old generation stays ~25 MiB instead of 56–93 MiB after 40k requests),
// collection on the main thread (helper threads only compete with a proxy pinned to one core), the
// malloc settings of the tsdb binary and Node's compile cache (reexecTuned), unless
// STRATA_GATEWAY_NO_REEXEC=1 or a semi-space size was given (docs/DECISIONS.md, "Gateway").
import { resolveSourcesDirectly } from '../lib/process/fast-resolve.ts';
import { reexecTuned } from '../lib/process/reexec.ts';

reexecTuned({
  keyFlag: '--max-semi-space-size',
  nodeFlags: ['--max-semi-space-size=4', '--no-allocation-site-pretenuring', '--single-threaded-gc'],
  env: { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '65536', MALLOC_TRIM_THRESHOLD_: '131072' },
  optOutVar: 'STRATA_GATEWAY_NO_REEXEC',
});
resolveSourcesDirectly();

const { gatewayFlagsFromFlags, initGateway } = await import('../app/gateway/index.ts');
const { defaultFlagSet } = await import('../lib/flags/index.ts');
const { serveUntilSignal, startRuntime } = await import('../lib/process/index.ts');

const rt = startRuntime({ binary: 'gateway', metricsPrefix: 'gateway', defaultListenAddr: ':8431', allowProxyProtocol: true, requireEula: true });
let flags;
try {
  flags = gatewayFlagsFromFlags();
} catch (err) {
  process.stderr.write(`gateway: ${(err as Error).message}\n`);
  process.exit(2);
}
let component;
try {
  component = await initGateway({ flags, server: rt.server, logger: rt.logger, pathPrefix: String(defaultFlagSet.lookup('http.pathPrefix')?.value ?? '') });
} catch (err) {
  rt.logger.fatal({ err }, 'cannot start the gateway');
  process.exit(1);
}
const addr = await rt.server.listen();
const target = (t: { url: string } | undefined) => (t === undefined ? 'not set' : t.url);
rt.logger.info(`gateway listening on ${rt.server.app.initialConfig.https === undefined ? 'http' : 'https'}://${addr}; reads to ${target(flags.read)}, writes to ${target(flags.write)}${flags.clusterMode ? ' (cluster mode)' : ''}`);
await serveUntilSignal(rt, [component]);
