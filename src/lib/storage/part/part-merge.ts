import { setImmediate as yieldNow } from 'node:timers/promises';
import type { DataPart } from './data-part.ts';
import { PartBlockStream } from './block-cursors.ts';
import { normalizeSamples } from '../../storageapi/dedup.ts';
import type { BlockHeaders, PartMeta } from './part-format.ts';
import { PartWriter } from './part-writer.ts';
import { SeriesScratch } from './series-scratch.ts';

/** MergeOptions control what a merge keeps. */
export interface MergeOptions {
  readonly zstdLevel: number;
  /** dedupMs is -dedup.minScrapeInterval in ms (0 = off). */
  readonly dedupMs: number;
  /** minTs drops older samples (retention); maxTs newer ones. */
  readonly minTs: number;
  readonly maxTs: number;
  /** isDeleted drops every sample of deleted series. */
  readonly isDeleted: (id: number) => boolean;
  readonly signal: AbortSignal;
  /** pause, when set, is awaited at every yield point (the worker holds merges while a flush runs). */
  readonly pause?: () => Promise<void>;
}

// A merge yields to the event loop after about this many samples, so ingestion and searches
// keep running while a big merge works.
const YIELD_EVERY_ROWS = 64 * 1024;

/**
 * mergeParts writes the union of inputs into a new part at outDir: one series at a time, in ID
 * order, samples sorted, duplicates resolved, deduplicated, cut to [minTs, maxTs], deleted series
 * left out. Memory holds one series. Returns the new part's metadata, or undefined when nothing
 * was left to write (outDir is then removed by the caller). Aborts by signal between series.
 */
export async function mergeParts(inputs: readonly DataPart[], outDir: string, opts: MergeOptions): Promise<PartMeta | undefined> {
  const streams = inputs.map((p) => new PartBlockStream(p));
  const w = new PartWriter(outDir, opts.zstdLevel);
  const s = new SeriesScratch();
  const order = new BlockOrder();
  let sinceYield = 0;
  try {
    for (;;) {
      let id = Infinity;
      for (const st of streams) if (st.seriesId < id) id = st.seriesId;
      if (id === Infinity) break;
      const deleted = opts.isDeleted(id);
      // Blocks are read in time order, so series whose parts do not overlap in time come out
      // sorted and skip the sort in normalizeSamples.
      const count = order.collect(streams, id, deleted);
      s.reset();
      for (let b = 0; b < count; b++) {
        const st = order.streams[b]!;
        const h = order.headers[b]!;
        const j = order.index[b]!;
        s.ensure(h.rows[j]!);
        st.readBlock(h, j, s.ts, s.vals, s.n);
        s.n += h.rows[j]!;
      }
      if (s.n === 0) continue;
      sinceYield += s.n;
      s.n = normalizeSamples(s.ts, s.vals, s.n, opts.dedupMs);
      s.keepRange(opts.minTs, opts.maxTs);
      if (s.n > 0) w.addSeries(id, s.ts, s.vals, s.n);
      if (sinceYield >= YIELD_EVERY_ROWS) {
        sinceYield = 0;
        await yieldNow();
        if (opts.pause) await opts.pause();
        opts.signal.throwIfAborted();
      }
    }
    if (w.rows === 0) {
      w.abort();
      return undefined;
    }
    return w.finish();
  } catch (err) {
    w.abort();
    throw err;
  }
}

/**
 * BlockOrder lists the blocks of one series across the merge's input streams, by their minTs:
 * kept in reused parallel arrays and ordered by insertion (a series has a block or two per input),
 * since an object per block and Array#sort with a comparator were the largest allocation of a
 * merge of flushed parts (a block or two of a few rows per series at 100k series).
 */
class BlockOrder {
  streams: PartBlockStream[] = [];
  headers: BlockHeaders[] = [];
  index: number[] = [];
  #minTs: number[] = [];

  /** collect advances every stream past series id and lists its blocks (none when deleted); returns how many. */
  collect(streams: readonly PartBlockStream[], id: number, deleted: boolean): number {
    let n = 0;
    for (const st of streams) {
      for (; st.seriesId === id; st.next()) {
        if (deleted) continue;
        const h = st.headers!;
        const j = st.index;
        const t = h.minTs[j]!;
        // Insertion by minTs, stable: equal minTs keep stream order.
        let at = n;
        while (at > 0 && this.#minTs[at - 1]! > t) {
          this.streams[at] = this.streams[at - 1]!;
          this.headers[at] = this.headers[at - 1]!;
          this.index[at] = this.index[at - 1]!;
          this.#minTs[at] = this.#minTs[at - 1]!;
          at--;
        }
        this.streams[at] = st;
        this.headers[at] = h;
        this.index[at] = j;
        this.#minTs[at] = t;
        n++;
      }
    }
    return n;
  }
}
