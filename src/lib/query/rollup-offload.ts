// The engine's side of evaluating a rollup somewhere else (src/lib/querypool: worker threads):
// the engine hands over the search and the RollupSpec of a `f(selector[range])` call and reads
// back the per-series steps, in the search's series order, batch by batch.

import type { Labels, SearchQuery, Searcher } from '../storageapi/index.ts';
import type { RollupSpec } from './rollup-run.ts';

/**
 * RollupBatch is the result for consecutive series of a search. Series i read `samples[i]` raw
 * samples (0: the series had none in the range once trimmed; it is not part of the result and
 * not counted as fetched). Its output for the v-th variant of spec.variants (V of them, n steps)
 * is `values/present[(i*V + v)*n, +n)`, present only where `any[i*V + v] === 1`. Its arrays are
 * lent: they are valid until the consumer asks for the next batch (or stops), then reused, so a
 * consumer copies what it keeps.
 */
export interface RollupBatch {
  readonly labels: readonly Labels[];
  readonly samples: Float64Array;
  readonly values: Float64Array;
  readonly present: Uint8Array;
  readonly any: Uint8Array;
}

/**
 * RollupOffload evaluates spec over every series search finds in searcher, yielding batches in
 * the search's series order (the order searcher.searchSeries yields them). It may evaluate
 * where it likes (worker threads, in-line for small selections) but must give exactly the
 * results of the engine's own loop. Errors name what failed; an aborted signal rejects.
 */
export interface RollupOffload {
  /**
   * accepts tells whether it evaluates spec; when it returns false the engine's own loop does
   * (for rollups where shipping the series elsewhere costs more than it saves). Absent: all.
   */
  accepts?(spec: RollupSpec): boolean;
  rollup(searcher: Searcher, search: SearchQuery, spec: RollupSpec, signal: AbortSignal): AsyncIterable<RollupBatch>;
}
