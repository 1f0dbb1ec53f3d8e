// Package storage (app): the TSDB's storage component — opens the engine from flags, exports its
// metrics, and serves the snapshot and flush/merge admin routes.
export { metadataStoreBytesFromFlags, storageAuthKeys, storageOptionsFromFlags, type StorageAuthKeys } from './flags.ts';
export { registerStorageMetrics } from './metrics.ts';
export { formatRetentionPeriod, parseRetentionPeriod } from './retention.ts';
export { registerStorageRoutes } from './routes.ts';
