// How many query workers a process runs: the pure rule behind -search.queryWorkers.

/** WORKER_BYTES: what one query worker adds to RSS while busy (thread, heap, batches in flight). */
export const WORKER_BYTES = 48 * 1024 * 1024;

/** QUERY_WORKERS_SHARE: the fraction of the memory budget the query workers may use together. */
export const QUERY_WORKERS_SHARE = 0.1;

/** PoolSizeOptions: requested is -search.queryWorkers (-1 auto, 0 off, N exactly N). */
export interface PoolSizeOptions {
  readonly requested: number;
  /** cpus: os.availableParallelism(). */
  readonly cpus: number;
  /** budgetBytes: the memory share of the query workers (QUERY_WORKERS_SHARE of the budget). */
  readonly budgetBytes: number;
}

/**
 * queryPoolSize returns the number of query workers, 0 for none. Auto (-1) gives one per CPU
 * beyond the first, which the event loop keeps busy (it searches, aggregates and writes every
 * answer): none with one CPU (workers only add thread hops to the same core), one on two, at most
 * what the memory share holds at WORKER_BYTES each. An explicit N is taken as is.
 */
export function queryPoolSize(o: PoolSizeOptions): number {
  if (!Number.isInteger(o.requested) || o.requested < -1) {
    throw new RangeError(`-search.queryWorkers must be -1 (one per CPU), 0 (off) or a positive number of workers; got ${o.requested}`);
  }
  if (o.requested >= 0) return o.requested;
  if (o.cpus < 2) return 0;
  return Math.max(0, Math.min(o.cpus - 1, Math.floor(o.budgetBytes / WORKER_BYTES)));
}
