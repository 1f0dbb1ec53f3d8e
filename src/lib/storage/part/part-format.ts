import { ByteReader, type ByteWriter } from '../../bytes/index.ts';

// Data part layout (FORMAT.md "Data parts"): samples are stored per series in blocks of at
// most MAX_BLOCK_ROWS rows, sorted by (series ID, first timestamp). Every block has a header;
// headers are grouped HEADERS_PER_GROUP at a time into compressed header groups (index.bin), and
// the metaindex (metaindex.bin) has one row per group so a reader can skip to the right group.

/** MAX_BLOCK_ROWS caps the samples of one block (a day of 10s scrapes fits). */
export const MAX_BLOCK_ROWS = 8192;
/** HEADERS_PER_GROUP is how many block headers share one compressed group. */
export const HEADERS_PER_GROUP = 256;
/** BLOCK_HEADER_BYTES is the fixed size of an encoded block header. */
export const BLOCK_HEADER_BYTES = 56;
/** METAINDEX_ROW_BYTES is the fixed size of an encoded metaindex row. */
export const METAINDEX_ROW_BYTES = 48;

/**
 * DATA_FORMAT_VERSION is written into new data parts: 2 since the timestamp and value streams
 * may use the tail encodings (FORMAT.md); parts of version 1 are read as well.
 */
export const DATA_FORMAT_VERSION = 2 as const;

/** PartMeta is metadata.json of a data part. */
export interface PartMeta {
  readonly formatVersion: 1 | 2;
  readonly rowsCount: number;
  readonly blocksCount: number;
  readonly minTimestamp: number;
  readonly maxTimestamp: number;
  readonly minSeriesId: number;
  readonly maxSeriesId: number;
  /** sizeBytes sums the part's .bin files (metadata.json aside). */
  readonly sizeBytes: number;
}

/** BlockHeaders is a decoded header group, column by column. */
export interface BlockHeaders {
  readonly count: number;
  readonly seriesIds: Float64Array;
  readonly minTs: Float64Array;
  readonly maxTs: Float64Array;
  readonly tsOffsets: Float64Array;
  readonly valOffsets: Float64Array;
  readonly rows: Uint32Array;
  readonly tsSizes: Uint32Array;
  readonly valSizes: Uint32Array;
  readonly tsEnc: Uint8Array;
  readonly valEnc: Uint8Array;
}

/** BlockHeader is one block header as the writer produces it. */
export interface BlockHeader {
  seriesId: number;
  minTs: number;
  maxTs: number;
  tsOffset: number;
  valOffset: number;
  rows: number;
  tsSize: number;
  valSize: number;
  tsEnc: number;
  valEnc: number;
}

/**
 * writeBlockHeader appends the fixed 56-byte form of a block header, its fields (BlockHeader's)
 * given one by one: the part writer calls it once per block, and at 100k series a header object
 * per block was a third of a flush's allocation.
 */
export function writeBlockHeader(
  w: ByteWriter, seriesId: number, minTs: number, maxTs: number, tsOffset: number, valOffset: number,
  rows: number, tsSize: number, valSize: number, tsEnc: number, valEnc: number,
): void {
  w.writeF64(seriesId);
  w.writeF64(minTs);
  w.writeF64(maxTs);
  w.writeF64(tsOffset);
  w.writeF64(valOffset);
  w.writeU32(rows);
  w.writeU32(tsSize);
  w.writeU32(valSize);
  w.writeU8(tsEnc);
  w.writeU8(valEnc);
  w.writeU8(0);
  w.writeU8(0);
}

/** decodeBlockHeaders decodes a header group; throws CorruptDataError naming `what`. */
export function decodeBlockHeaders(raw: Uint8Array, count: number, what: string): BlockHeaders {
  const r = new ByteReader(raw, what);
  if (raw.length !== count * BLOCK_HEADER_BYTES) r.fail(`${raw.length} bytes for ${count} headers`);
  const h: BlockHeaders = {
    count,
    seriesIds: new Float64Array(count),
    minTs: new Float64Array(count),
    maxTs: new Float64Array(count),
    tsOffsets: new Float64Array(count),
    valOffsets: new Float64Array(count),
    rows: new Uint32Array(count),
    tsSizes: new Uint32Array(count),
    valSizes: new Uint32Array(count),
    tsEnc: new Uint8Array(count),
    valEnc: new Uint8Array(count),
  };
  for (let i = 0; i < count; i++) {
    h.seriesIds[i] = r.readF64();
    h.minTs[i] = r.readF64();
    h.maxTs[i] = r.readF64();
    h.tsOffsets[i] = r.readF64();
    h.valOffsets[i] = r.readF64();
    h.rows[i] = r.readU32();
    h.tsSizes[i] = r.readU32();
    h.valSizes[i] = r.readU32();
    h.tsEnc[i] = r.readU8();
    h.valEnc[i] = r.readU8();
    r.pos += 2;
    if (h.rows[i]! < 1 || h.rows[i]! > MAX_BLOCK_ROWS) r.fail(`block ${i} has ${h.rows[i]} rows`);
    if (i > 0 && (h.seriesIds[i]! < h.seriesIds[i - 1]! || (h.seriesIds[i] === h.seriesIds[i - 1] && h.minTs[i]! <= h.maxTs[i - 1]!))) {
      r.fail(`block ${i} is out of order`);
    }
  }
  return h;
}

/** MetaindexRow locates one header group. */
export interface MetaindexRow {
  readonly firstSeriesId: number;
  readonly lastSeriesId: number;
  readonly minTs: number;
  readonly maxTs: number;
  readonly offset: number;
  readonly size: number;
  readonly count: number;
}

/** writeMetaindexRow appends the fixed 48-byte form of m. */
export function writeMetaindexRow(w: ByteWriter, m: MetaindexRow): void {
  w.writeF64(m.firstSeriesId);
  w.writeF64(m.lastSeriesId);
  w.writeF64(m.minTs);
  w.writeF64(m.maxTs);
  w.writeF64(m.offset);
  w.writeU32(m.size);
  w.writeU32(m.count);
}

/** decodeMetaindex decodes metaindex.bin (decompressed). */
export function decodeMetaindex(raw: Uint8Array, what: string): MetaindexRow[] {
  const r = new ByteReader(raw, what);
  if (raw.length % METAINDEX_ROW_BYTES !== 0) r.fail(`length ${raw.length} is not a multiple of ${METAINDEX_ROW_BYTES}`);
  const out: MetaindexRow[] = [];
  while (r.remaining() > 0) {
    const row = {
      firstSeriesId: r.readF64(),
      lastSeriesId: r.readF64(),
      minTs: r.readF64(),
      maxTs: r.readF64(),
      offset: r.readF64(),
      size: r.readU32(),
      count: r.readU32(),
    };
    if (row.count < 1 || row.count > HEADERS_PER_GROUP) r.fail(`header group with ${row.count} headers`);
    if (out.length > 0 && row.firstSeriesId < out[out.length - 1]!.lastSeriesId) r.fail('header groups out of order');
    out.push(row);
  }
  return out;
}
