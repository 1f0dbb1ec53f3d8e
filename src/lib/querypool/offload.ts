// The query engine's RollupOffload over a QueryPool: the event loop searches the selector's
// series as stored blocks (a copy of their bytes, no decoding), cuts them into batches, and the
// pool's workers decode and evaluate the batches while the loop searches on; results come back
// in series order. A selection that fits in one batch is evaluated in-line with the same unit.
// Batch and result memory is the pool's (buffers.ts): a result's goes back once the engine asks
// for the next batch (RollupBatch's contract).

import { formatLabels, type RollupBatch, type RollupOffload, type RollupSpec } from '../query/index.ts';
import { plainSeriesBlocks, SeriesBlocksWriter, type SeriesBlocks, type SeriesBlockSearcher } from '../storage/series-blocks.ts';
import type { Labels, SearchQuery, Searcher } from '../storageapi/index.ts';
import { BatchBuilder, bufferOf, evalBatch, newDecoder, resultBytes, type BatchResult, type BlockBatch } from './batch.ts';
import { BatchError } from './errors.ts';
import type { QueryPool } from './pool.ts';

/**
 * BATCH_WORK: the estimated work (BatchBuilder.work: stored bytes plus steps) of one batch, about
 * 45 series of 1,440 samples evaluated over 1,440 steps, 8–12 ms of CPU in-line, ~0.6 MiB of
 * results. Measured on the S workload (node_cpu_seconds_total, rate over 1,440 steps): a worker
 * round trip added 0.3 ms to a one-series batch (0.8 ms in-line) and was lost in the noise from 4
 * series up, so a batch this size pays for its hop many times over while a query over a few
 * hundred series still spreads over the workers. Half the earlier 256 K: every query holds up to
 * `window` batches and results, and with 4 clients those (1.5 MiB a batch) were much of what the
 * pool added to the peak RSS. A selection below it is evaluated in-line (docs/DECISIONS.md,
 * "Query workers").
 */
export const BATCH_WORK = 128 * 1024;

/**
 * MIN_STEPS: the steps per series (grid points × variants) a rollup needs to be worth the pool.
 * Below it the engine's own loop evaluates it (RollupOffload.accepts): with one step per series
 * (every instant query) decoding dominates and the unit's per-series costs (a copy of the blocks,
 * a batch, a thread hop) are not paid back: on the S workload, instant
 * sum by (job, mode) (rate(node_cpu_seconds_total[5m])) took 43–46 CPU-ms pooled against 30–36
 * in the engine's loop, and no less wall time on 2 cores. A range query of 30 steps or more
 * spreads over the workers (docs/DECISIONS.md, "Query workers").
 */
export const MIN_STEPS = 32;

/** OffloadOptions tune PoolRollupOffload (tests use small batches). */
export interface OffloadOptions {
  /** batchWork: see BATCH_WORK; 0 sends every series to the pool as its own batch. */
  readonly batchWork?: number;
  /** minSteps: see MIN_STEPS; 0 takes every rollup. */
  readonly minSteps?: number;
  /**
   * window: batches one query keeps in flight or evaluated ahead at most; default twice the pool
   * size plus one, so a query can fill the pool (one batch running and one queued per worker) and
   * still evaluate a batch in-line (callerRuns) before it must wait for the oldest.
   */
  readonly window?: number;
  /**
   * callerRuns: evaluate a batch in-line when the pool is saturated (QueryPool.saturated) and no
   * other rollup is running on this offload; default true.
   */
  readonly callerRuns?: boolean;
}

/** PoolRollupOffload evaluates the engine's rollups over range selectors on a QueryPool. */
export class PoolRollupOffload implements RollupOffload {
  readonly pool: QueryPool;
  readonly #batchWork: number;
  readonly #minSteps: number;
  readonly #window: number;
  readonly #callerRuns: boolean;
  readonly #dec = newDecoder();
  /** active: rollups running now (started and not yet finished or stopped). */
  #active = 0;

  constructor(pool: QueryPool, o: OffloadOptions = {}) {
    this.pool = pool;
    this.#batchWork = o.batchWork ?? BATCH_WORK;
    this.#minSteps = o.minSteps ?? MIN_STEPS;
    this.#window = o.window ?? 2 * pool.size + 1;
    this.#callerRuns = o.callerRuns ?? true;
  }

  accepts(spec: RollupSpec): boolean {
    return spec.grid.n * spec.variants.length >= this.#minSteps;
  }

  async *rollup(searcher: Searcher, search: SearchQuery, spec: RollupSpec, signal: AbortSignal): AsyncGenerator<RollupBatch> {
    const builder = new BatchBuilder(spec, this.pool.buffers);
    const pending: Promise<RollupBatch>[] = [];
    let pooled = false;
    this.#active++;
    try {
      for await (const s of blocksOf(searcher, search, signal)) {
        builder.add(s);
        if (builder.work < this.#batchWork) continue;
        pooled = true;
        // Caller runs: with every worker busy and as many batches queued, this thread evaluates the
        // batch itself rather than wait, so a query uses the event loop's core and the workers' (one
        // worker on two CPUs still halves a rollup), and no more batches are held in memory. Only
        // for a query alone in the offload: with others, the event loop has their searches,
        // aggregations and answers to do, and it is what bounds concurrent clients (with 4 clients
        // it used 0.69 of the server's CPU while the worker waited; 0.57 without caller runs).
        const b = builder.take();
        pending.push(this.#callerRuns && this.#active === 1 && this.pool.saturated ? Promise.resolve(this.#inline(b, spec)) : this.#dispatch(b, spec, signal));
        if (pending.length >= this.#window) yield* this.#lend(await pending.shift()!);
      }
      if (builder.count > 0) {
        if (pooled) pending.push(this.#dispatch(builder.take(), spec, signal));
        else yield* this.#lend(this.#inline(builder.take(), spec));
      }
      while (pending.length > 0) yield* this.#lend(await pending.shift()!);
    } finally {
      this.#active--;
    }
  }

  // lend yields b and takes its memory back once the engine asks for the next batch or stops.
  *#lend(b: RollupBatch): Generator<RollupBatch> {
    try {
      yield b;
    } finally {
      this.pool.buffers.give(b.samples.buffer as ArrayBuffer);
    }
  }

  #dispatch(b: { labels: Labels[]; batch: BlockBatch }, spec: RollupSpec, signal: AbortSignal): Promise<RollupBatch> {
    const p = this.pool.run(spec, b.batch, signal).then(
      (r) => withLabels(b.labels, r),
      (err: unknown) => {
        throw named(err, spec, b.labels);
      },
    );
    // Awaited in order by rollup(); one that fails while an earlier one is awaited (or after the
    // query stopped reading) must not count as an unhandled rejection meanwhile.
    p.catch(() => undefined);
    return p;
  }

  #inline(b: { labels: Labels[]; batch: BlockBatch }, spec: RollupSpec): RollupBatch {
    const buffers = this.pool.buffers;
    try {
      return withLabels(b.labels, evalBatch(spec, b.batch, this.#dec, buffers.take(resultBytes(spec, b.labels.length))));
    } catch (err) {
      throw named(err, spec, b.labels);
    } finally {
      buffers.give(bufferOf(b.batch));
    }
  }
}

function withLabels(labels: Labels[], r: BatchResult): RollupBatch {
  return { labels, samples: r.samples, values: r.values, present: r.present, any: r.any };
}

// named puts the series (by its labels) and the function into a batch's evaluation error.
function named(err: unknown, spec: RollupSpec, labels: readonly Labels[]): Error {
  if (!(err instanceof BatchError)) return err as Error;
  const series = labels[err.series];
  const what = series === undefined ? `a batch of ${labels.length} series` : `series ${formatLabels(series)}`;
  return new Error(`cannot evaluate ${spec.func}() over ${what}: ${err.message}`, { cause: err });
}

/**
 * blocksOf searches the series as stored blocks when the searcher can (the storage engine, a
 * storage node), else wraps its decoded samples as plain rows (the same unit decodes both).
 */
function blocksOf(searcher: Searcher, search: SearchQuery, signal: AbortSignal): AsyncIterable<SeriesBlocks> {
  const blocks = searcher as Searcher & Partial<SeriesBlockSearcher>;
  // Borrowed chunks: BatchBuilder.add copies each series into its batch before asking for the next.
  if (typeof blocks.searchSeriesBlocks === 'function') return blocks.searchSeriesBlocks({ ...search, borrow: true }, signal);
  return plainBlocks(searcher, search, signal);
}

// One writer (a 64 KiB buffer) for the whole search, not one per series.
async function* plainBlocks(searcher: Searcher, search: SearchQuery, signal: AbortSignal): AsyncGenerator<SeriesBlocks> {
  const w = new SeriesBlocksWriter();
  for await (const s of searcher.searchSeries(search, signal)) yield plainSeriesBlocks(s, w);
}
