// Package storage is the TSDB storage engine (ARCHITECTURE.md §4; on-disk format in FORMAT.md).
//
// openStorage(options) returns a Storage: storageapi's Searcher, Deleter and Inserter plus
// forceFlush, forceMerge, snapshots, retention, stats and close. How it works, in one paragraph:
// addRows resolves each row's series (rawKey cache, label-set cache, the persisted index, or a
// new series), writes one WAL record per call and appends to an in-memory buffer of shared typed
// arrays; a full buffer (or a timer) is sealed together with its WAL segment and the in-memory
// index table; a background worker thread writes sealed buffers as immutable columnar parts
// (one per monthly partition), writes index tables as index parts, and merges parts by size
// tiers; the main thread makes results live through manifest writes and then trims the WAL.
// Searches read pinned parts and buffers one series at a time. Pure apart from the filesystem
// and its worker: options and an injected clock, no flags, no process.env.
export { openStorage, Storage } from './storage.ts';
export { openInProcessStorageApi, type InProcessStorageApi } from './inprocess.ts';
export type { StorageOptions } from './options.ts';
export type { KeyedRows, KeyTable } from './keyed-rows.ts';
export { DEFAULTS as STORAGE_DEFAULTS } from './options.ts';
export type { StorageStats, TierStats, CacheStats, TenantStats } from './stats.ts';
export type { StorageLogger } from './common/logger.ts';
export type { RejectReason } from './labels.ts';
export type { MergePolicy } from './common/merge-policy.ts';
export { LOCK_FILE, RESTORE_IN_PROGRESS, readLockPid, isProcessAlive } from './lock.ts';
export { SNAPSHOT_NAME_RE, checkSnapshotName } from './snapshot.ts';
export { CorruptDataError } from './common/errors.ts';
export { writeFileAtomicAsync } from './common/fs-util.ts';
