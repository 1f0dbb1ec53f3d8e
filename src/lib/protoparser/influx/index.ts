export { parse, parsePrecision, type InfluxParseOptions, type InfluxPrecision } from './parse.ts';
export { streamInflux } from './stream.ts';
