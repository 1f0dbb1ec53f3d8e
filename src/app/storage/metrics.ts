import { counterFunc, gauge } from '../../lib/metrics/index.ts';
import type { StorageStats } from '../../lib/storage/index.ts';

/**
 * registerStorageMetrics exports the engine's stats on /metrics (issue 3 item 6): rows, series,
 * parts and bytes per tier, merges, WAL, caches, snapshots, and the per-tenant figures the gateway's
 * rate limiter reads (DECISIONS.md "Per-tenant statistics"). Values are read at scrape time.
 */
export function registerStorageMetrics(stats: () => StorageStats): void {
  let cached: { at: number; s: StorageStats } | undefined;
  // One scrape reads stats once, however many metrics use them.
  const s = (): StorageStats => {
    const now = Date.now();
    if (cached === undefined || now - cached.at > 100) cached = { at: now, s: stats() };
    return cached.s;
  };
  counterFunc('tsdb_rows_added_total', 'Rows stored by the storage engine', [], (set) => set({}, s().rowsAdded));
  counterFunc('tsdb_rows_rejected_total', 'Rows the storage engine refused, by reason', ['reason'], (set) => {
    for (const [reason, n] of Object.entries(s().rowsRejected)) set({ reason }, n);
  });
  counterFunc('tsdb_new_timeseries_created_total', 'Series created since start', [], (set) => set({}, s().seriesCreated));
  gauge('tsdb_active_timeseries', 'Series written during the current or previous hour', [], (g) => g.set(s().activeSeries));
  gauge('tsdb_deleted_timeseries', 'Series marked deleted and not yet dropped by merges', [], (g) => g.set(s().deletedSeries));
  gauge('tsdb_pending_rows', 'Rows in memory buffers (already in the write-ahead log), not yet in parts', [], (g) => g.set(s().pendingRows));
  const tiers = ['inmemory', 'small', 'big'] as const;
  gauge('tsdb_parts', 'Data parts, by tier', ['tier'], (g) => tiers.forEach((t) => g.set({ tier: t }, s().tiers[t].parts)));
  gauge('tsdb_rows', 'Rows held, by tier', ['tier'], (g) => tiers.forEach((t) => g.set({ tier: t }, s().tiers[t].rows)));
  gauge('tsdb_data_size_bytes', 'Bytes of data, by tier', ['tier'], (g) => tiers.forEach((t) => g.set({ tier: t }, s().tiers[t].bytes)));
  gauge('tsdb_partitions', 'Monthly data partitions', [], (g) => g.set(s().partitions));
  gauge('tsdb_index_parts', 'Parts of the inverted index', [], (g) => g.set(s().index.parts));
  gauge('tsdb_index_size_bytes', 'Bytes of the inverted index', [], (g) => g.set(s().index.bytes));
  gauge('tsdb_index_items', 'Items in the inverted index (in parts and pending)', [], (g) => g.set(s().index.items + s().index.pendingItems));
  counterFunc('tsdb_merges_total', 'Merges completed, by kind', ['kind'], (set) => {
    set({ kind: 'data' }, s().mergesDone);
    set({ kind: 'index' }, s().indexMergesDone);
  });
  gauge('tsdb_merges_running', 'Data merges in progress', [], (g) => g.set(s().mergesRunning));
  counterFunc('tsdb_merge_errors_total', 'Merges that failed (the parts stay as they were)', [], (set) => set({}, s().mergeErrors));
  counterFunc('tsdb_flushes_total', 'Buffer flushes into parts', [], (set) => set({}, s().flushes));
  counterFunc('tsdb_flush_errors_total', 'Buffer flushes that failed (rows stay in the write-ahead log)', [], (set) => set({}, s().flushErrors));
  gauge('tsdb_last_flush_duration_seconds', 'Duration of the last buffer flush', [], (g) => g.set(s().lastFlushDurationMs / 1000));
  gauge('tsdb_wal_size_bytes', 'Bytes in write-ahead log segments not yet covered by parts', [], (g) => g.set(s().wal.bytes));
  counterFunc('tsdb_wal_written_bytes_total', 'Bytes written to the write-ahead log', [], (set) => set({}, s().wal.bytesWritten));
  counterFunc('tsdb_wal_fsyncs_total', 'fsync calls on the write-ahead log', [], (set) => set({}, s().wal.fsyncs));
  const caches = ['series', 'labels', 'indexBlocks', 'partHeaders', 'partValues'] as const;
  gauge('tsdb_cache_entries', 'Entries in each cache', ['cache'], (g) => caches.forEach((c) => g.set({ cache: c }, s().caches[c].entries)));
  gauge('tsdb_cache_size_bytes', 'Bytes held by each cache', ['cache'], (g) => caches.forEach((c) => g.set({ cache: c }, s().caches[c].bytes)));
  gauge('tsdb_cache_size_max_bytes', 'Byte limit of each cache', ['cache'], (g) => caches.forEach((c) => g.set({ cache: c }, s().caches[c].maxBytes)));
  counterFunc('tsdb_cache_requests_total', 'Cache lookups', ['cache'], (set) => caches.forEach((c) => set({ cache: c }, s().caches[c].hits + s().caches[c].misses)));
  counterFunc('tsdb_cache_misses_total', 'Cache lookups that missed', ['cache'], (set) => caches.forEach((c) => set({ cache: c }, s().caches[c].misses)));
  gauge('tsdb_snapshots', 'Snapshots on disk', [], (g) => g.set(s().snapshots));
  const tenant = (t: { accountID: number; projectID: number }) => ({ accountID: String(t.accountID), projectID: String(t.projectID) });
  gauge('tsdb_tenant_active_timeseries', 'Active series per tenant', ['accountID', 'projectID'], (g) => s().tenants.forEach((t) => g.set(tenant(t), t.activeSeries)));
  counterFunc('tsdb_tenant_timeseries_created_total', 'Series created per tenant', ['accountID', 'projectID'], (set) => s().tenants.forEach((t) => set(tenant(t), t.seriesCreated)));
}
