import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { setImmediate as yieldNow } from 'node:timers/promises';
import { join } from 'node:path';
import { ByteWriter } from '../../bytes/index.ts';
import { compress, maybeCompress } from '../encoding/zstd.ts';
import { errorMessage } from '../common/errors.ts';
import { BufferedFile, fsyncDir, newPartName, writeFileSynced } from '../common/fs-util.ts';
import { MergedCursor, PartCursor } from './cursor.ts';
import type { IndexPart } from './index-part.ts';
import { KIND_DAY_LABEL, KIND_DAY_SERIES, KIND_SERIES_BY_LABELS, readDayKey, readTenantKey } from './keys.ts';

/** INDEX_BLOCK_BYTES is the target size of an uncompressed block of items. */
export const INDEX_BLOCK_BYTES = 32 * 1024;

/** IndexPartMeta is metadata.json of an index part. */
export interface IndexPartMeta {
  readonly formatVersion: 1;
  readonly itemsCount: number;
  readonly blocksCount: number;
  /** itemsBytes is the size of items.bin. */
  readonly itemsBytes: number;
  /** maxSeriesId is the highest series ID ever handed out when this part's data was frozen. */
  readonly maxSeriesId: number;
  /** tenantSeries counts series-by-labels items per tenant ("accountID:projectID"). */
  readonly tenantSeries: Readonly<Record<string, number>>;
}

/**
 * IndexPartWriter writes sorted items into a new index part directory. Items must come in
 * ascending order; an item equal to the previous one is skipped. Call finish() or abort().
 */
export class IndexPartWriter {
  readonly dir: string;
  readonly #items: BufferedFile;
  readonly #zstdLevel: number;
  #block = new ByteWriter(INDEX_BLOCK_BYTES + 1024);
  #blockCount = 0;
  #blockFirst = '';
  #prev = '';
  #meta = new ByteWriter(4096);
  #blocks = 0;
  #count = 0;
  #tenantSeries: Record<string, number> = {};

  constructor(dir: string, zstdLevel: number) {
    this.dir = dir;
    this.#zstdLevel = zstdLevel;
    mkdirSync(dir, { recursive: true });
    this.#items = new BufferedFile(join(dir, 'items.bin'));
  }

  add(item: string): void {
    if (this.#count > 0 && item <= this.#prev) {
      if (item === this.#prev) return;
      throw new Error(`cannot write index part "${this.dir}": items out of order`);
    }
    if (this.#blockCount === 0) {
      this.#blockFirst = item;
      this.#prev = '';
    }
    let common = 0;
    const max = Math.min(item.length, this.#prev.length);
    while (common < max && item.charCodeAt(common) === this.#prev.charCodeAt(common)) common++;
    const w = this.#block;
    w.writeUvarint(common);
    w.writeUvarint(item.length - common);
    w.writeLatin1(common === 0 ? item : item.slice(common));
    this.#prev = item;
    this.#blockCount++;
    this.#count++;
    if (item[0] === KIND_SERIES_BY_LABELS) {
      const t = readTenantKey(item, 1);
      const k = `${t.accountID}:${t.projectID}`;
      this.#tenantSeries[k] = (this.#tenantSeries[k] ?? 0) + 1;
    }
    if (w.pos >= INDEX_BLOCK_BYTES) this.#flushBlock();
  }

  #flushBlock(): void {
    if (this.#blockCount === 0) return;
    const raw = this.#block.bytes();
    const packed = maybeCompress(raw, this.#zstdLevel);
    const data = packed ?? raw;
    const m = this.#meta;
    m.writeUvarint(this.#blockFirst.length);
    m.writeLatin1(this.#blockFirst);
    m.writeUvarint(this.#blockCount);
    m.writeUvarint(this.#items.size);
    m.writeUvarint(data.length);
    m.writeUvarint(raw.length);
    m.writeU8(packed ? 1 : 0);
    this.#items.write(data);
    this.#blocks++;
    this.#block.reset();
    this.#blockCount = 0;
  }

  /** finish writes the remaining files, fsyncs them and returns the part's metadata. */
  finish(maxSeriesId: number): IndexPartMeta {
    this.#flushBlock();
    this.#items.close();
    writeFileSynced(join(this.dir, 'metaindex.bin'), compress(this.#meta.bytes(), 3));
    const meta: IndexPartMeta = {
      formatVersion: 1,
      itemsCount: this.#count,
      blocksCount: this.#blocks,
      itemsBytes: this.#items.size,
      maxSeriesId,
      tenantSeries: this.#tenantSeries,
    };
    writeFileSynced(join(this.dir, 'metadata.json'), JSON.stringify(meta) + '\n');
    return meta;
  }

  abort(): void {
    this.#items.abort();
  }
}

/**
 * writeIndexPart writes a new index part of dir: under tmp/ first, every file fsynced, then
 * renamed into place, so a crash leaves at most a tmp dir (removed at open). Returns its name;
 * the caller lists it in the manifest.
 */
export async function writeIndexPart(dir: string, zstdLevel: number, maxSeriesId: number, fill: (w: IndexPartWriter) => Promise<void>): Promise<string> {
  const name = newPartName();
  const tmp = join(dir, 'tmp', name);
  const w = new IndexPartWriter(tmp, zstdLevel);
  try {
    await fill(w);
    w.finish(maxSeriesId);
    fsyncDir(tmp);
    renameSync(tmp, join(dir, name));
    fsyncDir(dir);
    return name;
  } catch (err) {
    w.abort();
    rmSync(tmp, { recursive: true, force: true });
    throw new Error(`cannot write index part "${tmp}": ${errorMessage(err)}`, { cause: err });
  }
}

/**
 * copyMergedItems writes the union of the inputs' items to w, leaving out per-day items of days
 * before cutoffDay (retention); global items stay (FORMAT.md). Yields to the event loop as it
 * goes and stops when signal aborts.
 */
export async function copyMergedItems(inputs: readonly IndexPart[], w: IndexPartWriter, cutoffDay: number, signal: AbortSignal): Promise<void> {
  const c = new MergedCursor(inputs.map((p) => new PartCursor(p)));
  for (let n = 0; c.current !== undefined; c.next(), n++) {
    const item = c.current;
    const kind = item[0];
    if ((kind === KIND_DAY_LABEL || kind === KIND_DAY_SERIES) && readDayKey(item, 9) < cutoffDay) continue;
    w.add(item);
    if (n % 8192 === 8191) {
      await yieldNow();
      signal.throwIfAborted();
    }
  }
}
