// Package select: the TSDB read API (query, series, labels, export, federate, graphite find,
// status, delete) over a storageapi StorageApi — in-process for the single node, over the network
// for a cluster select node.
export { ConcurrencyLimiter, QueueTimeoutError } from './concurrency.ts';
export type { RequestScope, SelectDeps } from './deps.ts';
export { queryStatsFromFlags, selectLimitsFromFlags, vmalertProxyFromFlags, type SelectLimits } from './flags.ts';
export { QueryStats, type QueryStatsOptions } from './query-stats.ts';
export { VmalertProxy } from './vmalert.ts';
export { RollupResultCache } from './rollup-cache.ts';
export { READ_ROUTES, registerSelectRoutes, SINGLE_NODE_PATHS, type SelectPaths } from './routes.ts';
