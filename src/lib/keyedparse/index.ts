// Package keyedparse: what ingestion shares to turn bodies into keyed batches (rows naming their
// series by a number in a key table) rather than a labels object per row — the pool of worker
// threads that parse Prometheus text, the main thread's mirror of each worker's key table, the
// per-`db` influx key dictionaries, and the per-tenant memory of recent metadata lines. The single
// node stores such batches straight into the engine; the cluster's insert node routes them.
export { KeyDictionaries } from './key-dictionaries.ts';
export { ParsePool, type ParsePoolOptions, type PoolParseOptions } from './parse-pool.ts';
export { METADATA_REPEAT_MS, RecentMetadata } from './recent-metadata.ts';
