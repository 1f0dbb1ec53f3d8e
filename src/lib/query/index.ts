// Package query: the MetricsQL/PromQL evaluator over a storageapi Searcher.
export { instant, range, finishSeries, type QueryResult, type SampleResult, type SeriesResult, type RangeOptions } from './engine.ts';
export type { QueryOptions, QueryStats } from './query-state.ts';
export { QueryError } from './errors.ts';
export { MemorySearcher, matchesAnySet } from './memory-searcher.ts';
export { compareLabels, labelsKey } from './labels.ts';
export { ROLLUP_FUNCTIONS } from './rollup-functions.ts';
export { TRANSFORM_FUNCTIONS } from './transform-functions.ts';
export { AGGREGATE_FUNCTIONS } from './aggregate-functions.ts';
