export { parse, metricAndTags, type GraphiteParseOptions } from './parse.ts';
export { streamGraphite } from './stream.ts';
