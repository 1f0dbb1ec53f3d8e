import type { StorageCore } from './core.ts';
import type { RejectReason } from './labels.ts';
import { listSnapshots } from './snapshot.ts';

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
  readonly caches: Readonly<Record<'series' | 'labels' | 'indexBlocks' | 'partHeaders' | 'partValues', CacheStats>>;
  readonly snapshots: number;
  readonly tenants: readonly TenantStats[];
}

function tier(): { parts: number; rows: number; bytes: number } {
  return { parts: 0, rows: 0, bytes: 0 };
}

/** collectStats reads the current figures of an open storage. */
export function collectStats(core: StorageCore, lastFlushMs: number): StorageStats {
  const small = tier();
  const big = tier();
  let mergesDone = 0;
  let mergesRunning = 0;
  for (const p of core.partitions.values()) {
    mergesDone += p.mergesDone;
    mergesRunning += p.mergesRunning;
    for (const part of p.parts) {
      const t = part.meta.sizeBytes >= core.opts.bigPartBytes ? big : small;
      t.parts++;
      t.rows += part.meta.rowsCount;
      t.bytes += part.meta.sizeBytes;
    }
  }
  const buffers = [...core.sealed, core.active];
  const inmemory: TierStats = { parts: buffers.filter((b) => b.rows > 0).length, rows: core.pendingRows, bytes: buffers.reduce((n, b) => n + b.bytes, 0) + core.bufferPool.idleBytes };
  const hour = Math.floor(core.opts.now() / 3_600_000);
  const tenants = [...core.tenants.values()].map((t) => ({
    accountID: t.tenant.accountID, projectID: t.tenant.projectID, activeSeries: t.activeSeries(hour), seriesCreated: t.seriesCreated, rowsAdded: t.rowsAdded,
  }));
  const is = core.index.stats();
  const lru = (c: { size: number; bytes: number; maxBytes: number; hits: number; misses: number }) => ({ entries: c.size, bytes: c.bytes, maxBytes: c.maxBytes, hits: c.hits, misses: c.misses });
  return {
    rowsAdded: core.counters.rowsAdded,
    rowsRejected: { ...core.counters.rowsRejected },
    seriesCreated: core.counters.seriesCreated,
    activeSeries: tenants.reduce((n, t) => n + t.activeSeries, 0),
    deletedSeries: core.deleted.size,
    pendingRows: core.pendingRows,
    tiers: { inmemory, small, big },
    partitions: core.partitions.size,
    index: { parts: is.parts, bytes: is.partsBytes, items: is.items, pendingItems: is.memItems },
    mergesDone,
    mergesRunning: mergesRunning + is.mergesRunning,
    mergeErrors: core.counters.mergeErrors,
    indexMergesDone: is.mergesDone,
    flushes: core.counters.flushes,
    flushErrors: core.counters.flushErrors,
    lastFlushDurationMs: lastFlushMs,
    wal: { bytes: core.wal.sizeBytes, bytesWritten: core.wal.bytesWritten, fsyncs: core.wal.fsyncs },
    caches: {
      series: { entries: core.seriesCache.entries, bytes: core.seriesCache.bytes, maxBytes: core.seriesCache.maxBytes, hits: core.seriesCache.hits, misses: core.seriesCache.misses },
      labels: lru(core.labelsCache),
      indexBlocks: lru(core.indexCache),
      partHeaders: lru(core.headersCache),
      partValues: lru(core.valuesCache),
    },
    snapshots: listSnapshots(core.paths.snapshots).length,
    tenants,
  };
}
