// tsdb: the single-node time series database — ingestion, storage and query in one process.
// Memory: V8's default young generation (up to 32 MiB per semi-space) and glibc's per-thread
// malloc arenas with a sliding mmap threshold keep tens of MiB of freed request buffers and typed
// arrays resident. The process re-executes itself once (same PID, so signals and supervisors are
// unaffected) with a 4 MiB semi-space and two malloc arenas that hand blocks of 64 KiB and more
// back to the kernel when freed, unless STRATA_TSDB_NO_REEXEC=1 or it was started that way
// (docs/DECISIONS.md, "Memory of the tsdb process"). The rest of the code is imported after that,
// with the project's own imports resolved directly (fast-resolve.ts).
import { resolveSourcesDirectly } from '../lib/process/fast-resolve.ts';
import { reexecTuned } from '../lib/process/reexec.ts';
import { TSDB_TUNING } from '../lib/process/tuning.ts';

reexecTuned(TSDB_TUNING);
resolveSourcesDirectly();

const { exposeGc, insertOptionsFromFlags, receiverAddressesFromFlags, registerInsertRoutes, startReceivers, YoungGarbage } = await import('../app/insert/index.ts');
const { ConcurrencyLimiter, queryStatsFromFlags, registerSelectRoutes, RollupResultCache, selectLimitsFromFlags, vmalertProxyFromFlags } = await import('../app/select/index.ts');
const { metadataStoreBytesFromFlags, registerStorageMetrics, registerStorageRoutes, storageAuthKeys, storageOptionsFromFlags } = await import('../app/storage/index.ts');
const { enableTCP6Flag } = await import('../lib/httpserver/index.ts');
const { loadMetadata, METADATA_FILE, MetadataSaver, MetadataStore } = await import('../lib/metadata/index.ts');
const { counterFunc, gauge } = await import('../lib/metrics/index.ts');
const { join } = await import('node:path');
const { serveUntilSignal, startRuntime } = await import('../lib/process/index.ts');
const { openStorage } = await import('../lib/storage/index.ts');
const { queryOffloadFromFlags } = await import('../lib/querypool/flags.ts');
const { DEFAULT_TENANT } = await import('../lib/storageapi/index.ts');
type Storage = import('../lib/storage/index.ts').Storage;
type VmalertProxy = import('../app/select/index.ts').VmalertProxy;

const rt = startRuntime({ binary: 'tsdb', metricsPrefix: 'tsdb', defaultListenAddr: ':8428' });
const log = rt.logger;

const storageOptions = storageOptionsFromFlags(log.child({ component: 'storage' }), rt.memoryBudget);
let storage: Storage;
try {
  storage = await openStorage(storageOptions);
} catch (err) {
  log.fatal({ err }, 'cannot open storage');
  process.exit(1);
}
registerStorageMetrics(() => storage.stats());

const limits = selectLimitsFromFlags();
const rollupOffload = await queryOffloadFromFlags(rt.memoryBudget);
const cache = new RollupResultCache(rt.memoryBudget.heapShare('rollupResultCache', 0.1));
gauge('tsdb_rollup_result_cache_size_bytes', 'Bytes held by the rollup result cache of range queries', [], (g) => g.set(cache.bytes));
gauge('tsdb_rollup_result_cache_entries', 'Entries in the rollup result cache', [], (g) => g.set(cache.size));

// Metric metadata for /api/v1/metadata (docs/DECISIONS.md "Metric metadata"): kept from ingestion
// unless -enableMetadata=false, saved beside the data and loaded back here.
const metadata = new MetadataStore(metadataStoreBytesFromFlags(rt.memoryBudget));
gauge('tsdb_metadata_entries', 'Metric families with metadata (HELP, TYPE, UNIT) kept for /api/v1/metadata', [], (g) => g.set(metadata.size));
gauge('tsdb_metadata_size_bytes', 'Estimated memory held by the metric metadata', [], (g) => g.set(metadata.bytes));
counterFunc('tsdb_metadata_dropped_total', 'Metric metadata entries dropped because of -storage.maxMetadataStorageSize', [], (set) => set({}, metadata.dropped));

const gc = exposeGc();
const STARTUP_MEMORY_DELAY_MS = 2000;
const youngGarbage = gc === undefined ? undefined : new YoungGarbage(gc);
let ingested = false;
const insertOptions = {
  ...insertOptionsFromFlags(storage, log.child({ component: 'insert' }), rt.memoryBudget.heapShare('prometheusSeriesKeys', 0.25), (t, u) => metadata.add(t, u)),
  onBodyRead: (bytes: number) => {
    ingested = true;
    youngGarbage?.note(bytes);
  },

  onBackfill: () => cache.reset(),
  backfillBeforeMs: limits.cacheTimestampOffsetMs,
};
const metadataSaver = insertOptions.metadata === undefined ? undefined : await startMetadataPersistence();
let vmalert: VmalertProxy | undefined;
try {
  vmalert = vmalertProxyFromFlags(limits.maxQueryDurationMs);
} catch (err) {
  log.fatal({ err }, 'cannot start');
  await storage.close();
  process.exit(2);
}
rt.server.register(async (app) => registerInsertRoutes(app, insertOptions, DEFAULT_TENANT));
rt.server.register(async (app) => registerSelectRoutes(app, {
  storage, tenant: DEFAULT_TENANT, limits, cache, now: Date.now,
  limiter: new ConcurrencyLimiter(limits.maxConcurrentRequests),
  logger: log.child({ component: 'select' }),
  queryStats: queryStatsFromFlags(), metadata, ...(vmalert === undefined ? {} : { vmalert }),
  ...(rollupOffload === undefined ? {} : { rollupOffload }),
}));
rt.server.register(async (app) => registerStorageRoutes(app, storage, storageAuthKeys));

let receivers;
try {
  receivers = await startReceivers(receiverAddressesFromFlags(), insertOptions, DEFAULT_TENANT, enableTCP6Flag());
  for (const [name, addr] of Object.entries(receivers.addresses)) log.info(`${name} receiver listening on ${addr}`);
} catch (err) {
  log.fatal({ err }, 'cannot start the network receivers');
  await storage.close();
  process.exit(1);
}

const addr = await rt.server.listen().catch(async (err: unknown) => {
  log.fatal({ err }, 'cannot start the http server');
  await storage.close();
  process.exit(1);
});
setTimeout(releaseStartupMemory, STARTUP_MEMORY_DELAY_MS).unref();
const port = addr.split(':').at(-1);
log.info(`listening on http://${addr}`);
log.info(`send data: curl -d 'temperature{room="kitchen"} 21.5' http://localhost:${port}/api/v1/import/prometheus`);
log.info(`query it:  curl 'http://localhost:${port}/api/v1/query?query=temperature' (or point Grafana's Prometheus data source at http://localhost:${port})`);

await serveUntilSignal(rt, [
  // Stopped in reverse order: the metadata is saved last, once nothing ingests any more.
  { name: 'metric metadata', stop: async () => metadataSaver?.stop() },
  { name: 'vmalert proxy', stop: async () => vmalert?.close() },
  { name: 'storage', stop: () => storage.close() },
  { name: 'network receivers', stop: () => receivers.close() },
  { name: 'parse workers', stop: () => insertOptions.parsePool?.close() },
]);

/** startMetadataPersistence loads the saved metric metadata and saves it every minute it changed. */
async function startMetadataPersistence() {
  const path = join(storageOptions.dataPath, METADATA_FILE);
  await loadMetadata(metadata, path, log.child({ component: 'metadata' }));
  return new MetadataSaver(metadata, path, 60_000, log.child({ component: 'metadata' }));
}

/**
 * releaseStartupMemory runs one last-resort garbage collection STARTUP_MEMORY_DELAY_MS after the
 * server is up, unless it ingested meanwhile. Loading a few hundred modules leaves V8's young
 * generation grown to its maximum and garbage in the old one, which would stay resident in a
 * server that then idles: ~9 MiB of RSS (98 against 89 MiB). It cost ~0.1 CPU-seconds, ~8% of a
 * start, so it runs after the first answers rather than before; a server that ingests grows its
 * young generation again at once, and the ingestion path collects it (YoungGarbage).
 */
function releaseStartupMemory(): void {
  if (ingested) return;
  if (gc === undefined) log.warn('cannot run garbage collections from the process; memory use stays higher');
  else gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}
