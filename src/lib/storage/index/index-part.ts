import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { ByteReader } from '../../bytes/index.ts';
import { decompress } from '../encoding/zstd.ts';
import { CorruptDataError, errorMessage } from '../common/errors.ts';
import type { LruCache } from '../common/lru-cache.ts';
import type { IndexPartMeta } from './index-part-writer.ts';

let nextUid = 1;

/**
 * IndexPart is an open, immutable index part: its metaindex (first item of every block) lives in
 * memory, blocks are read on demand through a shared cache. Reference-counted: the table holds
 * one reference while the part is live, every reader takes one for as long as it reads; the file
 * closes when the last reference goes.
 */
export class IndexPart {
  readonly name: string;
  readonly dir: string;
  readonly uid = nextUid++;
  readonly meta: IndexPartMeta;
  /** firstItems[i] is the smallest item of block i. */
  readonly firstItems: string[] = [];
  readonly #offsets: number[] = [];
  readonly #sizes: number[] = [];
  readonly #rawSizes: number[] = [];
  readonly #counts: number[] = [];
  readonly #packed: boolean[] = [];
  readonly #cache: LruCache<string[]>;
  #fd: number;
  #refs = 1;

  private constructor(dir: string, name: string, cache: LruCache<string[]>) {
    this.dir = dir;
    this.name = name;
    this.#cache = cache;
    const path = join(dir, name);
    try {
      this.meta = JSON.parse(readFileSync(join(path, 'metadata.json'), 'utf8')) as IndexPartMeta;
      if (this.meta.formatVersion !== 1) throw new CorruptDataError(`unsupported format version ${String(this.meta.formatVersion)}`);
      const mi = decompress(readFileSync(join(path, 'metaindex.bin')), 1 << 30, `metaindex of index part "${path}"`);
      this.#parseMetaindex(mi, path);
      this.#fd = openSync(join(path, 'items.bin'), 'r');
    } catch (err) {
      throw new Error(`cannot open index part "${path}": ${errorMessage(err)}`, { cause: err });
    }
  }

  /** open reads the metadata and metaindex of the part dir/name. */
  static open(dir: string, name: string, cache: LruCache<string[]>): IndexPart {
    return new IndexPart(dir, name, cache);
  }

  #parseMetaindex(mi: Uint8Array, path: string): void {
    const r = new ByteReader(mi, `metaindex of index part "${path}"`);
    const latin1 = Buffer.from(mi.buffer, mi.byteOffset, mi.byteLength);
    while (r.remaining() > 0) {
      const len = r.readUvarint();
      r.need(len);
      this.firstItems.push(latin1.toString('latin1', r.pos, r.pos + len));
      r.pos += len;
      this.#counts.push(r.readUvarint());
      this.#offsets.push(r.readUvarint());
      this.#sizes.push(r.readUvarint());
      this.#rawSizes.push(r.readUvarint());
      this.#packed.push(r.readU8() === 1);
    }
    if (this.firstItems.length !== this.meta.blocksCount) r.fail(`has ${this.firstItems.length} blocks, metadata says ${this.meta.blocksCount}`);
  }

  get blocksCount(): number {
    return this.firstItems.length;
  }

  /** sizeBytes is the on-disk size of the items. */
  get sizeBytes(): number {
    return this.meta.itemsBytes;
  }

  /** findBlock returns the last block whose first item is <= key (0 when key is smaller than all). */
  findBlock(key: string): number {
    const f = this.firstItems;
    let lo = 0;
    let hi = f.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (f[mid]! <= key) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** block returns the sorted items of block i. */
  block(i: number): string[] {
    const key = `${this.uid}:${i}`;
    const hit = this.#cache.get(key);
    if (hit) return hit;
    const items = this.#readBlock(i);
    this.#cache.set(key, items, this.#rawSizes[i]! + items.length * 48);
    return items;
  }

  /**
   * blockIds returns, for every item of block i, the series ID its last 8 bytes encode (see
   * tailIds). Items that are a prefix followed by an ID key (the per-day items) give their IDs as
   * a subarray of it, with no decoding per item. Computed on first use and kept as long as the
   * block stays in the cache (its size is added to the block's).
   */
  blockIds(i: number): Float64Array {
    const items = this.block(i);
    let ids = TAIL_IDS.get(items);
    if (ids === undefined) {
      ids = tailIds(items);
      TAIL_IDS.set(items, ids);
      this.#cache.set(`${this.uid}:${i}`, items, this.#rawSizes[i]! + items.length * 56);
    }
    return ids;
  }

  /**
   * texts returns compute()'s list memoized under key for the life of the part (while the cache
   * keeps it): answers derived from the part's items alone, which never change.
   */
  texts(key: string, compute: () => string[]): string[] {
    const k = `${this.uid}:t:${key}`;
    const hit = this.#cache.get(k);
    if (hit) return hit;
    const list = compute();
    let bytes = 64 + k.length;
    for (const t of list) bytes += 2 * t.length + 40;
    this.#cache.set(k, list, bytes);
    return list;
  }

  #readBlock(i: number): string[] {
    const what = `block ${i} of index part "${join(this.dir, this.name)}"`;
    const size = this.#sizes[i]!;
    const buf = Buffer.allocUnsafe(size);
    const n = readSync(this.#fd, buf, 0, size, this.#offsets[i]!);
    if (n !== size) throw new CorruptDataError(`cannot read ${what}: short read (${n} of ${size} bytes)`);
    const raw = this.#packed[i] ? decompress(buf, this.#rawSizes[i]!, what) : buf;
    const r = new ByteReader(raw, what);
    const count = this.#counts[i]!;
    const items: string[] = new Array<string>(count);
    // Items are rebuilt in a scratch buffer so each one is a flat string of its own, not a chain
    // of slices of its predecessors.
    let scratch = Buffer.allocUnsafe(256);
    let prevLen = 0;
    for (let k = 0; k < count; k++) {
      const common = r.readUvarint();
      const len = r.readUvarint();
      if (common > prevLen) r.fail(`prefix ${common} longer than the previous item`);
      r.need(len);
      if (common + len > scratch.length) {
        const bigger = Buffer.allocUnsafe(2 * (common + len));
        scratch.copy(bigger, 0, 0, common);
        scratch = bigger;
      }
      scratch.set(raw.subarray(r.pos, r.pos + len), common);
      r.pos += len;
      prevLen = common + len;
      items[k] = scratch.toString('latin1', 0, prevLen);
    }
    if (r.remaining() !== 0) r.fail(`${r.remaining()} trailing bytes`);
    return items;
  }

  /** has reports whether the part holds exactly this item. */
  has(item: string): boolean {
    if (this.firstItems.length === 0 || item < this.firstItems[0]!) return false;
    const items = this.block(this.findBlock(item));
    return items[lowerBound(items, item)] === item;
  }

  acquire(): void {
    this.#refs++;
  }

  /** release drops one reference; the last one closes the file. */
  release(): void {
    if (--this.#refs === 0) {
      closeSync(this.#fd);
      this.#cache.deletePrefix(`${this.uid}:`);
    }
  }
}

// TAIL_IDS holds blockIds' arrays beside the cached blocks; an evicted block takes its IDs along.
const TAIL_IDS = new WeakMap<readonly string[], Float64Array>();

/** tailIds decodes the big-endian ID key (keys.idKey) ending each item; 0 for items shorter than 8 bytes. */
export function tailIds(items: readonly string[]): Float64Array {
  const ids = new Float64Array(items.length);
  for (let k = 0; k < items.length; k++) {
    const s = items[k]!;
    const p = s.length - 8;
    if (p < 0) continue;
    const hi = ((s.charCodeAt(p) << 24) | (s.charCodeAt(p + 1) << 16) | (s.charCodeAt(p + 2) << 8) | s.charCodeAt(p + 3)) >>> 0;
    const lo = ((s.charCodeAt(p + 4) << 24) | (s.charCodeAt(p + 5) << 16) | (s.charCodeAt(p + 6) << 8) | s.charCodeAt(p + 7)) >>> 0;
    ids[k] = hi * 2 ** 32 + lo;
  }
  return ids;
}

/** lowerBound returns the first index i with items[i] >= key (items.length if none). */
export function lowerBound(items: readonly string[], key: string, lo = 0): number {
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (items[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
