import { FlagError, type FlagSet } from './registry.ts';

/** ParsedCommandLine is what remains after flags are applied: positional arguments in order. */
export interface ParsedCommandLine {
  readonly positionals: string[];
}

/**
 * applyCommandLine applies argv (without node and script) to set. Accepted forms: -name=value,
 * -name value, --name=value, --name value, bool flags as -flag / -flag=false (a bool never
 * consumes the next argument). Flags and positionals may interleave; "--" ends the flags.
 * Throws FlagError naming the flag on an unknown flag, a missing value or a bad value.
 */
export function applyCommandLine(set: FlagSet, argv: readonly string[]): ParsedCommandLine {
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg.length < 2 || arg[0] !== '-' || /^-\d/.test(arg)) {
      positionals.push(arg);
      continue;
    }
    const body = arg.startsWith('--') ? arg.slice(2) : arg.slice(1);
    const eq = body.indexOf('=');
    const name = eq < 0 ? body : body.slice(0, eq);
    if (name === '' || name.startsWith('-')) throw new FlagError(`bad flag syntax: ${arg}`);
    const flag = set.lookup(name);
    if (flag === undefined) throw new FlagError(`unknown flag -${name}; run with -help to list the flags`);
    if (eq >= 0) {
      flag.apply(body.slice(eq + 1));
    } else if (flag.definition.kind === 'bool') {
      flag.apply('true');
    } else {
      if (i + 1 >= argv.length) throw new FlagError(`flag -${name} needs a value`);
      flag.apply(argv[++i]!);
    }
  }
  return { positionals };
}

/**
 * applyEnvironment sets every flag not given on the command line from env: the variable name is
 * prefix + the flag name with dots replaced by underscores (-http.connTimeout → http_connTimeout).
 */
export function applyEnvironment(set: FlagSet, env: Readonly<Record<string, string | undefined>>, prefix: string): void {
  for (const flag of set.all()) {
    if (flag.isSet) continue;
    const text = env[prefix + flag.name.replaceAll('.', '_')];
    if (text !== undefined) flag.apply(text);
  }
}

/** checkRequired throws FlagError for the first required flag that was not given. */
export function checkRequired(set: FlagSet): void {
  for (const flag of set.all()) {
    if (flag.definition.required && !flag.isSet) {
      throw new FlagError(`flag -${flag.name} is required; ${flag.definition.help.split('\n')[0]}`);
    }
  }
}
