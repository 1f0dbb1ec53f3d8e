import { durationFlag, intFlag, sizeFlag, stringFlag, valueFlag } from '../../lib/flags/index.ts';
import type { Logger } from '../../lib/logger/index.ts';
import type { MemoryBudget } from '../../lib/memory/index.ts';
import type { StorageOptions } from '../../lib/storage/index.ts';
import { formatRetentionPeriod, parseRetentionPeriod } from './retention.ts';

const storageDataPath = stringFlag('storageDataPath', 'strata-data', 'Directory of the stored data; a file named restore-in-progress in it makes the TSDB refuse to start');
const retentionPeriod = valueFlag('retentionPeriod', '1', 'How long data is kept: a bare number is months (31 days each), or use h, d, w, y suffixes such as 90d or 1y. Older data is dropped by whole monthly partitions', parseRetentionPeriod, formatRetentionPeriod);
const dedupMinScrapeInterval = durationFlag('dedup.minScrapeInterval', '0s', 'Keep only one sample per series per this interval (the last one); 0 disables deduplication. Set it to the scrape interval of HA Prometheus pairs');
const maxLabelsPerTimeseries = intFlag('maxLabelsPerTimeseries', 30, 'Series with more labels than this are rejected at ingestion, with a 400 naming this flag');
const maxLabelValueLen = intFlag('maxLabelValueLen', 4096, 'Series with a label name or value longer than this are rejected at ingestion, with a 400 naming this flag');
const snapshotsMaxAge = durationFlag('snapshotsMaxAge', '0s', 'Snapshots older than this are deleted automatically; 0 keeps them until deleted through /snapshot/delete');
const fsyncInterval = durationFlag('storage.fsyncInterval', '1s', 'How often the write-ahead log is fsynced. Acknowledged writes always survive a crash of the process; this bounds what a power loss can take. 0 fsyncs before every acknowledgement');
const maxMetadataStorageSize = sizeFlag('storage.maxMetadataStorageSize', '0', 'Most memory the metric metadata kept for /api/v1/metadata may take (see -enableMetadata); past it the least recently written families are dropped and counted in tsdb_metadata_dropped_total. 0 means 1% of the memory budget');
const snapshotAuthKey = stringFlag('snapshotAuthKey', '', 'Auth key for /snapshot/*, passed as the authKey query arg; overrides -httpAuth.*', { secret: true });
const forceFlushAuthKey = stringFlag('forceFlushAuthKey', '', 'Auth key for /internal/force_flush, passed as the authKey query arg; overrides -httpAuth.*', { secret: true });
const forceMergeAuthKey = stringFlag('forceMergeAuthKey', '', 'Auth key for /internal/force_merge, passed as the authKey query arg; overrides -httpAuth.*', { secret: true });

/** StorageAuthKeys are the auth-key getters of the storage admin routes. */
export interface StorageAuthKeys {
  readonly snapshot: () => string;
  readonly forceFlush: () => string;
  readonly forceMerge: () => string;
}

export const storageAuthKeys: StorageAuthKeys = {
  snapshot: () => snapshotAuthKey.value,
  forceFlush: () => forceFlushAuthKey.value,
  forceMerge: () => forceMergeAuthKey.value,
};

/** metadataStoreBytesFromFlags is -storage.maxMetadataStorageSize, or 1% of the budget's heap share when 0. */
export function metadataStoreBytesFromFlags(budget: MemoryBudget): number {
  return maxMetadataStorageSize.value > 0 ? maxMetadataStorageSize.value : budget.heapShare('metadata', 0.01);
}

/** storageOptionsFromFlags maps the storage flags (and a share of the memory budget) to StorageOptions. */
export function storageOptionsFromFlags(logger: Logger, budget: MemoryBudget): StorageOptions {
  return {
    dataPath: storageDataPath.value,
    retentionMs: retentionPeriod.value,
    minScrapeIntervalMs: dedupMinScrapeInterval.value,
    maxLabelsPerTimeseries: maxLabelsPerTimeseries.value,
    maxLabelValueLen: maxLabelValueLen.value,
    snapshotsMaxAgeMs: snapshotsMaxAge.value,
    fsyncIntervalMs: fsyncInterval.value,
    cacheBytes: budget.heapShare('storage', 0.5),
    logger,
  };
}
