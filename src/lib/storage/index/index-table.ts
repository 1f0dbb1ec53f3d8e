import { join } from 'node:path';
import { setImmediate as yieldNow } from 'node:timers/promises';
import type { Labels } from '../../storageapi/api.ts';
import { listDirs, mkdirp, removeDir } from '../common/fs-util.ts';
import type { StorageLogger } from '../common/logger.ts';
import type { LruCache } from '../common/lru-cache.ts';
import { ManifestWriter, readManifest } from '../common/manifest.ts';
import { DEFAULT_MERGE_POLICY, type MergePolicy, pickPartsForForceMerge, pickPartsToMerge } from '../common/merge-policy.ts';
import { MergedCursor, PartCursor } from './cursor.ts';
import { IndexPart } from './index-part.ts';
import { type IndexRunner, packItems } from './index-tasks.ts';
import { IndexView } from './index-view.ts';
import {
  KIND_DAY_SERIES, KIND_DELETED, dayItems, dayKey, flat, idKey, labelsBySeriesPrefix, readIdKey, seriesByLabelsPrefix, seriesItems,
} from './keys.ts';
import { MemTable } from './mem-table.ts';

/** IndexTableOptions configure an IndexTable. */
export interface IndexTableOptions {
  readonly zstdLevel: number;
  /** cache holds decoded blocks of all index parts. */
  readonly cache: LruCache<string[]>;
  readonly logger: StorageLogger;
  /** cutoffDay returns the first UTC day retention keeps; merges drop per-day items of earlier days. */
  readonly cutoffDay: () => number;
  readonly mergePolicy?: MergePolicy;
  /** runner writes and merges index parts (on a background thread or inline). */
  readonly runner: IndexRunner;
}

/** IndexTableStats are counters for /metrics. */
export interface IndexTableStats {
  readonly parts: number;
  readonly partsBytes: number;
  readonly items: number;
  readonly memItems: number;
  readonly memBytes: number;
  readonly mergesDone: number;
  readonly mergesRunning: number;
}

/**
 * IndexTable is the persisted inverted index: an LSM of immutable sorted index parts under one
 * directory plus in-memory tables for items not yet flushed. Writers add items; flush() writes a
 * frozen in-memory table as a new part; merges combine parts in the background and drop per-day
 * items older than retention. The live set of parts is the directory's manifest.
 */
export class IndexTable {
  readonly dir: string;
  readonly #opts: IndexTableOptions;
  readonly #manifest: ManifestWriter;
  #parts: IndexPart[] = [];
  #mutable = new MemTable();
  #frozen: MemTable[] = [];
  readonly #merging = new Set<string>();
  #mergesDone = 0;
  #mergesRunning = 0;

  private constructor(dir: string, opts: IndexTableOptions) {
    this.dir = dir;
    this.#opts = opts;
    this.#manifest = new ManifestWriter(dir, () => this.#parts.map((p) => p.name));
  }

  /**
   * open loads the live parts of dir and deletes anything a crash left behind. A directory without
   * a manifest has no live parts (every part directory in it is removed, as one the manifest does
   * not list); the first flush writes the manifest. Writing an empty one here cost every start on
   * a new data dir two fsyncs on the event loop before the first answer (issue 18 item 4).
   */
  static open(dir: string, opts: IndexTableOptions): IndexTable {
    const t = new IndexTable(dir, opts);
    mkdirp(dir);
    removeDir(join(dir, 'tmp'));
    const names = readManifest(dir) ?? [];
    const live = new Set(names);
    for (const d of listDirs(dir)) {
      if (!live.has(d)) {
        opts.logger.warn({ dir: join(dir, d) }, 'removing index part not listed in the manifest (left by a crash or an interrupted merge)');
        removeDir(join(dir, d));
      }
    }
    for (const n of names) t.#parts.push(IndexPart.open(dir, n, opts.cache));
    return t;
  }

  /** maxSeriesId is the highest series ID recorded by any part. */
  maxSeriesId(): number {
    let m = 0;
    for (const p of this.#parts) m = Math.max(m, p.meta.maxSeriesId);
    return m;
  }

  /** tenantSeries counts created series per tenant ("accountID:projectID"), deleted ones included. */
  tenantSeries(): Map<string, number> {
    const out = new Map<string, number>();
    for (const p of this.#parts) for (const [k, v] of Object.entries(p.meta.tenantSeries)) out.set(k, (out.get(k) ?? 0) + v);
    for (const mt of [...this.#frozen, this.#mutable]) for (const [k, v] of mt.tenantSeries) out.set(k, (out.get(k) ?? 0) + v);
    return out;
  }

  /** addSeries records a new series: labels → id and id → labels. tenantName is "acc:proj". */
  addSeries(tenant: string, tenantName: string, labels: string, id: number): void {
    const mt = this.#mutable;
    for (const item of seriesItems(tenant, labels, id)) mt.add(item);
    mt.seriesIds.set(flat(seriesByLabelsPrefix(tenant, labels)), id);
    mt.labels.set(id, { tenant, labels });
    mt.tenantSeries.set(tenantName, (mt.tenantSeries.get(tenantName) ?? 0) + 1);
  }

  /** addDay records that series id has samples on day. */
  addDay(tenant: string, day: number, labels: Labels, id: number): void {
    const mt = this.#mutable;
    const items = dayItems(tenant, day, labels, id);
    for (const item of items) mt.add(item);
    mt.days.add(items[0]!);
  }

  /** addDeleted records the deletion marker of series id. */
  addDeleted(tenant: string, id: number): void {
    this.#mutable.add(flat(KIND_DELETED + tenant + idKey(id)));
  }

  /**
   * findSeries returns the newest series ID of a tenant's label set that isDeleted rejects not,
   * or undefined.
   */
  findSeries(tenant: string, labels: string, isDeleted: (id: number) => boolean): number | undefined {
    const prefix = seriesByLabelsPrefix(tenant, labels);
    for (const mt of [this.#mutable, ...[...this.#frozen].reverse()]) {
      const id = mt.seriesIds.get(prefix);
      if (id !== undefined && !isDeleted(id)) return id;
    }
    let best: number | undefined;
    if (this.#parts.length === 0) return undefined;
    const c = new MergedCursor(this.#parts.map((p) => new PartCursor(p)));
    for (c.seek(prefix); c.current !== undefined && c.current.startsWith(prefix); c.next()) {
      const id = readIdKey(c.current, prefix.length);
      if (!isDeleted(id) && (best === undefined || id > best)) best = id;
    }
    return best;
  }

  /** hasDay reports whether series id already has its per-day items for day. */
  hasDay(tenant: string, day: number, id: number): boolean {
    const item = KIND_DAY_SERIES + tenant + dayKey(day) + idKey(id);
    if (this.#mutable.days.has(item)) return true;
    for (const mt of this.#frozen) if (mt.days.has(item)) return true;
    for (const p of this.#parts) if (p.has(item)) return true;
    return false;
  }

  /** seriesInfo returns the tenant key and labels key of series id, or undefined when unknown. */
  seriesInfo(id: number): { readonly tenant: string; readonly labels: string } | undefined {
    for (const mt of [this.#mutable, ...this.#frozen]) {
      const e = mt.labels.get(id);
      if (e !== undefined) return e;
    }
    const prefix = labelsBySeriesPrefix(id);
    for (const p of this.#parts) {
      if (p.blocksCount === 0) continue;
      const c = new PartCursor(p);
      c.seek(prefix);
      const item = c.current;
      if (item !== undefined && item.startsWith(prefix)) return { tenant: item.slice(prefix.length, prefix.length + 8), labels: item.slice(prefix.length + 8) };
    }
    return undefined;
  }

  /** labelsOf returns the labels key of series id when it belongs to tenant. */
  labelsOf(tenant: string, id: number): string | undefined {
    const info = this.seriesInfo(id);
    return info !== undefined && info.tenant === tenant ? info.labels : undefined;
  }

  /** view returns a consistent read view; release it when done. */
  view(): IndexView {
    return new IndexView(this.#parts, [this.#mutable.sorted(), ...this.#frozen.map((m) => m.sorted())]);
  }

  /**
   * freeze closes the current in-memory table for writes (it stays readable) and starts a new
   * one. maxSeriesId is the storage's ID high-water mark at this instant; it is stored with the
   * part so restart knows which WAL series records are already indexed.
   */
  freeze(maxSeriesId: number): MemTable {
    const mt = this.#mutable;
    mt.maxSeriesId = maxSeriesId;
    this.#frozen.push(mt);
    this.#mutable = new MemTable();
    return mt;
  }

  /** flushFrozen flushes every frozen table, oldest first (also ones an earlier failure left). */
  async flushFrozen(): Promise<void> {
    for (const mt of [...this.#frozen]) await this.flush(mt);
  }

  /**
   * flush writes a frozen table as an index part (through the runner) and makes it live in the
   * same step that drops the table from memory; resolves when the manifest is durable.
   */
  async flush(mt: MemTable): Promise<void> {
    if (mt.itemsCount > 0) {
      const items = packItems(mt.sorted());
      const name = await this.#opts.runner.indexFlush({ dir: this.dir, items, maxSeriesId: mt.maxSeriesId, zstdLevel: this.#opts.zstdLevel });
      this.#parts.push(IndexPart.open(this.dir, name, this.#opts.cache));
      this.#frozen = this.#frozen.filter((m) => m !== mt);
      await this.#manifest.persist();
    } else {
      this.#frozen = this.#frozen.filter((m) => m !== mt);
    }
  }

  /** mergeOnce runs one background merge if the policy finds one; returns whether it merged. */
  async mergeOnce(signal: AbortSignal): Promise<boolean> {
    const free = this.#parts.filter((p) => !this.#merging.has(p.name)).map((p) => ({ name: p.name, sizeBytes: p.sizeBytes }));
    const names = pickPartsToMerge(free, this.#opts.mergePolicy ?? DEFAULT_MERGE_POLICY);
    if (names.length === 0) return false;
    await this.#merge(names, signal);
    return true;
  }

  /**
   * forceMerge merges all parts into as few as possible; with rewriteSingle a lone part is
   * rewritten too, which drops per-day items retention no longer keeps.
   */
  async forceMerge(signal: AbortSignal, rewriteSingle = false): Promise<void> {
    const free = this.#parts.filter((p) => !this.#merging.has(p.name)).map((p) => ({ name: p.name, sizeBytes: p.sizeBytes }));
    const policy = this.#opts.mergePolicy ?? DEFAULT_MERGE_POLICY;
    const groups = free.length === 1 && rewriteSingle ? [[free[0]!.name]] : pickPartsForForceMerge(free, policy.maxOutputBytes);
    for (const group of groups) await this.#merge(group, signal);
  }

  async #merge(names: string[], signal: AbortSignal): Promise<void> {
    const inputs = this.#parts.filter((p) => names.includes(p.name));
    for (const p of inputs) {
      this.#merging.add(p.name);
      p.acquire();
    }
    this.#mergesRunning++;
    try {
      const maxSeriesId = Math.max(...inputs.map((p) => p.meta.maxSeriesId));
      const name = await this.#opts.runner.indexMerge(
        { dir: this.dir, inputs: inputs.map((p) => p.name), cutoffDay: this.#opts.cutoffDay(), maxSeriesId, zstdLevel: this.#opts.zstdLevel },
        signal,
      );
      this.#parts = [...this.#parts.filter((p) => !inputs.includes(p)), IndexPart.open(this.dir, name, this.#opts.cache)];
      await this.#manifest.persist();
      for (const p of inputs) {
        p.release();
        removeDir(join(this.dir, p.name));
      }
      this.#mergesDone++;
    } finally {
      this.#mergesRunning--;
      for (const p of inputs) {
        this.#merging.delete(p.name);
        p.release();
      }
    }
  }

  stats(): IndexTableStats {
    let items = 0;
    let bytes = 0;
    for (const p of this.#parts) {
      items += p.meta.itemsCount;
      bytes += p.sizeBytes;
    }
    let memItems = 0;
    let memBytes = 0;
    for (const mt of [this.#mutable, ...this.#frozen]) {
      memItems += mt.itemsCount;
      memBytes += mt.bytes;
    }
    return { parts: this.#parts.length, partsBytes: bytes, items, memItems, memBytes, mergesDone: this.#mergesDone, mergesRunning: this.#mergesRunning };
  }

  /** frozenCount counts frozen tables waiting for flushFrozen. */
  get frozenCount(): number {
    return this.#frozen.length;
  }

  /** frozenBytes estimates the memory of frozen tables waiting for their flush. */
  get frozenBytes(): number {
    let n = 0;
    for (const mt of this.#frozen) n += mt.bytes;
    return n;
  }

  /** mutableBytes estimates the memory of items added since the last freeze. */
  get mutableBytes(): number {
    return this.#mutable.bytes;
  }

  /** mutableItems counts items added since the last freeze. */
  get mutableItems(): number {
    return this.#mutable.itemsCount;
  }

  /** partNames lists live parts (for snapshots). */
  partNames(): string[] {
    return this.#parts.map((p) => p.name);
  }

  /** close waits for manifest writes and releases every part; the table is unusable afterwards. */
  async close(): Promise<void> {
    await this.#manifest.stop();
    for (const p of this.#parts) p.release();
    this.#parts = [];
  }
}
