import { parseBytes } from './bytes.ts';
import { formatDuration, parseDuration } from './duration.ts';
import { type Flag, FlagSet, arrayParse, isSecretFlagName } from './registry.ts';

/** defaultFlagSet is the process-wide registry; flags are declared at the top of the file that reads them. */
export const defaultFlagSet = new FlagSet();

/** FlagOptions are optional traits of a flag. */
export interface FlagOptions {
  /** secret masks the value in /flags and logs; names like *password*, *authKey*, *token* are always secret. */
  readonly secret?: boolean;
  readonly required?: boolean;
  /** set is the registry to add to; defaults to defaultFlagSet. */
  readonly set?: FlagSet;
}

function traits(name: string, o: FlagOptions | undefined) {
  return { secret: o?.secret === true || isSecretFlagName(name), required: o?.required === true };
}

export function stringFlag(name: string, defaultValue: string, help: string, o?: FlagOptions): Flag<string> {
  return (o?.set ?? defaultFlagSet).register({
    name, kind: 'string', help, defaultValue, ...traits(name, o),
    parse: (s) => s,
    format: (v) => v,
  });
}

export function boolFlag(name: string, defaultValue: boolean, help: string, o?: FlagOptions): Flag<boolean> {
  return (o?.set ?? defaultFlagSet).register({
    name, kind: 'bool', help, defaultValue, ...traits(name, o),
    parse: parseBool,
    format: (v) => String(v),
  });
}

export function intFlag(name: string, defaultValue: number, help: string, o?: FlagOptions): Flag<number> {
  return (o?.set ?? defaultFlagSet).register({
    name, kind: 'int', help, defaultValue, ...traits(name, o),
    parse: parseInteger,
    format: (v) => String(v),
  });
}

export function floatFlag(name: string, defaultValue: number, help: string, o?: FlagOptions): Flag<number> {
  return (o?.set ?? defaultFlagSet).register({
    name, kind: 'float', help, defaultValue, ...traits(name, o),
    parse: parseFloatStrict,
    format: (v) => String(v),
  });
}

/** durationFlag holds milliseconds; the default is given as Go-style text ("5m0s"). */
export function durationFlag(name: string, defaultText: string, help: string, o?: FlagOptions): Flag<number> {
  return (o?.set ?? defaultFlagSet).register({
    name, kind: 'duration', help, defaultValue: parseDuration(defaultText), ...traits(name, o),
    parse: parseDuration,
    format: formatDuration,
  });
}

/** sizeFlag holds bytes; the default is given as text ("64MiB" or "0"). */
export function sizeFlag(name: string, defaultText: string, help: string, o?: FlagOptions): Flag<number> {
  return (o?.set ?? defaultFlagSet).register({
    name, kind: 'size', help, defaultValue: parseBytes(defaultText), ...traits(name, o),
    parse: parseBytes,
    format: (v) => String(v),
  });
}

/** arrayFlag takes comma-separated values and/or repeated occurrences; quoted elements may hold commas. */
export function arrayFlag(
  name: string,
  help: string,
  o?: FlagOptions & { readonly defaultValue?: readonly string[]; readonly validate?: (element: string) => void },
): Flag<readonly string[]> {
  const validate = o?.validate;
  return (o?.set ?? defaultFlagSet).register<readonly string[]>({
    name, kind: 'array', help, defaultValue: o?.defaultValue ?? [], ...traits(name, o),
    parse: arrayParse((s) => {
      validate?.(s);
      return s;
    }),
    format: (v) => v.join(','),
  });
}

/**
 * valueFlag is a flag with its own parser (an enum, a retention period…). `parse` throws an Error
 * whose message says what is accepted.
 */
export function valueFlag<T>(
  name: string,
  defaultText: string,
  help: string,
  parse: (text: string) => T,
  format: (value: T) => string,
  o?: FlagOptions,
): Flag<T> {
  return (o?.set ?? defaultFlagSet).register<T>({
    name, kind: 'value', help, defaultValue: parse(defaultText), ...traits(name, o),
    parse: (s) => parse(s),
    format,
  });
}

/** enumFlag accepts one of `allowed` exactly. */
export function enumFlag<const T extends string>(name: string, defaultValue: T, allowed: readonly T[], help: string, o?: FlagOptions): Flag<T> {
  const parse = (s: string): T => {
    if ((allowed as readonly string[]).includes(s)) return s as T;
    throw new Error(`must be one of ${allowed.join(', ')}`);
  };
  return valueFlag(name, defaultValue, `${help}\nOne of: ${allowed.join(', ')}`, parse, (v) => v, o);
}

export function parseBool(s: string): boolean {
  switch (s.toLowerCase()) {
    case '1': case 't': case 'true': return true;
    case '0': case 'f': case 'false': return false;
    default: throw new Error('must be true or false');
  }
}

function parseInteger(s: string): number {
  const t = s.trim();
  if (!/^[+-]?\d+$/.test(t)) throw new Error('must be an integer');
  const n = Number(t);
  if (!Number.isSafeInteger(n)) throw new Error('integer out of range');
  return n;
}

function parseFloatStrict(s: string): number {
  const t = s.trim();
  const n = Number(t);
  if (t === '' || Number.isNaN(n)) throw new Error('must be a number');
  return n;
}
