import { existsSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { WrittenPart } from './background/tasks.ts';
import { DataPart } from './part/data-part.ts';
import { errorMessage } from './common/errors.ts';
import { fsyncDir, listDirs, mkdirp, newPartName, removeDir } from './common/fs-util.ts';
import type { StorageLogger } from './common/logger.ts';
import type { LruCache } from './common/lru-cache.ts';
import { MANIFEST_FILE, ManifestWriter, readManifest, writeManifest } from './common/manifest.ts';
import { DEFAULT_MERGE_POLICY, type MergePolicy, pickPartsForForceMerge, pickPartsToMerge } from './common/merge-policy.ts';
import type { BlockHeaders } from './part/part-format.ts';
import type { BackgroundRunner } from './background/runner.ts';
import { partitionRange } from './common/partition-name.ts';

/** MergeSettings say how a merge treats samples, and who runs it. */
export interface MergeSettings {
  readonly zstdLevel: number;
  readonly dedupMs: number;
  /** minTs/maxTs: samples outside are dropped (retention). */
  readonly minTs: number;
  readonly maxTs: number;
  /** deleted lists deleted series IDs, sorted; their samples are dropped. */
  readonly deleted: Float64Array;
  readonly signal: AbortSignal;
  readonly runner: BackgroundRunner;
}

/** PartitionOptions are shared by all partitions of a storage. */
export interface PartitionOptions {
  readonly cache: LruCache<BlockHeaders>;
  /** valuesCache keeps inflated value streams of blocks searches decode the newest samples of (DataPart.open). */
  readonly valuesCache?: LruCache<Uint8Array>;
  readonly logger: StorageLogger;
  readonly mergePolicy?: MergePolicy;
}

/**
 * Partition is one month of data: a directory of immutable parts whose live set is its
 * manifest (parts.json). New parts are written in tmp/ and renamed in; a merge writes its output
 * the same way, then one manifest write swaps inputs for output, then the inputs are deleted —
 * a crash at any point leaves either the inputs or the output listed, never both.
 */
export class Partition {
  readonly name: string;
  readonly dir: string;
  readonly minTs: number;
  readonly maxTs: number;
  readonly #opts: PartitionOptions;
  readonly #manifest: ManifestWriter;
  #parts: DataPart[] = [];
  readonly #merging = new Set<string>();
  #dropped = false;
  mergesDone = 0;
  mergesRunning = 0;

  private constructor(dataDir: string, name: string, opts: PartitionOptions) {
    this.name = name;
    this.dir = join(dataDir, name);
    const r = partitionRange(name);
    this.minTs = r.minTs;
    this.maxTs = r.maxTs;
    this.#opts = opts;
    this.#manifest = new ManifestWriter(this.dir, () => this.#parts.map((p) => p.name));
  }

  /**
   * open loads an existing partition directory, removing tmp/ and parts the manifest does not
   * list. Returns undefined (and removes the directory) when there is no manifest: that is a
   * partition whose deletion a crash interrupted, or whose creation never finished.
   */
  static open(dataDir: string, name: string, opts: PartitionOptions): Partition | undefined {
    const p = new Partition(dataDir, name, opts);
    const names = readManifest(p.dir);
    if (names === undefined) {
      opts.logger.warn({ dir: p.dir }, 'removing partition directory without a manifest');
      removeDir(p.dir);
      return undefined;
    }
    removeDir(join(p.dir, 'tmp'));
    const live = new Set(names);
    for (const d of listDirs(p.dir)) {
      if (!live.has(d)) {
        opts.logger.warn({ dir: join(p.dir, d) }, 'removing part not listed in the manifest (left by a crash or an interrupted merge)');
        removeDir(join(p.dir, d));
      }
    }
    for (const n of names) p.#parts.push(DataPart.open(p.dir, n, opts.cache, opts.valuesCache));
    return p;
  }

  /** create makes a new, empty partition directory. */
  static create(dataDir: string, name: string, opts: PartitionOptions): Partition {
    const p = new Partition(dataDir, name, opts);
    mkdirp(p.dir);
    writeManifest(p.dir, []);
    fsyncDir(dataDir);
    return p;
  }

  /** parts are the live parts; take a reference (acquire) to read one across an await. */
  get parts(): readonly DataPart[] {
    return this.#parts;
  }

  /**
   * install makes a part a flush wrote (in place, unlisted) live: searches see it at once; the
   * returned promise resolves when the manifest listing it is durable.
   */
  install(written: WrittenPart): Promise<void> {
    this.#parts.push(DataPart.open(this.dir, written.name, this.#opts.cache, this.#opts.valuesCache));
    return this.#manifest.persist();
  }

  /** mergeOnce runs one merge the policy finds worth it; returns whether it merged. */
  async mergeOnce(opts: MergeSettings): Promise<boolean> {
    const names = pickPartsToMerge(this.#candidates(), this.#opts.mergePolicy ?? DEFAULT_MERGE_POLICY);
    if (names.length === 0) return false;
    await this.#merge(names, opts);
    return true;
  }

  /**
   * forceMerge merges every part into as few as the size cap allows (also a lone part when
   * `rewriteSingle`, so retention and deletions are applied to it).
   */
  async forceMerge(opts: MergeSettings, rewriteSingle = false): Promise<void> {
    const c = this.#candidates();
    const max = (this.#opts.mergePolicy ?? DEFAULT_MERGE_POLICY).maxOutputBytes;
    const groups = c.length === 1 && rewriteSingle ? [[c[0]!.name]] : pickPartsForForceMerge(c, max);
    for (const g of groups) await this.#merge(g, opts);
  }

  #candidates(): { name: string; sizeBytes: number }[] {
    return this.#parts.filter((p) => !this.#merging.has(p.name)).map((p) => ({ name: p.name, sizeBytes: p.meta.sizeBytes }));
  }

  async #merge(names: string[], opts: MergeSettings): Promise<void> {
    const inputs = this.#parts.filter((p) => names.includes(p.name));
    for (const p of inputs) {
      this.#merging.add(p.name);
      p.acquire();
    }
    this.mergesRunning++;
    const name = newPartName();
    try {
      const { runner, signal, ...settings } = opts;
      const meta = await runner.merge({ ...settings, partitionDir: this.dir, inputs: inputs.map((p) => p.name), outName: name }, signal);
      if (this.#dropped) return;
      const output = meta ? [DataPart.open(this.dir, name, this.#opts.cache, this.#opts.valuesCache)] : [];
      this.#parts = [...this.#parts.filter((p) => !inputs.includes(p)), ...output];
      await this.#manifest.persist();
      // Only now, with the manifest no longer listing them, may the inputs go.
      for (const p of inputs) {
        p.release();
        removeDir(join(this.dir, p.name));
      }
      this.mergesDone++;
    } catch (err) {
      throw new Error(`cannot merge ${inputs.length} parts of partition "${this.name}": ${errorMessage(err)}`, { cause: err });
    } finally {
      this.mergesRunning--;
      for (const p of inputs) {
        this.#merging.delete(p.name);
        p.release();
      }
    }
  }

  /** rowsCount and sizeBytes sum over live parts. */
  get rowsCount(): number {
    return this.#parts.reduce((n, p) => n + p.meta.rowsCount, 0);
  }

  get sizeBytes(): number {
    return this.#parts.reduce((n, p) => n + p.meta.sizeBytes, 0);
  }

  /**
   * drop deletes the whole partition: the manifest goes first, so a crash halfway leaves a
   * directory that open() recognises as garbage.
   */
  async drop(): Promise<void> {
    this.#dropped = true;
    await this.#manifest.stop();
    const manifest = join(this.dir, MANIFEST_FILE);
    if (existsSync(manifest)) unlinkSync(manifest);
    fsyncDir(this.dir);
    this.close();
    removeDir(this.dir);
  }

  /** close releases the live parts (readers holding references keep theirs). */
  close(): void {
    for (const p of this.#parts) p.release();
    this.#parts = [];
  }
}
