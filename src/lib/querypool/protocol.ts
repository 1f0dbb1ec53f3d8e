// Messages between the query pool (pool.ts) and its worker threads (worker.ts).

import type { RollupSpec } from '../query/rollup-run.ts';
import type { BatchResult, BlockBatch } from './batch.ts';

/** ToWorker: evaluate spec over batch (its buffers are transferred). */
export interface ToWorker {
  readonly id: number;
  readonly spec: RollupSpec;
  readonly batch: BlockBatch;
}

/** FromWorker: the result of task id (buffers transferred), or why it failed on which series. */
export type FromWorker =
  | { readonly id: number; readonly ok: true; readonly result: BatchResult }
  | { readonly id: number; readonly ok: false; readonly series: number; readonly message: string };
