export { splitArrayValue } from './array.ts';
export { formatBytes, parseBytes } from './bytes.ts';
export { applyCommandLine, applyEnvironment, checkRequired } from './cmdline.ts';
export {
  arrayFlag, boolFlag, defaultFlagSet, durationFlag, enumFlag, floatFlag, intFlag, parseBool, sizeFlag, stringFlag, valueFlag,
  type FlagOptions,
} from './define.ts';
export { formatDuration, parseDuration } from './duration.ts';
export { mustParseProcessFlags, parseProcessFlags, type FlagsOutcome } from './process.ts';
export { Flag, FlagError, FlagSet, isSecretFlagName, type FlagDefinition, type FlagKind } from './registry.ts';
