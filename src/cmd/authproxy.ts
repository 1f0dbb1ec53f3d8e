// authproxy: the credential-matching router and load balancer in front of Strata (SPEC B).

// A proxy allocates a socket read buffer for every chunk it relays but few JS objects, so with
// V8's default young generation (tens of MiB) those buffers outlive many requests and their
// external memory keeps triggering full mark-compact collections. A 2 MiB semi-space scavenges
// them within a few requests instead. GC helper threads only compete with the main thread when the
// proxy is pinned to one core, so collection runs on the main thread. Together this about halves
// the CPU per 1 MiB response. Each request's own objects still outlive the young generation under
// load, so the old generation also gets a floor (old-generation-floor.ts): with V8's limit of ~1.5×
// the live heap they started a full collection every few hundred ms. The process re-executes itself
// once with these flags (same PID, so signals and supervisors are unaffected) unless a semi-space
// size was given explicitly (docs/DECISIONS.md, "Auth proxy").
import { availableParallelism } from 'node:os';
import { oldGenerationFloorMiB } from '../app/authproxy/old-generation-floor.ts';
import { systemMemoryBytes } from '../lib/memory/budget.ts';
import { reexecTuned } from '../lib/process/reexec.ts';

// Per thread, with the default -threads (one per CPU): an explicit -threads is not parsed yet.
const oldFloor = oldGenerationFloorMiB(systemMemoryBytes(), availableParallelism());
reexecTuned({
  keyFlag: '--max-semi-space-size',
  nodeFlags: ['--max-semi-space-size=2', '--single-threaded-gc', ...(oldFloor === undefined ? [] : [`--initial-old-space-size=${oldFloor}`])],
  optOutVar: 'STRATA_AUTHPROXY_NO_REEXEC',
});

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
