export { parse, type PrometheusParseOptions } from './parse.ts';
export { parseKeyed, type KeyedParseResult, type PrometheusKeyedOptions } from './parse-keyed.ts';
export { parseKeyedBytes } from './parse-keyed-bytes.ts';
export { MetadataCapture, parseMetadataLine } from './metadata.ts';
export { escapeLabelValue, writeSample, writeSamples, writeSeriesKey } from './write.ts';
export { streamPrometheus, streamPrometheusKeyed, type PrometheusStreamOptions } from './stream.ts';
