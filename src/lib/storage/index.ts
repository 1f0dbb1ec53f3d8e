// Package storage is the TSDB storage engine (ARCHITECTURE.md §4, on-disk format in FORMAT.md).
export { openStorage, Storage } from './storage.ts';
export type { StorageOptions } from './options.ts';
export { DEFAULTS as STORAGE_DEFAULTS } from './options.ts';
export type { StorageStats, TierStats, CacheStats, TenantStats } from './stats.ts';
export type { StorageLogger } from './logger.ts';
export type { RejectReason } from './labels.ts';
export type { MergePolicy } from './merge-policy.ts';
export { LOCK_FILE, RESTORE_IN_PROGRESS, readLockPid, isProcessAlive } from './lock.ts';
export { SNAPSHOT_NAME_RE, checkSnapshotName } from './snapshot.ts';
export { MatcherError } from './index/matchers.ts';
export { CorruptDataError } from './errors.ts';
