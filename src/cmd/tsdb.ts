// tsdb: the single-node time series database — ingestion, storage and query in one process.
import { exposeGc, insertOptionsFromFlags, receiverAddressesFromFlags, registerInsertRoutes, startReceivers, YoungGarbage } from '../app/insert/index.ts';
import { ConcurrencyLimiter, registerSelectRoutes, RollupResultCache, selectLimitsFromFlags } from '../app/select/index.ts';
import { registerStorageMetrics, registerStorageRoutes, storageAuthKeys, storageOptionsFromFlags } from '../app/storage/index.ts';
import { enableTCP6Flag } from '../lib/httpserver/index.ts';
import { gauge } from '../lib/metrics/index.ts';
import { serveUntilSignal, startRuntime } from '../lib/process/index.ts';
import { openStorage, type Storage } from '../lib/storage/index.ts';
import { DEFAULT_TENANT } from '../lib/storageapi/index.ts';

const rt = startRuntime({ binary: 'tsdb', metricsPrefix: 'tsdb', defaultListenAddr: ':8428' });
const log = rt.logger;

let storage: Storage;
try {
  storage = await openStorage(storageOptionsFromFlags(log.child({ component: 'storage' }), rt.memoryBudget));
} catch (err) {
  log.fatal({ err }, 'cannot open storage');
  process.exit(1);
}
registerStorageMetrics(() => storage.stats());

const limits = selectLimitsFromFlags();
const cache = new RollupResultCache(rt.memoryBudget.share('rollupResultCache', 0.1));
gauge('tsdb_rollup_result_cache_size_bytes', 'Bytes held by the rollup result cache of range queries', [], (g) => g.set(cache.bytes));
gauge('tsdb_rollup_result_cache_entries', 'Entries in the rollup result cache', [], (g) => g.set(cache.size));

const gc = exposeGc();
const youngGarbage = gc === undefined ? undefined : new YoungGarbage(gc);
const insertOptions = {
  ...insertOptionsFromFlags(storage, log.child({ component: 'insert' }), rt.memoryBudget.share('prometheusSeriesKeys', 0.05)),
  ...(youngGarbage === undefined ? {} : { onBodyRead: (bytes: number) => youngGarbage.note(bytes) }),

  onBackfill: () => cache.reset(),
  backfillBeforeMs: limits.cacheTimestampOffsetMs,
};
rt.server.register(async (app) => registerInsertRoutes(app, insertOptions, DEFAULT_TENANT));
rt.server.register(async (app) => registerSelectRoutes(app, {
  storage, tenant: DEFAULT_TENANT, limits, cache, now: Date.now,
  limiter: new ConcurrencyLimiter(limits.maxConcurrentRequests),
  logger: log.child({ component: 'select' }),
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
releaseStartupMemory();
const port = addr.split(':').at(-1);
log.info(`listening on http://${addr}`);
log.info(`send data: curl -d 'temperature{room="kitchen"} 21.5' http://localhost:${port}/api/v1/import/prometheus`);
log.info(`query it:  curl 'http://localhost:${port}/api/v1/query?query=temperature' (or point Grafana's Prometheus data source at http://localhost:${port})`);

await serveUntilSignal(rt, [
  { name: 'storage', stop: () => storage.close() },
  { name: 'network receivers', stop: () => receivers.close() },
  { name: 'parse workers', stop: () => insertOptions.parsePool?.close() },
]);

/**
 * releaseStartupMemory runs one last-resort garbage collection once the server is up. Loading and
 * type-stripping a few hundred modules leaves V8's young generation grown to its maximum (tens of
 * MiB that would stay resident, as the steady state allocates little); this collection shrinks
 * it back. It costs a few milliseconds, once, before the first request.
 */
function releaseStartupMemory(): void {
  if (gc === undefined) log.warn('cannot run garbage collections from the process; memory use stays higher');
  else gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}
