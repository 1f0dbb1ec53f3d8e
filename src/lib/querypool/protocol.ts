// Messages between the query pool (pool.ts) and its worker threads (worker.ts).

import type { RollupSpec } from '../query/rollup-run.ts';
import type { BatchResult, BlockBatch } from './batch.ts';

/** ToWorker: evaluate spec over batch into out (both buffers transferred; out is reused memory). */
export interface ToWorker {
  readonly id: number;
  readonly spec: RollupSpec;
  readonly batch: BlockBatch;
  readonly out: ArrayBuffer;
}

/**
 * FromWorker: the result of task id and the batch's buffer back for reuse (both transferred), or
 * why it failed on which series.
 */
export type FromWorker =
  | { readonly id: number; readonly ok: true; readonly result: BatchResult; readonly input: ArrayBuffer }
  | { readonly id: number; readonly ok: false; readonly series: number; readonly message: string };
