export { parse, sanitizeName, splitTag, NO_LABEL_VALUE, type AgentParseOptions } from './parse.ts';
