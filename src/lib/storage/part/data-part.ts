import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { type BlockFields, type NaNReport, decodeBlock } from './block-decode.ts';
import { type ReadBufferPool, SpanReader, type Wanted } from './span-read.ts';
import { decompress, decompressTransient } from '../encoding/zstd.ts';
import { ENC_ZSTD } from '../encoding/timestamps.ts';
import { maxValueStreamBytes } from '../encoding/values-decode.ts';
import { CorruptDataError, errorMessage } from '../common/errors.ts';
import type { LruCache } from '../common/lru-cache.ts';
import {
  BLOCK_HEADER_BYTES, DATA_FORMAT_VERSION, type BlockHeaders, type MetaindexRow, type PartMeta, decodeBlockHeaders, decodeMetaindex,
} from './part-format.ts';

let nextUid = 1;

/**
 * DataPart is an open, immutable data part. The metaindex lives in memory; header groups are
 * decoded on demand through a shared cache; sample blocks are read with pread and decoded by
 * the caller's request. Reference-counted like IndexPart: files close with the last reference.
 */
export class DataPart {
  readonly name: string;
  readonly path: string;
  readonly uid = nextUid++;
  readonly meta: PartMeta;
  readonly metaindex: readonly MetaindexRow[];
  readonly #cache: LruCache<BlockHeaders>;
  readonly #values: LruCache<Uint8Array> | undefined;
  readonly #tsFd: number;
  readonly #valFd: number;
  readonly #indexFd: number;
  #refs = 1;
  #scratch = Buffer.allocUnsafe(1 << 16);

  private constructor(partitionDir: string, name: string, cache: LruCache<BlockHeaders>, values: LruCache<Uint8Array> | undefined) {
    this.name = name;
    this.path = join(partitionDir, name);
    this.#cache = cache;
    this.#values = values;
    const opened: number[] = [];
    try {
      this.meta = JSON.parse(readFileSync(join(this.path, 'metadata.json'), 'utf8')) as PartMeta;
      if (this.meta.formatVersion !== 1 && this.meta.formatVersion !== DATA_FORMAT_VERSION) throw new CorruptDataError(`unsupported format version ${String(this.meta.formatVersion)}`);
      const what = `metaindex of part "${this.path}"`;
      this.metaindex = decodeMetaindex(decompress(readFileSync(join(this.path, 'metaindex.bin')), 1 << 30, what), what);
      for (const f of ['timestamps.bin', 'values.bin', 'index.bin']) opened.push(openSync(join(this.path, f), 'r'));
    } catch (err) {
      for (const fd of opened) closeSync(fd);
      throw new Error(`cannot open part "${this.path}": ${errorMessage(err)}`, { cause: err });
    }
    [this.#tsFd, this.#valFd, this.#indexFd] = opened as [number, number, number];
  }

  /**
   * open reads the metadata and metaindex of partitionDir/name. values, when given, caches the
   * decompressed value streams of blocks that searches decode only the newest samples of.
   */
  static open(partitionDir: string, name: string, cache: LruCache<BlockHeaders>, values?: LruCache<Uint8Array>): DataPart {
    return new DataPart(partitionDir, name, cache, values);
  }

  #read(fd: number, offset: number, size: number, what: string): Buffer {
    if (this.#scratch.length < size) this.#scratch = Buffer.allocUnsafe(Math.max(size, this.#scratch.length * 2));
    const n = readSync(fd, this.#scratch, 0, size, offset);
    if (n !== size) throw new CorruptDataError(`cannot read ${what}: short read (${n} of ${size} bytes at ${offset})`);
    return this.#scratch.subarray(0, size);
  }

  /** headers returns header group g. */
  headers(g: number): BlockHeaders {
    const key = `${this.uid}:${g}`;
    const hit = this.#cache.get(key);
    if (hit) return hit;
    const row = this.metaindex[g]!;
    const what = `header group ${g} of part "${this.path}"`;
    const raw = this.#read(this.#indexFd, row.offset, row.size, what);
    const want = row.count * BLOCK_HEADER_BYTES;
    const plain = raw.length === want ? raw : decompressTransient(raw, want, what);
    const h = decodeBlockHeaders(plain, row.count, what);
    this.#cache.set(key, h, want + 200);
    return h;
  }

  /**
   * readBlock decodes block j of header group h into outTs/outVals at off (room for h.rows[j]
   * samples is the caller's job). Throws CorruptDataError when the block does not decode or does
   * not end at the header's maxTs.
   */
  readBlock(h: BlockHeaders, j: number, outTs: Float64Array, outVals: Float64Array, off: number): void {
    void this.#decodeBlock(h, j, outTs, outVals, off, (which, offset, size, what) => this.#read(which === 'ts' ? this.#tsFd : this.#valFd, offset, size, what));
  }

  /**
   * sequentialReader returns a block reader for a pass over the part in file order (merges): it
   * reads ahead in 256 KiB chunks instead of two small preads per block.
   */
  sequentialReader(): BlockReader {
    return this.#aheadReader(READ_AHEAD_BYTES, READ_AHEAD_BYTES);
  }

  /**
   * searchReader returns a block reader for a search (reads at growing offsets that may skip
   * much of the part): given what the search will want next, each read spans the nearby wanted
   * blocks (span-read.ts); without it, each block is read alone. Its read buffers come from pool
   * (when given) and go back on release.
   */
  searchReader(wanted?: Wanted, pool?: ReadBufferPool): SearchBlockReader {
    const ts = new SpanReader(this.#tsFd, false, wanted, pool);
    const vals = new SpanReader(this.#valFd, true, wanted, pool);
    const cache = this.#values;
    // Every block of a search passes here: no object, closure or message text per block. The
    // caller names the series when a block does not decode (SeriesBlockCursor.readSeries).
    const what = `a block of part "${this.path}"`;
    const b = emptyBlockFields();
    let vh: BlockHeaders | undefined;
    let vj = 0;
    const readVals = (): Uint8Array => vals.read(vh!, vj, what);
    const release = (): void => {
      ts.release();
      vals.release();
    };
    const read: BlockReader = (h, j, outTs, outVals, off, minTs, nan) => {
      const tsBytes = ts.read(h, j, what);
      setBlockFields(b, h, j);
      vh = h;
      vj = j;
      if (cache !== undefined && (b.valEnc & ENC_ZSTD) !== 0 && minTs !== undefined && minTs > b.minTs) {
        // A tail decode (an instant query's window) needs a few samples, but the whole frame is
        // inflated first: that, not the decoding, is its cost, so the inflated stream is kept.
        const plain = this.#plainValues(cache, h, j, readVals, what);
        b.valEnc &= ~ENC_ZSTD;
        return decodeBlock(b, tsBytes, () => plain, outTs, outVals, off, what, minTs, nan);
      }
      return decodeBlock(b, tsBytes, readVals, outTs, outVals, off, what, minTs, nan);
    };
    return { read, release };
  }

  // plainValues returns the decompressed value stream of block j of h from cache, reading and
  // inflating it (then caching a copy) on a miss.
  #plainValues(cache: LruCache<Uint8Array>, h: BlockHeaders, j: number, read: () => Uint8Array, what: string): Uint8Array {
    const key = `${this.uid}:${h.valOffsets[j]!}`;
    const hit = cache.get(key);
    if (hit !== undefined) return hit;
    const plain = decompress(read(), maxValueStreamBytes(h.rows[j]!), what);
    cache.set(key, plain, plain.length + 96);
    return plain;
  }

  #aheadReader(minWindow: number, maxWindow: number): BlockReader {
    const ts = new ReadAhead(this.#tsFd, minWindow, maxWindow);
    const vals = new ReadAhead(this.#valFd, minWindow, maxWindow);
    // One source for every block (merges call this per block: no closure each time).
    const source: ByteSource = (which, offset, size, what) => (which === 'ts' ? ts : vals).read(offset, size, what);
    return (h, j, outTs, outVals, off, minTs, nan) => this.#decodeBlock(h, j, outTs, outVals, off, source, minTs, nan);
  }

  #decodeBlock(h: BlockHeaders, j: number, outTs: Float64Array, outVals: Float64Array, off: number, read: ByteSource, minTs = -Infinity, nan?: NaNReport): number {
    const what = `block of series ${h.seriesIds[j]} in part "${this.path}"`;
    const tsBytes = read('ts', h.tsOffsets[j]!, h.tsSizes[j]!, what);
    return decodeBlock(blockFields(h, j), tsBytes, () => read('vals', h.valOffsets[j]!, h.valSizes[j]!, what), outTs, outVals, off, what, minTs, nan);
  }

  /**
   * rawSearchReader returns a reader of the stored (still encoded) bytes of blocks, reading as
   * searchReader does: the two views it returns stay valid until its next call.
   */
  rawSearchReader(wanted?: Wanted): RawBlockReader {
    const ts = new SpanReader(this.#tsFd, false, wanted);
    const vals = new SpanReader(this.#valFd, true, wanted);
    return (h, j) => {
      const what = `block of series ${h.seriesIds[j]} in part "${this.path}"`;
      return [ts.read(h, j, what), vals.read(h, j, what)];
    };
  }

  acquire(): void {
    this.#refs++;
  }

  /** release drops one reference; the last one closes the files. */
  release(): void {
    if (--this.#refs !== 0) return;
    closeSync(this.#tsFd);
    closeSync(this.#valFd);
    closeSync(this.#indexFd);
    this.#cache.deletePrefix(`${this.uid}:`);
    this.#values?.deletePrefix(`${this.uid}:`);
  }
}

/**
 * BlockReader decodes block j of header group h into outTs/outVals at off (room for all its rows
 * is the caller's job). Given minTs, it may decode only the samples at or after minTs, at their
 * places off+lo.. of the outputs (decoding backwards from the block's end): it returns lo, 0 when
 * it decoded the whole block. nan: as decodeBlock's.
 */
export type BlockReader = (h: BlockHeaders, j: number, outTs: Float64Array, outVals: Float64Array, off: number, minTs?: number, nan?: NaNReport) => number;

/** SearchBlockReader is a search's BlockReader and the release of its read buffers, once the search ends. */
export interface SearchBlockReader {
  readonly read: BlockReader;
  release(): void;
}

/** RawBlockReader returns the timestamp and value streams of block j of header group h, as stored. */
export type RawBlockReader = (h: BlockHeaders, j: number) => [Uint8Array, Uint8Array];

/** blockFields picks the fields of block j that decoding needs. */
export function blockFields(h: BlockHeaders, j: number): BlockFields {
  return { rows: h.rows[j]!, minTs: h.minTs[j]!, maxTs: h.maxTs[j]!, tsEnc: h.tsEnc[j]!, valEnc: h.valEnc[j]! };
}

export type MutableBlockFields = { -readonly [K in keyof BlockFields]: BlockFields[K] };

/** emptyBlockFields makes the object setBlockFields refills for each block. */
export function emptyBlockFields(): MutableBlockFields {
  return { rows: 0, minTs: 0, maxTs: 0, tsEnc: 0, valEnc: 0 };
}

/** setBlockFields is blockFields into an object reused across blocks. */
export function setBlockFields(b: MutableBlockFields, h: BlockHeaders, j: number): void {
  b.rows = h.rows[j]!;
  b.minTs = h.minTs[j]!;
  b.maxTs = h.maxTs[j]!;
  b.tsEnc = h.tsEnc[j]!;
  b.valEnc = h.valEnc[j]!;
}

type ByteSource = (which: 'ts' | 'vals', offset: number, size: number, what: string) => Uint8Array;

const READ_AHEAD_BYTES = 256 * 1024;

/**
 * ReadAhead serves reads at growing offsets of one file from a buffer refilled in chunks. The
 * chunk doubles (minWindow up to maxWindow) while each refill starts near the previous chunk,
 * and drops back to minWindow after a jump.
 */
class ReadAhead {
  readonly #fd: number;
  readonly #minWindow: number;
  readonly #maxWindow: number;
  #window: number;
  #buf = Buffer.allocUnsafe(0);
  #start = 0;
  #end = 0;

  constructor(fd: number, minWindow: number, maxWindow: number) {
    this.#fd = fd;
    this.#minWindow = minWindow;
    this.#maxWindow = maxWindow;
    this.#window = minWindow;
  }

  read(offset: number, size: number, what: string): Buffer {
    if (offset < this.#start || offset + size > this.#end) {
      const near = this.#end > 0 && offset >= this.#start && offset < this.#end + this.#window;
      this.#window = near ? Math.min(this.#maxWindow, this.#window * 2) : this.#minWindow;
      const want = Math.max(size, this.#window);
      if (this.#buf.length < want) this.#buf = Buffer.allocUnsafe(Math.max(want, Math.min(this.#maxWindow, 2 * this.#buf.length)));
      const n = readSync(this.#fd, this.#buf, 0, want, offset);
      if (n < size) throw new CorruptDataError(`cannot read ${what}: short read (${n} of ${size} bytes at ${offset})`);
      this.#start = offset;
      this.#end = offset + n;
    }
    return this.#buf.subarray(offset - this.#start, offset - this.#start + size);
  }
}
