// Package query: the MetricsQL/PromQL evaluator over a storageapi Searcher.
export { instant, range, finishSeries, type QueryResult, type SampleResult, type SeriesResult, type RangeOptions } from './engine.ts';
export type { QueryOptions, QueryStats } from './query-state.ts';
export { QueryError } from './errors.ts';
export { MemorySearcher, matchesAnySet } from './memory-searcher.ts';
export { compareLabels, formatLabels, labelsKey } from './labels.ts';
export { ROLLUP_FUNCTIONS } from './rollup-functions.ts';
export { TRANSFORM_FUNCTIONS } from './transform-functions.ts';
export { AGGREGATE_FUNCTIONS } from './aggregate-functions.ts';
export type { RollupBatch, RollupOffload } from './rollup-offload.ts';
export { runWindows, type RollupOut, type RollupSpec } from './rollup-run.ts';
export { withoutStale } from './fetch.ts';
