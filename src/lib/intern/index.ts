export { processInterner } from './flags.ts';
export { StringInterner, type InternerOptions } from './interner.ts';
