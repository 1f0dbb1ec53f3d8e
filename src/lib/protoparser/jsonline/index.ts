export { parse, type JsonLineParseOptions } from './parse.ts';
export { writeSeries, writeSeriesBytes, writeMetric, jsonValue } from './write.ts';
export { streamJsonLines, DEFAULT_MAX_JSON_LINE_LENGTH } from './stream.ts';
