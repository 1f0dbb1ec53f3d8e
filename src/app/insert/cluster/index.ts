// Package insert/cluster: the cluster insert node's part — rows sharded and replicated over the
// storage nodes (ShardRouter), the ingestion routes under /insert/<tenant>/, and its flags and
// metrics. Only tsdb-insert imports it (its flags must not reach the single node).
export { clusterInsertConfigFromFlags, INSERT_RPC_PORT, type ClusterInsertConfig } from './flags.ts';
export { countTenantRows, routerObserver } from './metrics.ts';
export { Placement, seriesHash } from './placement.ts';
export { ShardRouter, type RouterObserver, type ShardRouterOptions, type WriteNode } from './router.ts';
export { registerClusterInsertRoutes, tenantFromPath } from './routes.ts';
