// Package querypool: query work on every core. A pool of worker threads evaluates the rollups of
// range selectors batch by batch (the work unit of batch.ts), for the engine's RollupOffload.
export { BATCH_WORK, MIN_STEPS, PoolRollupOffload, type OffloadOptions } from './offload.ts';
export { QueryPool, type QueryPoolOptions } from './pool.ts';
export { BatchError, WorkerFailure } from './errors.ts';
export { queryPoolSize, WORKER_BYTES } from './sizing.ts';
export { queryOffloadFromFlags } from './flags.ts';
export { BatchBuilder, evalBatch, newDecoder, type BatchResult, type BlockBatch } from './batch.ts';
