export { parse, timestampToMillis, type OpenTsdbParseOptions } from './parse.ts';
export { streamOpenTsdb } from './stream.ts';
