// Package promql: the MetricsQL/PromQL parser (query text → typed AST) and printer.
export * from './ast.ts';
export { ParseError, lineCol } from './errors.ts';
export { parse, BINARY_PRECEDENCE } from './parser.ts';
export { ParseCache, type ParseCacheOptions } from './parse-cache.ts';
export { print, printDuration, formatNumber, formatSeconds, printLabelName } from './printer.ts';
export { evalDuration, isConstantDuration, type DurationContext } from './parse-duration.ts';
export { FUNCTIONS, AGGREGATION_PARAMS, isAggregation, type FunctionSignature, type ArgType } from './functions.ts';
export { typeOf } from './typecheck.ts';
export { matchesEmpty } from './parse-selector.ts';
export { children, inspect, selectorsOf } from './walk.ts';
export { isValidUtf8, quoteString } from './strings.ts';
export { MAX_LINE, prettyPrint } from './prettier.ts';
export { astToJson, formatFixed, type JsonNode } from './ast-json.ts';
