import { join } from 'node:path';
import type { Labels, Tenant } from '../storageapi/api.ts';
import type { IndexTable } from './index/index-table.ts';
import type { RejectReason } from './labels.ts';
import { LruCache } from './common/lru-cache.ts';
import type { ResolvedOptions } from './options.ts';
import type { BlockHeaders } from './part/part-format.ts';
import { Partition, type PartitionOptions } from './partition.ts';
import { BufferMemory, BufferPool, RawBuffer } from './buffer/raw-buffer.ts';
import { CacheGroup } from './series-cache.ts';
import { LabelPairs } from './label-pairs.ts';
import { ScratchPool } from './part/series-scratch.ts';
import { ReadBufferPool } from './part/span-read.ts';
import { DeletedSeries, TenantState } from './tenant-state.ts';
import type { Wal } from './wal/wal.ts';

/** Paths of a data directory (FORMAT.md "Directory layout"). */
export interface StoragePaths {
  readonly root: string;
  readonly data: string;
  readonly index: string;
  readonly wal: string;
  readonly snapshots: string;
}

/** storagePaths returns the layout under root. */
export function storagePaths(root: string): StoragePaths {
  return { root, data: join(root, 'data'), index: join(root, 'indexdb'), wal: join(root, 'wal'), snapshots: join(root, 'snapshots') };
}

/** Counters are cumulative since open. */
export class Counters {
  rowsAdded = 0;
  readonly rowsRejected: Record<RejectReason, number> = {
    too_many_labels: 0, label_too_long: 0, invalid_labels: 0, invalid_timestamp: 0, outside_retention: 0,
  };
  seriesCreated = 0;
  flushes = 0;
  flushErrors = 0;
  mergeErrors = 0;
  snapshotsCreated = 0;
}

// Shares of cacheBytes per cache; the series caches serve every written row.
// Part headers are small (a header group of 256 blocks is ~15 KB), so they give up a third of
// their former share to the inflated value streams of instant-query windows (DataPart.open).
const CACHE_SHARES = { series: 0.45, labels: 0.15, indexBlocks: 0.25, headers: 0.1, values: 0.05 } as const;
// The inflated value streams are held for as long as their windows are asked for again, so they
// count in the process's resident memory: at most 16 MiB (~5,600 blocks of 1,440 samples; the
// bench's ten instant queries keep 3,706 blocks, 8.5 MB).
const VALUES_CACHE_MAX_BYTES = 16 * 2 ** 20;
// The label cache's arrays share their {name, value} pairs through a table of its own, bounded by
// this fraction of the labels share (docs/DECISIONS.md, "Shared label pairs of the label cache").
const LABEL_PAIRS_OF_LABELS = 1 / 8;

/**
 * StorageCore is the shared state of an open storage. The modules of the engine (write path,
 * flusher, merger, search, snapshots) are functions over it; Storage is the public face.
 * Everything here runs on one JS thread: a synchronous section never sees another half-done.
 */
export class StorageCore {
  readonly opts: ResolvedOptions;
  readonly paths: StoragePaths;
  readonly index: IndexTable;
  readonly partitions = new Map<string, Partition>();
  readonly deleted = new DeletedSeries();
  readonly tenants = new Map<string, TenantState>();
  readonly counters = new Counters();
  readonly seriesCache: CacheGroup;
  readonly labelsCache: LruCache<Labels, number>;
  /** labelPairs decodes the label cache's entries, sharing equal pairs between series. */
  readonly labelPairs: LabelPairs;
  readonly indexCache: LruCache<string[]>;
  readonly headersCache: LruCache<BlockHeaders>;
  readonly valuesCache: LruCache<Uint8Array>;
  readonly partitionOptions: PartitionOptions;
  wal!: Wal;
  /** active receives new rows; sealed buffers wait for their flush to finish. */
  active: RawBuffer;
  sealed: RawBuffer[] = [];
  readonly bufferPool: BufferPool;
  /** scratches lends searches their sample buffers. */
  readonly scratches = new ScratchPool();
  /** readBuffers lends searches the buffers their part reads span (two per part searched). */
  readonly readBuffers = new ReadBufferPool();
  /** maxSeriesId is the highest series ID handed out. */
  maxSeriesId = 0;
  #gen = 1;

  constructor(opts: ResolvedOptions, paths: StoragePaths, index: IndexTable, caches: { indexCache: LruCache<string[]>; headersCache: LruCache<BlockHeaders> }) {
    this.opts = opts;
    this.paths = paths;
    this.index = index;
    this.indexCache = caches.indexCache;
    this.headersCache = caches.headersCache;
    this.seriesCache = new CacheGroup(opts.cacheBytes * CACHE_SHARES.series);
    this.labelsCache = new LruCache(opts.cacheBytes * CACHE_SHARES.labels);
    this.labelPairs = new LabelPairs(opts.cacheBytes * CACHE_SHARES.labels * LABEL_PAIRS_OF_LABELS);
    this.valuesCache = new LruCache(Math.min(opts.cacheBytes * CACHE_SHARES.values, VALUES_CACHE_MAX_BYTES));
    this.partitionOptions = { cache: caches.headersCache, valuesCache: this.valuesCache, logger: opts.logger, mergePolicy: opts.mergePolicy };
    this.bufferPool = new BufferPool(opts.maxBufferedRows);
    this.active = new RawBuffer(this.#gen, this.bufferPool);
  }

  /** cacheSizes returns the byte budget of the caches built before the core (index, headers). */
  static cacheSizes(cacheBytes: number): { indexBlocks: number; headers: number } {
    return { indexBlocks: cacheBytes * CACHE_SHARES.indexBlocks, headers: cacheBytes * CACHE_SHARES.headers };
  }

  isDeleted = (id: number): boolean => this.deleted.has(id);

  /** tenantState returns (creating) the state of a tenant. */
  tenantState(t: Tenant): TenantState {
    const name = `${t.accountID}:${t.projectID}`;
    let s = this.tenants.get(name);
    if (!s) {
      s = new TenantState(t, this.seriesCache);
      this.tenants.set(name, s);
    }
    return s;
  }

  /** partition returns (creating) the partition with this name. */
  partition(name: string): Partition {
    let p = this.partitions.get(name);
    if (!p) {
      p = Partition.create(this.paths.data, name, this.partitionOptions);
      this.partitions.set(name, p);
    }
    return p;
  }

  /** sealActive swaps in a fresh active buffer and returns the old one, now sealed. */
  sealActive(): RawBuffer {
    const b = this.active;
    this.sealed.push(b);
    this.active = new RawBuffer(++this.#gen, this.bufferPool);
    return b;
  }

  /** acquireBuffers returns every buffer a search must read, newest last; release each when done. */
  acquireBuffers(): RawBuffer[] {
    const all = [...this.sealed, this.active];
    for (const b of all) b.acquire();
    return all;
  }

  /**
   * releaseIdleMemory runs when nothing is buffered: it drops the pooled buffer memory and gives
   * an empty active buffer whose memory served before fresh, never-written memory (the OS
   * commits its pages only as rows arrive). After a load, up to four buffers of
   * maxBufferedRows × 20 bytes were otherwise kept resident for good. Returns the bytes dropped;
   * 0 when there was nothing to drop, so calling it on every idle tick costs nothing.
   */
  releaseIdleMemory(): number {
    if (this.active.rows > 0 || this.sealed.length > 0) return 0;
    let bytes = this.bufferPool.trim();
    if (this.active.recycled) {
      bytes += this.active.bytes;
      this.active.release();
      this.active = new RawBuffer(++this.#gen, this.bufferPool, new BufferMemory(this.opts.maxBufferedRows));
    }
    return bytes;
  }

  /** dropSealed removes flushed buffers and releases the storage's reference to them. */
  dropSealed(done: readonly RawBuffer[]): void {
    this.sealed = this.sealed.filter((b) => !done.includes(b));
    for (const b of done) b.release();
  }

  /** sealedRows counts rows in sealed buffers waiting for their flush. */
  get sealedRows(): number {
    let n = 0;
    for (const b of this.sealed) n += b.rows;
    return n;
  }

  /** pendingRows counts rows in buffers not yet written to parts. */
  get pendingRows(): number {
    let n = this.active.rows;
    for (const b of this.sealed) n += b.rows;
    return n;
  }
}
