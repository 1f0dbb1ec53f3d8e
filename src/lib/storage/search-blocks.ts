import { setImmediate as yieldNow } from 'node:timers/promises';
import type { SearchQuery } from '../storageapi/api.ts';
import type { StorageCore } from './core.ts';
import { blockFields, type RawBlockReader } from './part/data-part.ts';
import { SeriesBlockCursor } from './part/block-cursors.ts';
import { YIELD_EVERY_ROWS, appendBufferedRows, labelsOfSeries, openSeriesScope } from './search.ts';
import { type SeriesBlocks, SeriesBlocksWriter } from './series-blocks.ts';
import { SeriesScratch } from './part/series-scratch.ts';

/**
 * searchSeriesBlocks is searchSeries for a cluster storage node: per matching series it yields
 * the stored blocks that overlap the range, copied as they are, and the buffered rows as plain
 * samples (series-blocks.ts); the select node decodes, deduplicates and trims them exactly as
 * searchSeries does here. Deleted series are left out before any block is read. A series may
 * come out empty once trimmed (its blocks overlap the range, its samples do not): the decoding
 * side drops it. Parts and buffers are pinned for the whole iteration, as in searchSeries. A
 * borrowing caller (q.borrow) gets each series' last chunk as a view of the writer's reused memory.
 */
export async function* searchSeriesBlocks(core: StorageCore, q: SearchQuery, signal: AbortSignal): AsyncGenerator<SeriesBlocks> {
  const scope = openSeriesScope(core, q, signal);
  if (scope === undefined) return;
  const { ids, minTs, maxTs, parts, buffers, tk, dedupMs } = scope;
  try {
    const cursors = parts.map((p) => new SeriesBlockCursor(p, minTs, maxTs, ids));
    const readers: RawBlockReader[] = cursors.map((c) => c.part.rawSearchReader(c.wanted));
    const w = new SeriesBlocksWriter();
    const s = new SeriesScratch();
    let work = 0;
    for (const id of ids) {
      if (core.isDeleted(id)) continue;
      const labels = labelsOfSeries(core, tk, id);
      if (labels === undefined) continue;
      w.begin();
      for (let i = 0; i < cursors.length; i++) {
        const read = readers[i]!;
        let first = true;
        cursors[i]!.collect(id, (h, j) => {
          if (first) w.part();
          first = false;
          const [ts, vals] = read(h, j);
          w.block(blockFields(h, j), ts, vals);
          work += h.rows[j]! >>> 4; // copying costs far less per sample than decoding
        });
      }
      s.reset();
      appendBufferedRows(buffers, id, s);
      if (s.n > 0) w.rows(s.ts, s.vals, s.n);
      work += s.n + 100;
      if (!w.empty) yield { labels, minTs, maxTs, dedupMs, chunks: w.end(q.borrow === true) };
      if (work >= YIELD_EVERY_ROWS) {
        work = 0;
        await yieldNow();
      }
      signal.throwIfAborted();
    }
  } finally {
    scope.release();
  }
}
