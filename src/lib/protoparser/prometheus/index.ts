export { parse, type PrometheusParseOptions } from './parse.ts';
export { escapeLabelValue, writeSample, writeSamples, writeSeriesKey } from './write.ts';
export { streamPrometheus } from './stream.ts';
