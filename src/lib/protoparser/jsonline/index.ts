export { parse, metricLabels, type JsonLineParseOptions } from './parse.ts';
export { parseJsonLinesKeyedBytes, type JsonLineKeyedOptions } from './parse-keyed-bytes.ts';
export { writeSeries, writeSeriesBytes, writeMetric, jsonValue } from './write.ts';
export { streamJsonLines, streamJsonLinesKeyed, DEFAULT_MAX_JSON_LINE_LENGTH } from './stream.ts';
