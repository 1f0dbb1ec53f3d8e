export * from './parse-error.ts';
export * from './row.ts';
export * from './float.ts';
export * from './lines.ts';
export * from './stream.ts';
export { LineFailure, fail, isLineFailure, quote } from './line-failure.ts';
export type { ParseResult, RowsAndErrors, LineParser } from './parse-result.ts';
export { parseLines, countLines } from './parse-result.ts';
export { parseJsonDocument, jsonType } from './json.ts';
