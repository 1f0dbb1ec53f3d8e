import { readBuildInfo, versionLine } from '../buildinfo/index.ts';
import { applyCommandLine, applyEnvironment, checkRequired } from './cmdline.ts';
import { boolFlag, defaultFlagSet, stringFlag } from './define.ts';
import { FlagError, type FlagSet } from './registry.ts';

const envflagEnable = boolFlag('envflag.enable', false, 'Whether to also read flags from environment variables; command-line values win. See -envflag.prefix');
const envflagPrefix = stringFlag('envflag.prefix', '', 'Prefix of the environment variables read when -envflag.enable is set');
const version = boolFlag('version', false, 'Print the version and exit');
const help = boolFlag('help', false, 'Print every flag with its type, default and help, and exit');

/** FlagsOutcome is the pure result of parsing a process's flags: run, or print and exit. */
export type FlagsOutcome =
  | { readonly kind: 'run'; readonly positionals: string[] }
  | { readonly kind: 'exit'; readonly code: number; readonly stdout: string; readonly stderr: string };

/**
 * parseProcessFlags applies argv and (with -envflag.enable) env to set and decides what the process
 * does: run with positionals, or print version/help (exit 0) or one error line (exit 2).
 */
export function parseProcessFlags(binary: string, argv: readonly string[], env: Readonly<Record<string, string | undefined>>, set: FlagSet = defaultFlagSet): FlagsOutcome {
  try {
    const { positionals } = applyCommandLine(set, argv);
    if (set === defaultFlagSet && envflagEnable.value) applyEnvironment(set, env, envflagPrefix.value);
    if (set === defaultFlagSet && version.value) {
      return { kind: 'exit', code: 0, stdout: versionLine(binary, readBuildInfo(env)) + '\n', stderr: '' };
    }
    if (set === defaultFlagSet && help.value) return { kind: 'exit', code: 0, stdout: set.help(binary), stderr: '' };
    checkRequired(set);
    return { kind: 'run', positionals };
  } catch (err) {
    if (err instanceof FlagError) return { kind: 'exit', code: 2, stdout: '', stderr: `${binary}: ${err.message}\n` };
    throw err;
  }
}

/**
 * mustParseProcessFlags parses process.argv and process.env into the default set; it prints and
 * exits for -version, -help and command-line errors (status 2), and returns the positionals otherwise.
 */
export function mustParseProcessFlags(binary: string): string[] {
  const outcome = parseProcessFlags(binary, process.argv.slice(2), process.env);
  if (outcome.kind === 'run') return outcome.positionals;
  process.stdout.write(outcome.stdout);
  process.stderr.write(outcome.stderr);
  process.exit(outcome.code);
}
