// Errors of the query worker pool, coded in the error catalog (docs/ERRORS.md). The query engine
// wraps a BatchError into an error naming the series (offload.ts); the select app answers both
// as internal errors (500) like any other evaluation failure it did not expect.

import { CodedError, defineErrors } from '../errors/index.ts';

/** CODES is the query pool's part of the catalog. */
const CODES = defineErrors({
  ERR_QUERYPOOL_BATCH: {},
  ERR_QUERYPOOL_WORKER_DIED: {},
});

/** BatchError names the series of a rollup batch (by index; -1: none in particular) whose evaluation failed. */
export class BatchError extends CodedError {
  readonly series: number;

  constructor(series: number, message: string, options?: ErrorOptions) {
    super(CODES.ERR_QUERYPOOL_BATCH, message, options);
    this.series = series;
  }
}

/**
 * WorkerFailure: a query worker died while evaluating a batch (a bug, or memory exhausted). The
 * query fails with it; the slot starts a new worker for the next batch.
 */
export class WorkerFailure extends CodedError {
  constructor(message: string, options?: ErrorOptions) {
    super(CODES.ERR_QUERYPOOL_WORKER_DIED, message, options);
  }
}
