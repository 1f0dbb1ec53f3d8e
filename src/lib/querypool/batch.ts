// The rollup work unit: consecutive series of one search, as stored part blocks (the items of
// series-blocks.ts, exactly what a cluster storage node ships), decoded with the engine's block
// decoder and evaluated with the engine's rollup loop (query/rollup-run.ts). It runs on a query
// worker thread, in-line for small selections, and is meant to run on a storage node later
// (evaluate where the data is, ship the steps). Everything in a BlockBatch and a BatchResult is a
// typed array with its own buffer, so both cross threads as transferables, never copied.

// The query files it runs, not query/index.ts: a worker should load only what it runs.
import { withoutStale } from '../query/fetch.ts';
import { ROLLUP_FUNCTIONS } from '../query/rollup-functions.ts';
import { runWindows, type RollupSpec } from '../query/rollup-run.ts';
import { SeriesBlocksDecoder, type SeriesBlocks } from '../storage/series-blocks.ts';
import type { Labels } from '../storageapi/index.ts';

/** BlockBatch: series i's items are `data[bounds[i], bounds[i+1])`, searched in [minTs[i], maxTs[i]]. */
export interface BlockBatch {
  readonly data: Uint8Array;
  readonly bounds: Uint32Array;
  readonly minTs: Float64Array;
  readonly maxTs: Float64Array;
  readonly dedupMs: Float64Array;
}

/** BatchResult: the steps of each series and variant (layout of query's RollupBatch, without labels). */
export interface BatchResult {
  readonly samples: Float64Array;
  readonly values: Float64Array;
  readonly present: Uint8Array;
  readonly any: Uint8Array;
}

/** transferables lists the buffers of a batch or a result (each typed array owns its buffer). */
export function transferables(x: BlockBatch | BatchResult): ArrayBuffer[] {
  return Object.values(x).map((a: Uint8Array | Float64Array | Uint32Array) => a.buffer as ArrayBuffer);
}

/**
 * BatchBuilder gathers series of a search until they are worth a batch. work estimates the
 * evaluation cost: stored bytes (about one per sample in blocks, 16 per plain row; decoding
 * dominates) plus the steps to compute per series.
 */
export class BatchBuilder {
  readonly #stepsPerSeries: number;
  #series: SeriesBlocks[] = [];
  #bytes = 0;
  work = 0;

  constructor(spec: RollupSpec) {
    this.#stepsPerSeries = spec.grid.n * spec.variants.length;
  }

  get count(): number {
    return this.#series.length;
  }

  add(s: SeriesBlocks): void {
    this.#series.push(s);
    let bytes = 0;
    for (const c of s.chunks) bytes += c.length;
    this.#bytes += bytes;
    this.work += bytes + this.#stepsPerSeries;
  }

  /** take packs the gathered series into one batch (one copy of their items) and starts anew. */
  take(): { readonly labels: Labels[]; readonly batch: BlockBatch } {
    const series = this.#series;
    const k = series.length;
    const data = new Uint8Array(this.#bytes);
    const bounds = new Uint32Array(k + 1);
    const minTs = new Float64Array(k);
    const maxTs = new Float64Array(k);
    const dedupMs = new Float64Array(k);
    let at = 0;
    for (let i = 0; i < k; i++) {
      const s = series[i]!;
      for (const c of s.chunks) {
        data.set(c, at);
        at += c.length;
      }
      bounds[i + 1] = at;
      minTs[i] = s.minTs;
      maxTs[i] = s.maxTs;
      dedupMs[i] = s.dedupMs;
    }
    this.#series = [];
    this.#bytes = 0;
    this.work = 0;
    return { labels: series.map((s) => s.labels), batch: { data, bounds, minTs, maxTs, dedupMs } };
  }
}

const NO_LABELS: Labels = [];

/** BatchError names the series of the batch (by index) whose evaluation failed. */
export class BatchError extends Error {
  readonly series: number;

  constructor(series: number, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'BatchError';
    this.series = series;
  }
}

/**
 * evalBatch decodes each series of b as the engine's search would (sort, deduplicate, trim to
 * the range; series-blocks.ts) and evaluates spec over it. dec is reused across calls. Throws
 * BatchError naming the series for corrupt blocks or a failing function.
 */
export function evalBatch(spec: RollupSpec, b: BlockBatch, dec: SeriesBlocksDecoder): BatchResult {
  const fn = ROLLUP_FUNCTIONS.get(spec.func);
  if (fn === undefined) throw new BatchError(0, `unknown rollup function "${spec.func}"`);
  const k = b.bounds.length - 1;
  const n = spec.grid.n;
  const nv = spec.variants.length;
  const samples = new Float64Array(k);
  const values = new Float64Array(k * nv * n);
  const present = new Uint8Array(k * nv * n);
  const any = new Uint8Array(k * nv);
  for (let i = 0; i < k; i++) {
    try {
      dec.begin(`series ${i} of a rollup batch`);
      dec.push(b.data.subarray(b.bounds[i]!, b.bounds[i + 1]!), b.minTs[i]!, b.maxTs[i]!);
      const [lo, hi] = dec.finish(b.dedupMs[i]!, b.minTs[i]!, b.maxTs[i]!);
      samples[i] = hi - lo;
      if (hi === lo) continue;
      const s = dec.scratch;
      const r = withoutStale({ labels: NO_LABELS, timestamps: s.ts.subarray(lo, hi), values: s.vals.subarray(lo, hi), dropName: false });
      for (let v = 0; v < nv; v++) {
        const at = i * nv + v;
        const out = { values: values.subarray(at * n, (at + 1) * n), present: present.subarray(at * n, (at + 1) * n) };
        if (runWindows(fn, r.timestamps, r.values, spec, spec.rangeMs, spec.variants[v]!, out)) any[at] = 1;
      }
    } catch (err) {
      throw new BatchError(i, (err as Error).message, { cause: err });
    }
  }
  return { samples, values, present, any };
}

/** newDecoder: the decoder evalBatch reuses (one per thread). */
export function newDecoder(): SeriesBlocksDecoder {
  return new SeriesBlocksDecoder();
}
