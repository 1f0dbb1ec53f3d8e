import { join } from 'node:path';
import type {
  Deleter, Inserter, Labels, MetricRow, SearchQuery, Searcher, SeriesSamples, Tenant, TenantLister, TimeRange, TsdbStatus, TsdbStatusQuery,
} from '../storageapi/api.ts';
import type { StorageCore } from './core.ts';
import { ByteWriter } from '../bytes/index.ts';
import { errorMessage } from './common/errors.ts';
import type { BackgroundRunner } from './background/runner.ts';
import { Flusher } from './flusher.ts';
import type { DirLock } from './lock.ts';
import { Merger } from './merger.ts';
import { type ResolvedOptions, type StorageOptions, resolveOptions } from './options.ts';
import { cutoffDay, partitionsToDrop } from './retention.ts';
import * as search from './search.ts';
import { searchSeriesBlocks } from './search-blocks.ts';
import type { SeriesBlocks } from './series-blocks.ts';
import { deleteSnapshot, linkSnapshot, listSnapshots, snapshotName, snapshotsOlderThan } from './snapshot.ts';
import { type StorageStats, collectStats } from './stats.ts';
import { openCore } from './storage-open.ts';
import { appendDeleteRecord } from './wal/wal-record.ts';
import type { KeyedRows } from './keyed-rows.ts';
import { type Rejections, WritePath } from './write-path.ts';

/** MAX_INDEX_TABLE_BYTES seals the in-memory index table for a flush when it grows past this. */
const MAX_INDEX_TABLE_BYTES = 32 * 2 ** 20;

/**
 * openStorage opens (creating when needed) the storage in opts.dataPath: takes its lock, cleans
 * up after a crash, replays the WAL, and starts the background flush, merge and retention work.
 * Throws when another process holds the directory or a restore is in progress.
 */
export async function openStorage(opts: StorageOptions): Promise<Storage> {
  return Storage.open(opts);
}

/**
 * Storage is the TSDB storage engine: the in-process implementation of storageapi's Searcher,
 * Deleter, Inserter and TenantLister, plus flushing, merging, snapshots, retention and statistics. All methods
 * may be called concurrently; after close() every method rejects.
 */
export class Storage implements Searcher, Deleter, Inserter, TenantLister {
  readonly #core: StorageCore;
  readonly #opts: ResolvedOptions;
  readonly #lock: DirLock;
  readonly #runner: BackgroundRunner;
  readonly #write: WritePath;
  readonly #flusher: Flusher;
  readonly #merger: Merger;
  readonly #timers: NodeJS.Timeout[] = [];
  #closing: Promise<void> | undefined;
  #lastRetentionDay = Number.NEGATIVE_INFINITY;
  #lastRetentionWarn = 0;

  private constructor(core: StorageCore, lock: DirLock, runner: BackgroundRunner) {
    this.#core = core;
    this.#opts = core.opts;
    this.#lock = lock;
    this.#write = new WritePath(core);
    this.#runner = runner;
    this.#flusher = new Flusher(core, this.#runner);
    this.#merger = new Merger(core, this.#runner);
  }

  /** open is openStorage. */
  static async open(options: StorageOptions): Promise<Storage> {
    const opts = resolveOptions(options);
    const { core, lock, runner } = openCore(opts);
    const s = new Storage(core, lock, runner);
    s.#startTimers();
    if (opts.backgroundMerges) s.#merger.kick();
    return s;
  }

  #startTimers(): void {
    const flushTimer = setInterval(() => this.#backgroundFlush(), this.#opts.flushIntervalMs);
    const maintenance = setInterval(() => {
      if (this.#closing) return;
      this.runMaintenance().catch((err: unknown) => {
        if (!this.#closing) this.#opts.logger.error({ err: errorMessage(err) }, 'storage maintenance failed');
      });
    }, this.#opts.maintenanceIntervalMs);
    for (const t of [flushTimer, maintenance]) {
      t.unref();
      this.#timers.push(t);
    }
  }

  #backgroundFlush(): void {
    const core = this.#core;
    if (core.active.rows === 0 && core.index.mutableItems === 0 && !this.#flusher.pending && core.wal.sizeBytes === 0) {
      if (!this.#flusher.draining) core.releaseIdleMemory();
      return;
    }
    this.#flusher.flush().then(
      () => {
        if (this.#opts.backgroundMerges && !this.#closing) this.#merger.kick();
      },
      (err: unknown) => this.#opts.logger.error({ err: errorMessage(err) }, 'background flush failed; the rows stay in memory and in the WAL'),
    );
  }

  #checkOpen(): void {
    if (this.#closing) throw new Error(`storage at "${this.#opts.dataPath}" is closed`);
  }

  // --- Inserter ---

  /**
   * addRows stores rows of one tenant. When it resolves, the accepted rows are in the WAL (and
   * fsynced when fsyncIntervalMs is 0). Rows breaking a limit are counted and make it reject with
   * a LimitExceededError after the valid rows were stored; malformed rows (bad timestamps,
   * duplicate label names) with an Error; rows outside retention are only counted and logged.
   */
  async addRows(tenant: Tenant, rows: readonly MetricRow[]): Promise<void> {
    this.#checkOpen();
    search.checkTenant(tenant);
    if (rows.length === 0) return;
    await this.#admit();
    this.#prepareFor(rows.length);
    const rej = this.#write.writeRows(tenant, rows);
    await this.#afterWrite(rej, rows.length);
  }

  /**
   * addKeyedRows is addRows for a batch in columns whose series are numbered in a key table
   * (protoparser's keyed parsers fill one): same guarantees and errors, without a row object per
   * sample. The batch is read before the returned promise settles and not kept: its arrays may be
   * reused from then on.
   */
  async addKeyedRows(tenant: Tenant, batch: KeyedRows): Promise<void> {
    this.#checkOpen();
    search.checkTenant(tenant);
    if (batch.length === 0) return;
    await this.#admit();
    this.#prepareFor(batch.length);
    const rej = this.#write.writeKeyed(tenant, batch);
    await this.#afterWrite(rej, batch.length);
  }

  // Backpressure: when flushes fall behind, wait instead of growing memory without bound. A call
  // waits once one full buffer is sealed and unwritten: every buffer is maxBufferedRows × 20 bytes
  // resident once written, and letting a second one queue behind the drain (active + two sealed)
  // set the ingestion peak under load (docs/DECISIONS.md, "Row buffers during a load").
  async #admit(): Promise<void> {
    const core = this.#core;
    while ((core.sealedRows >= this.#opts.maxBufferedRows || core.index.frozenBytes >= MAX_INDEX_TABLE_BYTES * 2) && this.#flusher.draining) {
      await this.#flusher.idle();
    }
    this.#checkOpen();
  }

  // Seal before a call that would overflow the buffer: its memory then stays the pooled size.
  #prepareFor(rows: number): void {
    const active = this.#core.active;
    if (active.rows > 0 && active.rows + rows > this.#opts.maxBufferedRows) this.#sealForFlush();
  }

  async #afterWrite(rej: Rejections, rowsInCall: number): Promise<void> {
    // A burst of new series (or a day rollover at high cardinality) fills the index table rather
    // than the row buffer: bound both.
    if (this.#core.active.rows >= this.#opts.maxBufferedRows || this.#core.index.mutableBytes > MAX_INDEX_TABLE_BYTES) this.#sealForFlush();
    if (this.#opts.fsyncIntervalMs === 0) await this.#core.wal.sync();
    if (rej.total === 0) return;
    this.#warnRetention(rej.retentionMessage());
    const err = rej.error(rowsInCall, this.#opts);
    if (err) throw err;
  }

  #sealForFlush(): void {
    this.#flusher.seal();
    if (this.#opts.backgroundMerges) void this.#flusher.idle().then(() => this.#closing || this.#merger.kick());
  }

  #warnRetention(msg: string | undefined): void {
    const now = this.#opts.now();
    if (msg === undefined || now - this.#lastRetentionWarn < 10_000) return;
    this.#lastRetentionWarn = now;
    this.#opts.logger.warn({ reason: msg }, 'skipping rows outside the retention period');
  }

  // --- Searcher ---

  searchSeries(q: SearchQuery, signal: AbortSignal): AsyncIterable<SeriesSamples> {
    return search.searchSeries(this.#core, this.#retained(q), signal);
  }

  searchSeriesBatches(q: SearchQuery, signal: AbortSignal): AsyncIterable<Iterable<SeriesSamples>> {
    return search.searchSeriesBatches(this.#core, this.#retained(q), signal);
  }

  /** searchSeriesBlocks is searchSeries as stored blocks, for a cluster storage node (series-blocks.ts). */
  searchSeriesBlocks(q: SearchQuery, signal: AbortSignal): AsyncIterable<SeriesBlocks> {
    return searchSeriesBlocks(this.#core, this.#retained(q), signal);
  }

  // retained narrows q to the retention period.
  #retained(q: SearchQuery): SearchQuery {
    this.#checkOpen();
    const now = this.#opts.now();
    const minTs = Math.max(q.timeRange.minTimestamp, now - this.#opts.retentionMs);
    return { ...q, timeRange: { minTimestamp: minTs, maxTimestamp: q.timeRange.maxTimestamp } };
  }

  async searchLabelSets(q: SearchQuery, limit: number, signal: AbortSignal): Promise<Labels[]> {
    this.#checkOpen();
    return search.searchLabelSets(this.#core, q, limit, signal);
  }

  async labelNames(q: SearchQuery, limit: number, signal: AbortSignal): Promise<string[]> {
    this.#checkOpen();
    return search.labelNames(this.#core, q, limit, signal);
  }

  async labelValues(q: SearchQuery, labelName: string, limit: number, signal: AbortSignal): Promise<string[]> {
    this.#checkOpen();
    return search.labelValues(this.#core, q, labelName, limit, signal);
  }

  async seriesCount(tenant: Tenant, signal: AbortSignal): Promise<number> {
    this.#checkOpen();
    signal.throwIfAborted();
    return search.seriesCount(this.#core, tenant);
  }

  async tsdbStatus(q: TsdbStatusQuery, signal: AbortSignal): Promise<TsdbStatus> {
    this.#checkOpen();
    return search.tsdbStatus(this.#core, q, signal);
  }

  async listTenants(range: TimeRange, signal: AbortSignal): Promise<Tenant[]> {
    this.#checkOpen();
    return search.listTenants(this.#core, range, signal);
  }

  // --- Deleter ---

  async deleteSeries(q: SearchQuery, signal: AbortSignal): Promise<number> {
    this.#checkOpen();
    // An empty list of matcher sets means "every series" to searches; for deletion that is far
    // more likely a caller's mistake than the intent.
    if (q.matcherSets.length === 0 || q.matcherSets.some((s) => s.length === 0)) {
      throw new Error('cannot delete series: every matcher set needs at least one matcher');
    }
    const all = { minTimestamp: 0, maxTimestamp: Number.MAX_SAFE_INTEGER };
    const ids = search.matchingIds(this.#core, { ...q, timeRange: all, maxSeries: 0 }, signal);
    if (ids.length === 0) return 0;
    const ts = this.#core.tenantState(q.tenant);
    for (const id of ids) {
      if (this.#core.deleted.add(id, ts.name)) this.#core.index.addDeleted(ts.key, id);
    }
    const w = new ByteWriter(64 + ids.length * 8);
    appendDeleteRecord(w, ts.tenant, ids);
    this.#core.wal.append([w.bytes()]);
    // Refs cached before the deletion must not route new rows to the deleted series.
    ts.forget();
    await this.#core.wal.sync();
    return ids.length;
  }

  // --- maintenance ---

  /** forceFlush writes every buffered row into parts and trims the WAL. */
  async forceFlush(): Promise<void> {
    this.#checkOpen();
    await this.#flusher.flush();
  }

  /**
   * forceMerge flushes, then merges every partition whose name (YYYY_MM) starts with
   * partitionPrefix, and the index, into as few parts as possible.
   */
  async forceMerge(partitionPrefix = ''): Promise<void> {
    this.#checkOpen();
    await this.#flusher.flush();
    await this.#merger.forceMerge(partitionPrefix);
  }

  /** applyRetention drops partitions older than retention and, once a day, old index days. */
  async applyRetention(): Promise<void> {
    this.#checkOpen();
    const now = this.#opts.now();
    for (const name of partitionsToDrop([...this.#core.partitions.keys()], now, this.#opts.retentionMs)) {
      const p = this.#core.partitions.get(name)!;
      this.#core.partitions.delete(name);
      await p.drop();
      this.#opts.logger.info({ partition: name }, 'dropped partition outside the retention period');
    }
    const day = cutoffDay(now, this.#opts.retentionMs);
    if (day > this.#lastRetentionDay) {
      this.#lastRetentionDay = day;
      await this.#merger.forceMergeIndex();
    }
  }

  /**
   * runMaintenance is what the maintenance timer runs every maintenanceIntervalMs: retention,
   * deletion of snapshots older than snapshotsMaxAgeMs, and a background merge pass.
   */
  async runMaintenance(): Promise<void> {
    this.#checkOpen();
    await this.applyRetention();
    const old = snapshotsOlderThan(listSnapshots(this.#core.paths.snapshots), this.#opts.now(), this.#opts.snapshotsMaxAgeMs);
    for (const name of old) {
      deleteSnapshot(this.#core.paths.snapshots, name);
      this.#opts.logger.info({ snapshot: name }, 'deleted snapshot older than snapshotsMaxAge');
    }
    if (this.#opts.backgroundMerges) this.#merger.kick();
  }

  // --- snapshots ---

  /**
   * createSnapshot flushes buffered rows, then hard-links every live part (data and index) into
   * snapshots/<YYYYMMDDhhmmss-HEX>/, a self-contained data directory; returns its name.
   */
  async createSnapshot(): Promise<string> {
    this.#checkOpen();
    await this.#flusher.flush();
    const core = this.#core;
    const name = snapshotName(this.#opts.now());
    const sets = [...core.partitions.values()]
      .filter((p) => p.parts.length > 0)
      .map((p) => ({ rel: join('data', p.name), dir: p.dir, parts: p.parts.map((x) => x.name) }));
    sets.push({ rel: 'indexdb', dir: core.paths.index, parts: core.index.partNames() });
    linkSnapshot(core.paths.snapshots, name, sets);
    core.counters.snapshotsCreated++;
    return name;
  }

  async listSnapshots(): Promise<string[]> {
    this.#checkOpen();
    return listSnapshots(this.#core.paths.snapshots);
  }

  /** deleteSnapshot removes one snapshot; rejects invalid or unknown names. */
  async deleteSnapshot(name: string): Promise<void> {
    this.#checkOpen();
    deleteSnapshot(this.#core.paths.snapshots, name);
  }

  async deleteAllSnapshots(): Promise<void> {
    this.#checkOpen();
    for (const name of listSnapshots(this.#core.paths.snapshots)) deleteSnapshot(this.#core.paths.snapshots, name);
  }

  // --- stats and lifecycle ---

  stats(): StorageStats {
    return collectStats(this.#core, this.#flusher.lastDurationMs);
  }

  /** close stops background work, flushes every buffered row, closes files and releases the lock. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    for (const t of this.#timers) clearInterval(t);
    await this.#merger.stop();
    try {
      await this.#flusher.flush();
    } catch (err) {
      this.#opts.logger.error({ err: errorMessage(err) }, 'cannot flush at close; the WAL keeps the rows for the next start');
    }
    await this.#runner.close();
    await this.#core.wal.close();
    await this.#core.index.close();
    for (const p of this.#core.partitions.values()) p.close();
    this.#lock.release();
  }
}
