// tsdb-storage: the cluster storage node — the storage engine of the single-node tsdb as a
// network service. tsdb-insert writes through -insertAddr, tsdb-select reads through -selectAddr
// (protocol: src/lib/storage/FORMAT.md, "Storage node RPC"); the HTTP port serves the operational
// endpoints, /metrics (with per-tenant statistics), the snapshot API the backup manager uses, and
// /internal/force_flush|force_merge. Memory settings as for tsdb (docs/DECISIONS.md, "Memory of
// the tsdb process"; STRATA_TSDB_NO_REEXEC=1 opts out here too).
import { resolveSourcesDirectly } from '../lib/process/fast-resolve.ts';
import { reexecTuned } from '../lib/process/reexec.ts';
import { TSDB_TUNING } from '../lib/process/tuning.ts';

reexecTuned(TSDB_TUNING);
resolveSourcesDirectly();

const { registerStorageMetrics, registerStorageRoutes, storageAuthKeys, storageOptionsFromFlags } = await import('../app/storage/index.ts');
const { startStorageNodeRpc } = await import('../app/storage/node.ts');
const { enableTCP6Flag } = await import('../lib/httpserver/index.ts');
const { serveUntilSignal, startRuntime } = await import('../lib/process/index.ts');
const { openStorage } = await import('../lib/storage/index.ts');
type Storage = import('../lib/storage/index.ts').Storage;
type StorageNodeRpc = import('../app/storage/node.ts').StorageNodeRpc;

const rt = startRuntime({ binary: 'tsdb-storage', metricsPrefix: 'tsdb', defaultListenAddr: ':8482' });
const log = rt.logger;

let storage: Storage;
try {
  storage = await openStorage(storageOptionsFromFlags(log.child({ component: 'storage' }), rt.memoryBudget));
} catch (err) {
  log.fatal({ err }, 'cannot open storage');
  process.exit(1);
}
registerStorageMetrics(() => storage.stats());
rt.server.register(async (app) => registerStorageRoutes(app, storage, storageAuthKeys));

let rpc: StorageNodeRpc;
try {
  rpc = await startStorageNodeRpc(storage, log.child({ component: 'rpc' }), enableTCP6Flag());
} catch (err) {
  log.fatal({ err }, 'cannot start the RPC servers');
  await storage.close();
  process.exit(1);
}
log.info(`insert RPC listening on ${rpc.insertAddress}`);
log.info(`select RPC listening on ${rpc.selectAddress}`);

const addr = await rt.server.listen().catch(async (err: unknown) => {
  log.fatal({ err }, 'cannot start the http server');
  await rpc.close();
  await storage.close();
  process.exit(1);
});
log.info(`listening on http://${addr}`);

await serveUntilSignal(rt, [
  { name: 'storage', stop: () => storage.close() },
  { name: 'RPC servers', stop: () => rpc.close() },
]);
