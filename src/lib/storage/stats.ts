import type { RejectReason } from './labels.ts';

/** TierStats describe the parts of one size tier. */
export interface TierStats {
  readonly parts: number;
  readonly rows: number;
  readonly bytes: number;
}

/** CacheStats describe one cache. */
export interface CacheStats {
  readonly entries: number;
  readonly bytes: number;
  readonly maxBytes: number;
  readonly hits: number;
  readonly misses: number;
}

/** TenantStats are the per-tenant figures behind tsdb_tenant_* metrics (DECISIONS.md). */
export interface TenantStats {
  readonly accountID: number;
  readonly projectID: number;
  /** activeSeries: series written during the current or previous clock hour. */
  readonly activeSeries: number;
  /** seriesCreated: series created since the storage opened. */
  readonly seriesCreated: number;
  readonly rowsAdded: number;
}

/**
 * StorageStats is a plain snapshot of the engine's counters and gauges for /metrics; the app
 * names and exports them. Counters are cumulative since open.
 */
export interface StorageStats {
  readonly rowsAdded: number;
  readonly rowsRejected: Readonly<Record<RejectReason, number>>;
  readonly seriesCreated: number;
  /** activeSeries sums TenantStats.activeSeries. */
  readonly activeSeries: number;
  readonly deletedSeries: number;
  /** pendingRows are in memory, not yet in parts (they are in the WAL). */
  readonly pendingRows: number;
  /** tiers: "inmemory" are raw buffers; "small"/"big" data parts split at bigPartBytes. */
  readonly tiers: { readonly inmemory: TierStats; readonly small: TierStats; readonly big: TierStats };
  readonly partitions: number;
  readonly index: { readonly parts: number; readonly bytes: number; readonly items: number; readonly pendingItems: number };
  readonly mergesDone: number;
  readonly mergesRunning: number;
  readonly mergeErrors: number;
  readonly indexMergesDone: number;
  readonly flushes: number;
  readonly flushErrors: number;
  readonly lastFlushDurationMs: number;
  readonly wal: { readonly bytes: number; readonly bytesWritten: number; readonly fsyncs: number };
  readonly caches: Readonly<Record<'series' | 'labels' | 'indexBlocks' | 'partHeaders', CacheStats>>;
  readonly snapshots: number;
  readonly tenants: readonly TenantStats[];
}
