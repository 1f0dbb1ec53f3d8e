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
// The pretty printer (prettier.ts) and the syntax tree as JSON (ast-json.ts) serve only
// /api/v1/format_query and /api/v1/parse_query: importers take them from their files, so that the
// index (imported by every query) does not put them on a server's start path (issue 18 item 4).
