// tsdb-insert: the cluster ingestion node — every ingestion route of the single-node tsdb under
// /insert/<accountID[:projectID]>/…, and its network receivers (tenant -defaultTenantID), with rows
// sharded by series and replicated (-replicationFactor) over the storage nodes of -storageNode
// (their insert RPC port). Memory settings as for tsdb (docs/DECISIONS.md, "Memory of the tsdb
// process"; STRATA_TSDB_NO_REEXEC=1 opts out here too).
import { resolveSourcesDirectly } from '../lib/process/fast-resolve.ts';
import { reexecTuned } from '../lib/process/reexec.ts';
import { TSDB_TUNING } from '../lib/process/tuning.ts';

reexecTuned(TSDB_TUNING);
resolveSourcesDirectly();

const { insertOptionsFromFlags, receiverAddressesFromFlags, startReceivers } = await import('../app/insert/index.ts');
const { clusterInsertConfigFromFlags, countTenantRows, registerClusterInsertRoutes, routerObserver, ShardRouter } = await import('../app/insert/cluster/index.ts');
const { startClusterNode } = await import('../lib/cluster/index.ts');
const { enableTCP6Flag } = await import('../lib/httpserver/index.ts');
const { listenOrExit, serveUntilSignal } = await import('../lib/process/index.ts');
const { InsertNodeClient } = await import('../lib/storagerpc/index.ts');

const { rt, cfg, clients, coordinator: router } = startClusterNode({
  runtime: { binary: 'tsdb-insert', metricsPrefix: 'tsdb', defaultListenAddr: ':8480' },
  configFromFlags: clusterInsertConfigFromFlags,
  client: (address, timeoutMs) => new InsertNodeClient({ address, timeoutMs }),
  coordinator: ({ nodes, cfg, logger }) => new ShardRouter({
    nodes: nodes.map(({ name, client }) => ({ name, inserter: client })),
    replicationFactor: cfg.replicationFactor,
    writeTimeoutMs: cfg.timeoutMs,
    now: Date.now,
    observer: routerObserver(logger),
  }),
});
const log = rt.logger;
// Keyed parsing as on the single node: a series seen before reaches the router as a key number,
// which it places and its node clients encode without touching the labels (ShardRouter.addKeyedRows).
const seriesKeyBytes = rt.memoryBudget.heapShare('prometheusSeriesKeys', 0.25);
const insertOptions = { ...insertOptionsFromFlags(router, log.child({ component: 'insert' }), seriesKeyBytes), onInserted: countTenantRows };
rt.server.register(async (app) => registerClusterInsertRoutes(app, insertOptions));

let receivers;
try {
  receivers = await startReceivers(receiverAddressesFromFlags(), insertOptions, cfg.receiversTenant, enableTCP6Flag());
  for (const [name, addr] of Object.entries(receivers.addresses)) log.info(`${name} receiver listening on ${addr}`);
} catch (err) {
  log.fatal({ err }, 'cannot start the network receivers');
  await clients.close();
  process.exit(1);
}

const addr = await listenOrExit(rt, clients.close);
const port = addr.split(':').at(-1);
log.info(`listening on http://${addr}`);
log.info(`storage nodes: ${cfg.nodes.join(', ')}; replication factor ${cfg.replicationFactor}`);
log.info(`send data: curl -d 'temperature{room="kitchen"} 21.5' http://localhost:${port}/insert/0/prometheus/api/v1/import/prometheus`);

await serveUntilSignal(rt, [
  clients.shutdownStep(router),
  { name: 'network receivers', stop: () => receivers.close() },
  { name: 'parse workers', stop: () => insertOptions.parsePool?.close() },
]);
