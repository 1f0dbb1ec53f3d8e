export { parse, readSeriesLine, sampleTimestamp, sampleValue, type JsonLineParseOptions, type SeriesLine } from './parse.ts';
export { parseJsonLinesKeyed, type JsonLineKeyedOptions } from './parse-keyed.ts';
export { writeSeries, writeSeriesView, writeMetric, jsonValue } from './write.ts';
export { streamJsonLines, streamJsonLinesKeyed, DEFAULT_MAX_JSON_LINE_LENGTH } from './stream.ts';
