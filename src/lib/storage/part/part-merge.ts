import { setImmediate as yieldNow } from 'node:timers/promises';
import { PartBlockStream, type DataPart } from './data-part.ts';
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
  let sinceYield = 0;
  try {
    for (;;) {
      let id = Infinity;
      for (const st of streams) if (st.seriesId < id) id = st.seriesId;
      if (id === Infinity) break;
      const deleted = opts.isDeleted(id);
      // Blocks are read in time order, so series whose parts do not overlap in time come out
      // sorted and skip the sort in normalizeSamples.
      const blocks: { st: PartBlockStream; h: BlockHeaders; j: number }[] = [];
      for (const st of streams) {
        for (; st.seriesId === id; st.next()) if (!deleted) blocks.push({ st, h: st.headers!, j: st.index });
      }
      if (blocks.length > 1) blocks.sort((a, b) => a.h.minTs[a.j]! - b.h.minTs[b.j]!);
      s.reset();
      for (const { st, h, j } of blocks) {
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
