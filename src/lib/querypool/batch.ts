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
 * BatchBuilder gathers series of a search until they are worth a batch, copying each series'
 * items into the batch's one buffer as it comes (so a search may lend them: SeriesBlockSearch).
 * work estimates the evaluation cost: stored bytes (about one per sample in blocks, 16 per plain
 * row; decoding dominates) plus the steps to compute per series. Buffer layout: the items, then
 * (8-aligned) minTs, maxTs, dedupMs and bounds.
 */
export class BatchBuilder {
  readonly #stepsPerSeries: number;
  readonly #buffers: BufferPool | undefined;
  #buf: ArrayBuffer | undefined;
  #data = new Uint8Array(0);
  #labels: Labels[] = [];
  #bounds: number[] = [0];
  #minTs: number[] = [];
  #maxTs: number[] = [];
  #dedupMs: number[] = [];
  work = 0;

  /** buffers: where batch memory comes from (and a grown-out buffer goes back); else fresh memory. */
  constructor(spec: RollupSpec, buffers?: BufferPool) {
    this.#stepsPerSeries = spec.grid.n * spec.variants.length;
    this.#buffers = buffers;
  }

  get count(): number {
    return this.#labels.length;
  }

  /** add copies s's items into the batch (s may be lent: nothing of it is kept but its labels). */
  add(s: SeriesBlocks): void {
    let bytes = 0;
    for (const c of s.chunks) bytes += c.length;
    let at = this.#bounds[this.#bounds.length - 1]!;
    this.#reserve(at + bytes, this.#labels.length + 1);
    for (const c of s.chunks) {
      this.#data.set(c, at);
      at += c.length;
    }
    this.#bounds.push(at);
    this.#labels.push(s.labels);
    this.#minTs.push(s.minTs);
    this.#maxTs.push(s.maxTs);
    this.#dedupMs.push(s.dedupMs);
    this.work += bytes + this.#stepsPerSeries;
  }

  /** take returns the gathered series as one batch (their header arrays written after the items) and starts anew. */
  take(): { readonly labels: Labels[]; readonly batch: BlockBatch } {
    const k = this.#labels.length;
    const bytes = this.#bounds[k]!;
    this.#reserve(bytes, k);
    const buf = this.#buf!;
    const h = align8(bytes);
    const minTs = new Float64Array(buf, h, k);
    const maxTs = new Float64Array(buf, h + 8 * k, k);
    const dedupMs = new Float64Array(buf, h + 16 * k, k);
    const bounds = new Uint32Array(buf, h + 24 * k, k + 1);
    minTs.set(this.#minTs);
    maxTs.set(this.#maxTs);
    dedupMs.set(this.#dedupMs);
    bounds.set(this.#bounds);
    const batch = { data: new Uint8Array(buf, 0, bytes), bounds, minTs, maxTs, dedupMs };
    const labels = this.#labels;
    this.#buf = undefined;
    this.#data = new Uint8Array(0);
    this.#labels = [];
    this.#bounds = [0];
    this.#minTs = [];
    this.#maxTs = [];
    this.#dedupMs = [];
    this.work = 0;
    return { labels, batch };
  }

  // reserve makes the buffer hold bytes of items and the header of k series, keeping the items.
  #reserve(bytes: number, k: number): void {
    const size = align8(bytes) + 28 * k + 4;
    if (this.#buf !== undefined && this.#buf.byteLength >= size) return;
    // Grow by half again at least, so a batch is copied O(1) times on average.
    const want = Math.max(size, this.#buf === undefined ? 0 : Math.ceil(this.#buf.byteLength * 1.5));
    const next = this.#buffers === undefined ? new ArrayBuffer(want) : this.#buffers.take(want);
    const data = new Uint8Array(next);
    const used = this.#bounds[this.#bounds.length - 1]!;
    if (used > 0) data.set(this.#data.subarray(0, used));
    if (this.#buf !== undefined) this.#buffers?.give(this.#buf);
    this.#buf = next;
    this.#data = data;
  }
}

function align8(n: number): number {
  return Math.ceil(n / 8) * 8;
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
