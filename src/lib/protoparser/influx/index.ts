export { parse, parsePrecision, type InfluxParseOptions, type InfluxPrecision } from './parse.ts';
export { streamInflux, streamInfluxKeyed } from './stream.ts';
export { parseInfluxKeyedBytes, type InfluxKeyedOptions } from './parse-keyed-bytes.ts';
