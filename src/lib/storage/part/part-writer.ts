import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ByteWriter } from '../../bytes/index.ts';
import { encodeTimestamps } from '../encoding/timestamps.ts';
import { ValueEncoder } from '../encoding/values.ts';
import { compress, maybeCompress } from '../encoding/zstd.ts';
import { BufferedFile, writeFileSynced } from '../common/fs-util.ts';
import {
  BLOCK_HEADER_BYTES, DATA_FORMAT_VERSION, HEADERS_PER_GROUP, MAX_BLOCK_ROWS, type PartMeta, writeBlockHeader, writeMetaindexRow,
} from './part-format.ts';

/** PART_FILES are the files of a data part; every one is written once and never changed. */
export const PART_FILES = ['timestamps.bin', 'values.bin', 'index.bin', 'metaindex.bin', 'metadata.json'] as const;

/**
 * PartWriter writes one data part into a new directory. Series come in ascending ID order, each
 * with ascending, duplicate-free timestamps; long series are split into blocks. Synchronous and
 * single-use: call finish() (fsyncs everything) or abort().
 */
export class PartWriter {
  readonly dir: string;
  readonly #ts: BufferedFile;
  readonly #vals: BufferedFile;
  readonly #index: BufferedFile;
  readonly #zstdLevel: number;
  readonly #valueEncoder: ValueEncoder;
  readonly #tsBuf = new ByteWriter(1 << 16);
  readonly #valBuf = new ByteWriter(1 << 16);
  readonly #group = new ByteWriter(HEADERS_PER_GROUP * BLOCK_HEADER_BYTES);
  readonly #metaindex = new ByteWriter(4096);
  #groupCount = 0;
  #groupFirstId = 0;
  #groupLastId = 0;
  #groupMinTs = Infinity;
  #groupMaxTs = -Infinity;
  #lastId = -1;
  #rows = 0;
  #blocks = 0;
  #minTs = Infinity;
  #maxTs = -Infinity;
  #minId = Infinity;

  constructor(dir: string, zstdLevel: number) {
    this.dir = dir;
    this.#zstdLevel = zstdLevel;
    this.#valueEncoder = new ValueEncoder(zstdLevel);
    mkdirSync(dir, { recursive: true });
    this.#ts = new BufferedFile(join(dir, 'timestamps.bin'));
    this.#vals = new BufferedFile(join(dir, 'values.bin'));
    this.#index = new BufferedFile(join(dir, 'index.bin'));
  }

  /** rows counts samples written so far. */
  get rows(): number {
    return this.#rows;
  }

  /** addSeries writes samples ts/vals[0..n) of series id (n >= 1). */
  addSeries(id: number, ts: Float64Array, vals: Float64Array, n: number): void {
    if (id <= this.#lastId) throw new Error(`cannot write part "${this.dir}": series ${id} after ${this.#lastId}`);
    this.#lastId = id;
    if (this.#minId === Infinity) this.#minId = id;
    for (let start = 0; start < n; start += MAX_BLOCK_ROWS) this.#writeBlock(id, ts, vals, start, Math.min(n, start + MAX_BLOCK_ROWS));
  }

  #writeBlock(id: number, ts: Float64Array, vals: Float64Array, start: number, end: number): void {
    this.#tsBuf.reset();
    this.#valBuf.reset();
    const tsEnc = encodeTimestamps(ts, start, end, this.#tsBuf, this.#zstdLevel);
    const valEnc = this.#valueEncoder.encode(vals, start, end, this.#valBuf);
    const minTs = ts[start]!;
    const maxTs = ts[end - 1]!;
    if (this.#groupCount === 0) this.#groupFirstId = id;
    writeBlockHeader(this.#group, id, minTs, maxTs, this.#ts.size, this.#vals.size, end - start, this.#tsBuf.pos, this.#valBuf.pos, tsEnc, valEnc);
    // The writers' buffers are copied by range: a view per stream and block (bytes()) was most
    // of the rest of a flush's allocation.
    this.#ts.writeRange(this.#tsBuf.buf, 0, this.#tsBuf.pos);
    this.#vals.writeRange(this.#valBuf.buf, 0, this.#valBuf.pos);
    this.#groupCount++;
    this.#groupLastId = id;
    this.#groupMinTs = Math.min(this.#groupMinTs, minTs);
    this.#groupMaxTs = Math.max(this.#groupMaxTs, maxTs);
    this.#rows += end - start;
    this.#blocks++;
    this.#minTs = Math.min(this.#minTs, minTs);
    this.#maxTs = Math.max(this.#maxTs, maxTs);
    if (this.#groupCount === HEADERS_PER_GROUP) this.#flushGroup();
  }

  #flushGroup(): void {
    if (this.#groupCount === 0) return;
    const raw = this.#group.bytes();
    // Level 0 (flushes) leaves header groups raw as it leaves blocks raw: flushed parts are merged
    // away soon, and at 100k series a flush's groups cost ~10% of its time to compress and its
    // merge as much again to inflate (readers tell raw groups by their size).
    const data = this.#zstdLevel > 0 ? maybeCompress(raw, this.#zstdLevel) ?? raw : raw;
    writeMetaindexRow(this.#metaindex, {
      firstSeriesId: this.#groupFirstId, lastSeriesId: this.#groupLastId, minTs: this.#groupMinTs, maxTs: this.#groupMaxTs,
      offset: this.#index.size, size: data.length, count: this.#groupCount,
    });
    this.#index.write(data);
    this.#group.reset();
    this.#groupCount = 0;
    this.#groupMinTs = Infinity;
    this.#groupMaxTs = -Infinity;
  }

  /** finish writes the index and metadata, fsyncs every file and returns the metadata. */
  finish(): PartMeta {
    if (this.#rows === 0) throw new Error(`cannot write part "${this.dir}": it has no samples`);
    this.#flushGroup();
    this.#ts.close();
    this.#vals.close();
    this.#index.close();
    const mi = compress(this.#metaindex.bytes(), 3);
    writeFileSynced(join(this.dir, 'metaindex.bin'), mi);
    const partial = { formatVersion: DATA_FORMAT_VERSION, rowsCount: this.#rows, blocksCount: this.#blocks, minTimestamp: this.#minTs, maxTimestamp: this.#maxTs, minSeriesId: this.#minId, maxSeriesId: this.#lastId };
    const meta: PartMeta = { ...partial, sizeBytes: this.#ts.size + this.#vals.size + this.#index.size + mi.length };
    writeFileSynced(join(this.dir, 'metadata.json'), JSON.stringify(meta) + '\n');
    return meta;
  }

  abort(): void {
    this.#ts.abort();
    this.#vals.abort();
    this.#index.abort();
  }
}
