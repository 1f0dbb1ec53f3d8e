// Walking the blocks of one data part: SeriesBlockCursor for searches (the blocks of given series
// within a time range), PartBlockStream for merges (every block in order).

import { appendSourceBlock } from './block-decode.ts';
import type { ReadBufferPool, Wanted } from './span-read.ts';
import { CorruptDataError } from '../common/errors.ts';
import type { SeriesScratch } from './series-scratch.ts';
import type { BlockHeaders } from './part-format.ts';
import { type BlockReader, type DataPart, type SearchBlockReader, emptyBlockFields, setBlockFields } from './data-part.ts';

function lowerBoundId(h: BlockHeaders, id: number, lo: number): number {
  let hi = h.count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (h.seriesIds[mid]! < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * SeriesBlockCursor finds the blocks of one part that belong to given series and overlap a time
 * range. Series must be asked for in ascending ID order (the cursor only moves forward).
 */
export class SeriesBlockCursor {
  readonly part: DataPart;
  readonly #minTs: number;
  readonly #maxTs: number;
  readonly #ids: Float64Array | undefined;
  readonly #pool: ReadBufferPool | undefined;
  #g = 0;
  #j = 0;
  #hg = -1;
  #h: BlockHeaders | undefined;
  #reader: SearchBlockReader | undefined;

  // The per-block steps of readSeries, made once per cursor (a search calls them for every block):
  // the state of the series being read is in the fields below.
  #s: SeriesScratch | undefined;
  #lastTs = -Infinity;
  #blocks = 0;
  #bh: BlockHeaders | undefined;
  #bj = 0;
  readonly #fields = emptyBlockFields();
  readonly #decode = (fromTs: number): number => {
    const s = this.#s!;
    return this.#reader!.read(this.#bh!, this.#bj, s.ts, s.vals, s.n, fromTs, s);
  };
  readonly #appendBlock = (h: BlockHeaders, j: number): void => {
    setBlockFields(this.#fields, h, j);
    this.#bh = h;
    this.#bj = j;
    appendSourceBlock(this.#s!, this.#fields, this.#lastTs, this.#minTs, this.#maxTs, this.#decode, 'the series');
    this.#lastTs = h.maxTs[j]!;
    this.#blocks++;
  };

  /**
   * ids, when given, are all the series the caller will ask for (ascending): reads then span the
   * nearby ones. pool, when given, lends the read buffers: call release when the search ends.
   */
  constructor(part: DataPart, minTs: number, maxTs: number, ids?: Float64Array, pool?: ReadBufferPool) {
    this.part = part;
    this.#minTs = minTs;
    this.#maxTs = maxTs;
    this.#ids = ids;
    this.#pool = pool;
  }

  /** release gives the read buffers back to the pool (the cursor reads on with others if asked). */
  release(): void {
    this.#reader?.release();
  }

  /** wanted describes the blocks this cursor's search will read (undefined without ids). */
  get wanted(): Wanted | undefined {
    return this.#ids === undefined ? undefined : { ids: this.#ids, minTs: this.#minTs, maxTs: this.#maxTs };
  }

  // headers of group g; the cursor keeps the current group instead of asking the cache per series.
  #headers(g: number): BlockHeaders {
    if (g !== this.#hg) {
      this.#h = this.part.headers(g);
      this.#hg = g;
    }
    return this.#h!;
  }

  /** collect calls sink(headers, j) for every matching block of series id, in time order. */
  collect(id: number, sink: (h: BlockHeaders, j: number) => void): void {
    const mi = this.part.metaindex;
    while (this.#g < mi.length && mi[this.#g]!.lastSeriesId < id) {
      this.#g++;
      this.#j = 0;
    }
    for (let g = this.#g; g < mi.length && mi[g]!.firstSeriesId <= id; g++) {
      const row = mi[g]!;
      if (row.maxTs < this.#minTs || row.minTs > this.#maxTs) continue;
      const h = this.#headers(g);
      let k = lowerBoundId(h, id, g === this.#g ? this.#j : 0);
      if (g === this.#g) this.#j = k;
      for (; k < h.count && h.seriesIds[k] === id; k++) {
        if (h.maxTs[k]! >= this.#minTs && h.minTs[k]! <= this.#maxTs) sink(h, k);
      }
      if (k < h.count) break;
    }
  }

  /**
   * readSeries appends the samples of every matching block of series id to s, in time order
   * (strictly ascending timestamps: the part's blocks of one series do not overlap, which is
   * checked here), reading ahead through the part's files. Returns the number of blocks read.
   * Throws CorruptDataError naming the series and the part when a block does not decode.
   */
  readSeries(id: number, s: SeriesScratch): number {
    this.#reader ??= this.part.searchReader(this.wanted, this.#pool);
    this.#s = s;
    this.#lastTs = -Infinity;
    this.#blocks = 0;
    try {
      this.collect(id, this.#appendBlock);
    } catch (err) {
      if (err instanceof CorruptDataError) throw new CorruptDataError(`cannot read series ${id} of part "${this.part.path}": ${err.message}`, { cause: err });
      throw err;
    }
    return this.#blocks;
  }
}

/** PartBlockStream walks every block of a part in order (merges). */
export class PartBlockStream {
  readonly part: DataPart;
  /** readBlock decodes a block of this part (sequential read-ahead). */
  readonly readBlock: BlockReader;
  #g = 0;
  #h: BlockHeaders | undefined;
  #j = 0;

  constructor(part: DataPart) {
    this.part = part;
    this.readBlock = part.sequentialReader();
    this.#load();
  }

  #load(): void {
    this.#h = this.#g < this.part.metaindex.length ? this.part.headers(this.#g) : undefined;
    this.#j = 0;
  }

  /** headers and index of the current block, or undefined at the end. */
  get headers(): BlockHeaders | undefined {
    return this.#h;
  }

  get index(): number {
    return this.#j;
  }

  /** seriesId of the current block (Infinity at the end). */
  get seriesId(): number {
    return this.#h === undefined ? Infinity : this.#h.seriesIds[this.#j]!;
  }

  next(): void {
    if (this.#h === undefined) return;
    if (++this.#j >= this.#h.count) {
      this.#g++;
      this.#load();
    }
  }
}
