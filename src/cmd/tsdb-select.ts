// tsdb-select: the cluster query node — every read API of the single-node tsdb under
// /select/<accountID[:projectID]>/prometheus/… (and /graphite/…), deletion under /delete/<tenant>/,
// /admin/tenants, over every storage node of -storageNode (their select RPC port): answers are
// merged, replicas deduplicated, and marked isPartial when more nodes are missing than
// -replicationFactor covers (503 under -search.denyPartialResponse). Memory settings as for tsdb
// (docs/DECISIONS.md, "Memory of the tsdb process"; STRATA_TSDB_NO_REEXEC=1 opts out here too).
import { resolveSourcesDirectly } from '../lib/process/fast-resolve.ts';
import { reexecTuned } from '../lib/process/reexec.ts';
import { TSDB_TUNING } from '../lib/process/tuning.ts';

reexecTuned(TSDB_TUNING);
resolveSourcesDirectly();

const { ConcurrencyLimiter, queryStatsFromFlags, registerSelectRoutes, RollupResultCache, selectLimitsFromFlags, vmalertProxyFromFlags } = await import('../app/select/index.ts');
const { CLUSTER_PATHS, clusterScope, clusterSelectConfigFromFlags, FanoutStorage, fanoutObserver, registerTenantsRoute } = await import('../app/select/cluster/index.ts');
const { startClusterNode } = await import('../lib/cluster/index.ts');
const { queryOffloadFromFlags } = await import('../lib/querypool/flags.ts');
const { gauge } = await import('../lib/metrics/index.ts');
const { flagValueOrExit, listenOrExit, serveUntilSignal } = await import('../lib/process/index.ts');
const { DEFAULT_TENANT } = await import('../lib/storageapi/index.ts');
const { SelectNodeClient } = await import('../lib/storagerpc/index.ts');

const { rt, cfg, clients, coordinator: fanout } = startClusterNode({
  runtime: { binary: 'tsdb-select', metricsPrefix: 'tsdb', defaultListenAddr: ':8481' },
  configFromFlags: clusterSelectConfigFromFlags,
  client: (address, timeoutMs) => new SelectNodeClient({ address, timeoutMs }),
  coordinator: ({ nodes, cfg, logger }) => new FanoutStorage({
    nodes: nodes.map(({ name, client }) => ({ name, api: client })),
    replicationFactor: cfg.replicationFactor,
    denyPartialResponse: cfg.denyPartialResponse,
    nodeTimeoutMs: cfg.timeoutMs,
    dedupMs: cfg.dedupMs,
    now: Date.now,
    observer: fanoutObserver(logger),
  }),
});
const log = rt.logger;

const limits = selectLimitsFromFlags();
// Rollups over the series the storage nodes answer run on query workers as on a single node
// (-search.queryWorkers); the nodes' samples reach the workers as plain rows.
const rollupOffload = await queryOffloadFromFlags(rt.memoryBudget);
const cache = new RollupResultCache(rt.memoryBudget.heapShare('rollupResultCache', 0.1));
gauge('tsdb_rollup_result_cache_size_bytes', 'Bytes held by the rollup result cache of range queries', [], (g) => g.set(cache.bytes));
gauge('tsdb_rollup_result_cache_entries', 'Entries in the rollup result cache', [], (g) => g.set(cache.size));
const vmalert = flagValueOrExit(rt.binary, () => vmalertProxyFromFlags(limits.maxQueryDurationMs));
// Metric metadata (/api/v1/metadata) is kept where ingestion happens, on a single node; the
// cluster's storage nodes do not hold it, so the select node answers none (docs/DECISIONS.md).
const deps = {
  // Requests read through their own scope (tenant from the path, partial-answer tracking);
  // storage and tenant here serve nothing but the type.
  storage: fanout.forRequest(), tenant: DEFAULT_TENANT,
  limits, cache, now: Date.now,
  limiter: new ConcurrencyLimiter(limits.maxConcurrentRequests),
  logger: log.child({ component: 'select' }),
  queryStats: queryStatsFromFlags(), ...(vmalert === undefined ? {} : { vmalert }),
  ...(rollupOffload === undefined ? {} : { rollupOffload }),
  scope: clusterScope(fanout),
};
rt.server.register(async (app) => {
  await registerSelectRoutes(app, deps, CLUSTER_PATHS);
  registerTenantsRoute(app, deps, fanout);
});

const addr = await listenOrExit(rt, clients.close);
const port = addr.split(':').at(-1);
log.info(`listening on http://${addr}`);
log.info(`storage nodes: ${cfg.nodes.join(', ')}; replication factor ${cfg.replicationFactor}${cfg.denyPartialResponse ? '; partial answers denied' : ''}`);
log.info(`query: curl 'http://localhost:${port}/select/0/prometheus/api/v1/query?query=up' (Grafana: a Prometheus data source at http://localhost:${port}/select/0/prometheus)`);

await serveUntilSignal(rt, [clients.shutdownStep(fanout)]);
