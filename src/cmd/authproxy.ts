// authproxy: the credential-matching router and load balancer in front of Strata (SPEC B).

// Memory and GC: relayed bodies are socket read buffers, freed as soon as the client socket took
// them (src/lib/httpproxy/read-buffers.ts), so what is left for V8 is each request's own objects,
// which under load live as long as their response. A 4 MiB semi-space lets most of them die young
// (2 MiB promoted the requests in flight at each scavenge), no allocation-site pretenuring keeps V8
// from allocating them straight into the old generation once many survive (the old generation then
// grew to several times the live heap before a full collection). Marking runs concurrently on V8's
// helper threads: on the main thread alone (--single-threaded-gc, until issue 18's fourth session)
// an incremental marking under load took seconds, and everything allocated meanwhile survived it,
// so each full collection left a bloated heap and set the next limit from it (100 B / 128 clients,
// one thread: 54.6 -> 37.8 MB against 19.6 MB live after the load). There is no
// old-generation floor any more: it saved full collections that the read buffers' external memory
// no longer causes, at up to 128 MiB of garbage per thread. The process re-executes itself once with
// these flags (same PID, so signals and supervisors are unaffected) unless a semi-space size was
// given explicitly (docs/DECISIONS.md, "Auth proxy": "V8 garbage collection"), with two malloc
// arenas and fixed malloc thresholds (AUTHPROXY_TUNING, "Auth proxy memory").
import { resolveSourcesDirectly } from '../lib/process/fast-resolve.ts';
import { reexecTuned } from '../lib/process/reexec.ts';
import { AUTHPROXY_TUNING } from '../lib/process/tuning.ts';

reexecTuned(AUTHPROXY_TUNING);
resolveSourcesDirectly();

const { authProxyFlagsFromFlags, initAuthProxy, ProxyThreads, threadCount } = await import('../app/authproxy/index.ts');
const { defaultFlagSet } = await import('../lib/flags/index.ts');
const { eulaAccepted, serveUntilSignal, startRuntime } = await import('../lib/process/index.ts');

const rt = startRuntime({ binary: 'authproxy', metricsPrefix: 'authproxy', defaultListenAddr: ':8427', allowProxyProtocol: true });
let flags;
try {
  flags = authProxyFlagsFromFlags();
} catch (err) {
  process.stderr.write(`authproxy: ${(err as Error).message}\n`);
  process.exit(2);
}
const threads = threadCount(flags.threads);
// Response buffers for slow clients are the proxy's only sizeable memory: give them a share, split
// between the threads.
const bufferBudgetBytes = rt.memoryBudget.share('authproxy response buffers', 0.5) / threads;
let component;
try {
  component = await initAuthProxy({
    flags, server: rt.server, logger: rt.logger, ipFiltersAllowed: eulaAccepted(),
    pathPrefix: String(defaultFlagSet.lookup('http.pathPrefix')?.value ?? ''),
    bufferBudgetBytes,
  });
} catch (err) {
  rt.logger.fatal({ err }, `cannot start authproxy with -auth.config="${flags.authConfig}"`);
  process.exit(1);
}
const addr = await rt.server.listen();
const components = [];
if (threads > 1) {
  try {
    components.push(await ProxyThreads.start({
      count: threads - 1, first: component, port: rt.server.port, argv: process.argv.slice(2), bufferBudgetBytes, logger: rt.logger,
    }));
  } catch (err) {
    rt.logger.fatal({ err }, `cannot start ${threads - 1} more authproxy threads (-threads=${flags.threads})`);
    process.exit(1);
  }
}
rt.logger.info(`authproxy listening on ${rt.server.app.initialConfig.https === undefined ? 'http' : 'https'}://${addr} with ${threads} thread${threads === 1 ? '' : 's'}`);
await serveUntilSignal(rt, [component, ...components]);
