// The rollup work unit: consecutive series of one search, as stored part blocks (the items of
// series-blocks.ts, exactly what a cluster storage node ships), decoded with the engine's block
// decoder and evaluated with the engine's rollup loop (query/rollup-run.ts). It runs on a query
// worker thread, in-line for small selections, and is meant to run on a storage node later
// (evaluate where the data is, ship the steps). The arrays of a BlockBatch are views of one
// buffer, those of a BatchResult of another, so each crosses threads as one transferable, never
// copied, and both buffers are reused for later batches (buffers.ts).

// The query files it runs, not query/index.ts: a worker should load only what it runs.
import { withoutStale } from '../query/fetch.ts';
import { ROLLUP_FUNCTIONS } from '../query/rollup-functions.ts';
import { runWindows, type RollupSpec } from '../query/rollup-run.ts';
import { SeriesBlocksDecoder, type SeriesBlocks } from '../storage/series-blocks.ts';
import type { Labels } from '../storageapi/index.ts';
import type { BufferPool } from './buffers.ts';
import { BatchError } from './errors.ts';

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

/** transferables lists the buffers of a batch or a result (one each when built here). */
export function transferables(x: BlockBatch | BatchResult): ArrayBuffer[] {
  return [...new Set(Object.values(x).map((a: Uint8Array | Float64Array | Uint32Array) => a.buffer as ArrayBuffer))];
}

/** bufferOf: the one buffer of a batch or a result built here. */
export function bufferOf(x: BlockBatch | BatchResult): ArrayBuffer {
  return ('data' in x ? x.data.buffer : x.samples.buffer) as ArrayBuffer;
}

/** resultBytes: the size of the BatchResult of k series under spec (evalBatch's layout). */
export function resultBytes(spec: RollupSpec, k: number): number {
  const steps = k * spec.variants.length * spec.grid.n;
  return 8 * k + 9 * steps + k * spec.variants.length;
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

  /**
   * take packs the gathered series into one batch (one copy of their items) and starts anew:
   * in one buffer, from buffers when given (minTs, maxTs, dedupMs, bounds, then the items).
   */
  take(buffers?: BufferPool): { readonly labels: Labels[]; readonly batch: BlockBatch } {
    const series = this.#series;
    const k = series.length;
    const size = 24 * k + 4 * (k + 1) + this.#bytes;
    const buf = buffers === undefined ? new ArrayBuffer(size) : buffers.take(size);
    const minTs = new Float64Array(buf, 0, k);
    const maxTs = new Float64Array(buf, 8 * k, k);
    const dedupMs = new Float64Array(buf, 16 * k, k);
    const bounds = new Uint32Array(buf, 24 * k, k + 1);
    const data = new Uint8Array(buf, 24 * k + 4 * (k + 1), this.#bytes);
    bounds[0] = 0;
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

/**
 * evalBatch decodes each series of b as the engine's search would (sort, deduplicate, trim to
 * the range; series-blocks.ts) and evaluates spec over it, into out when it holds
 * resultBytes(spec, k) (else a new buffer). dec is reused across calls. Throws BatchError naming
 * the series for corrupt blocks or a failing function.
 */
export function evalBatch(spec: RollupSpec, b: BlockBatch, dec: SeriesBlocksDecoder, out?: ArrayBuffer): BatchResult {
  const fn = ROLLUP_FUNCTIONS.get(spec.func);
  if (fn === undefined) throw new BatchError(0, `unknown rollup function "${spec.func}"`);
  const k = b.bounds.length - 1;
  const n = spec.grid.n;
  const nv = spec.variants.length;
  const size = resultBytes(spec, k);
  const buf = out !== undefined && out.byteLength >= size ? out : new ArrayBuffer(size);
  const samples = new Float64Array(buf, 0, k);
  const values = new Float64Array(buf, 8 * k, k * nv * n);
  const present = new Uint8Array(buf, 8 * k + 8 * k * nv * n, k * nv * n);
  // A reused buffer holds an earlier result: `any` is read for every series; a series without
  // samples skips its steps, which are then never read (RollupBatch); runWindows clears present.
  const any = new Uint8Array(buf, 8 * k + 9 * k * nv * n, k * nv).fill(0);
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
