// Package select/cluster: the cluster select node's part — the fan-out storage over every storage
// node (merge, dedup, partial answers), the read routes under /select/<tenant>/, /admin/tenants,
// and its flags and metrics. Only tsdb-select imports it (its flags must not reach the single node).
export { FanoutStorage, RequestStorage, type FanoutObserver, type FanoutOptions, type ReadNode } from './fanout.ts';
export { clusterSelectConfigFromFlags, SELECT_RPC_PORT, type ClusterSelectConfig } from './flags.ts';
export { mergeSeries, mergeTsdbStatus, SeriesMerger, unionLabelSets, unionStrings, unionTenants } from './merge.ts';
export { countTenantRequest, fanoutObserver } from './metrics.ts';
export { CLUSTER_PATHS, clusterScope, registerTenantsRoute, tenantFromPath } from './routes.ts';
