// The samples of one series as a storage node ships them to a select node (FORMAT.md, "Storage
// node RPC", searchSeries): the part blocks as stored (header fields + encoded streams) and the
// not yet flushed rows as plain samples. The select side decodes them with the engine's own block
// decoder and applies the same per-series steps as the engine's search (block-decode.ts), so a
// series read through a node equals one read in-process, and the node does no decoding at all.
//
// Item stream (items never straddle a chunk; a series' chunks are read in order):
//   0x01 PART                     the blocks that follow come from one more part
//   0x02 BLOCK  f64 minTs | f64 maxTs | uvarint rows | u8 tsEnc | u8 valEnc |
//               uvarint tsSize | tsSize bytes | uvarint valSize | valSize bytes
//   0x03 ROWS   uvarint n | n × f64 timestamp | n × f64 value      (buffered rows, arrival order)

import type { Labels, SearchQuery, SeriesSamples } from '../storageapi/api.ts';
import { appendSourceBlock, type BlockFields, decodeBlock, finishSeries, followsOn } from './part/block-decode.ts';
import { ByteReader, ByteWriter } from '../bytes/index.ts';
import { MAX_BLOCK_ROWS } from './part/part-format.ts';
import { SeriesScratch } from './part/series-scratch.ts';

export const ITEM_PART = 0x01;
export const ITEM_BLOCK = 0x02;
export const ITEM_ROWS = 0x03;

/** CHUNK_BYTES: a series' items are cut into chunks of about this size (one frame each). */
export const CHUNK_BYTES = 512 * 1024;
// ROWS items carry at most this many samples (1 MiB), so a chunk stays near CHUNK_BYTES.
const ROWS_PER_ITEM = 65_536;

/**
 * SeriesBlocks is one series of a block search: its labels, the range and the deduplication
 * interval the decoding side must apply, and its items in chunks (owned by the receiver, or lent
 * until it asks for the next series when it searched with SearchQuery.borrow).
 */
export interface SeriesBlocks {
  readonly labels: Labels;
  readonly minTs: number;
  readonly maxTs: number;
  readonly dedupMs: number;
  readonly chunks: readonly Uint8Array[];
}

/** SeriesBlockSearcher is a storage that can answer searchSeries with SeriesBlocks. */
export interface SeriesBlockSearcher {
  searchSeriesBlocks(q: SearchQuery, signal: AbortSignal): AsyncIterable<SeriesBlocks>;
}

/** SeriesBlocksWriter builds the chunks of one series after another (reused across series). */
export class SeriesBlocksWriter {
  readonly #w = new ByteWriter(64 * 1024);
  #chunks: Uint8Array[] = [];
  #items = 0;

  begin(): void {
    this.#w.reset();
    this.#chunks = [];
    this.#items = 0;
  }

  part(): void {
    this.#w.writeU8(ITEM_PART);
    this.#item();
  }

  block(b: BlockFields, ts: Uint8Array, vals: Uint8Array): void {
    const w = this.#w;
    w.writeU8(ITEM_BLOCK);
    w.writeF64(b.minTs);
    w.writeF64(b.maxTs);
    w.writeUvarint(b.rows);
    w.writeU8(b.tsEnc);
    w.writeU8(b.valEnc);
    w.writeUvarint(ts.length);
    w.writeBytes(ts);
    w.writeUvarint(vals.length);
    w.writeBytes(vals);
    this.#item();
  }

  /** rows appends n plain samples (raw little-endian doubles: NaN payloads survive). */
  rows(ts: Float64Array, vals: Float64Array, n: number): void {
    for (let from = 0; from < n; from += ROWS_PER_ITEM) {
      const k = Math.min(ROWS_PER_ITEM, n - from);
      const w = this.#w;
      w.writeU8(ITEM_ROWS);
      w.writeUvarint(k);
      w.writeBytes(new Uint8Array(ts.buffer, ts.byteOffset + from * 8, k * 8));
      w.writeBytes(new Uint8Array(vals.buffer, vals.byteOffset + from * 8, k * 8));
      this.#item();
    }
  }

  /** empty: nothing was written since begin. */
  get empty(): boolean {
    return this.#items === 0;
  }

  /**
   * end returns the series' chunks: copies (the writer is reused), or with lend the last one a
   * view of the writer's memory, valid until the next begin (SearchQuery.borrow).
   */
  end(lend = false): Uint8Array[] {
    if (this.#w.pos === 0) return this.#chunks;
    if (lend) this.#chunks.push(this.#w.bytes());
    else this.#cut();
    return this.#chunks;
  }

  #item(): void {
    this.#items++;
    if (this.#w.pos >= CHUNK_BYTES) this.#cut();
  }

  #cut(): void {
    this.#chunks.push(Buffer.from(this.#w.bytes()));
    this.#w.reset();
  }
}

/**
 * plainSeriesBlocks wraps finished samples (a searcher without block search) as SeriesBlocks;
 * w is a writer to reuse across series (its chunks are copies).
 */
export function plainSeriesBlocks(s: SeriesSamples, w = new SeriesBlocksWriter()): SeriesBlocks {
  w.begin();
  w.rows(s.timestamps, s.values, s.timestamps.length);
  return { labels: s.labels, minTs: -Infinity, maxTs: Infinity, dedupMs: 0, chunks: w.end() };
}

/**
 * SeriesBlocksDecoder turns the chunks of one series after another back into samples, with the
 * engine's block decoder. Malformed input throws CorruptDataError naming the series; the decoder
 * is then usable for the next series after begin.
 */
export class SeriesBlocksDecoder {
  readonly scratch = new SeriesScratch();
  #what = '';
  #parts = 0;
  // Buffered rows arrived, or a part's samples did not follow on from the previous part's.
  #unordered = false;
  #lastTs = -Infinity;

  begin(what: string): void {
    this.scratch.reset();
    this.#what = what;
    this.#parts = 0;
    this.#unordered = false;
    this.#lastTs = -Infinity;
  }

  /** push decodes the items of one chunk for a search of [minTs, maxTs]. */
  push(chunk: Uint8Array, minTs: number, maxTs: number): void {
    const r = new ByteReader(chunk, this.#what);
    const s = this.scratch;
    while (r.remaining() > 0) {
      const item = r.readU8();
      if (item === ITEM_PART) {
        this.#parts++;
        this.#lastTs = -Infinity;
      } else if (item === ITEM_BLOCK) {
        if (this.#parts === 0) r.fail('a block before any part');
        const b: BlockFields = { minTs: r.readF64(), maxTs: r.readF64(), rows: r.readUvarint(), tsEnc: r.readU8(), valEnc: r.readU8() };
        if (b.rows < 1 || b.rows > MAX_BLOCK_ROWS) r.fail(`a block of ${b.rows} rows`);
        if (!(b.minTs <= b.maxTs) || !Number.isSafeInteger(b.minTs) || !Number.isSafeInteger(b.maxTs)) r.fail(`a block from ${b.minTs} to ${b.maxTs}`);
        const ts = r.readBytes(r.readUvarint());
        const vals = r.readBytes(r.readUvarint());
        const from = s.n;
        appendSourceBlock(s, b, this.#lastTs, minTs, maxTs, (fromTs) => decodeBlock(b, ts, () => vals, s.ts, s.vals, s.n, this.#what, fromTs, s), this.#what);
        // A part's first block: its samples must follow on from what came before (search.ts).
        if (this.#lastTs === -Infinity && !followsOn(s, from)) this.#unordered = true;
        this.#lastTs = b.maxTs;
      } else if (item === ITEM_ROWS) {
        const n = r.readUvarint();
        if (n < 1 || n * 16 > r.remaining()) r.fail(`${n} rows in ${r.remaining()} bytes`);
        s.ensure(n);
        new Uint8Array(s.ts.buffer, s.ts.byteOffset + s.n * 8, n * 8).set(r.readBytes(n * 8));
        new Uint8Array(s.vals.buffer, s.vals.byteOffset + s.n * 8, n * 8).set(r.readBytes(n * 8));
        s.n += n;
        s.mayHoldNaN = true;
        this.#unordered = true;
      } else {
        r.fail(`unknown item 0x${item.toString(16)}`);
      }
    }
  }

  /** finish applies the search's per-series steps; returns [lo, hi) of scratch inside [minTs, maxTs]. */
  finish(dedupMs: number, minTs: number, maxTs: number): [number, number] {
    return finishSeries(this.scratch, this.#unordered, dedupMs, minTs, maxTs);
  }
}
