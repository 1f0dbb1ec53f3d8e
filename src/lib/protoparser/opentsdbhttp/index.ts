export { parse, type OpenTsdbHttpParseOptions } from './parse.ts';
