// Imported by the binaries before anything else (by path, not through index.ts, which loads the
// whole runtime): it must stay free of project imports.
import { enableCompileCache, flushCompileCache, getCompileCacheDir } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';

/** ReexecOptions say what a binary wants in effect before it starts. */
export interface ReexecOptions {
  /** keyFlag: when this Node flag is given already (command line or NODE_OPTIONS), nodeFlags are not added. */
  readonly keyFlag: string;
  /** nodeFlags are added in front of the process's own Node flags. */
  readonly nodeFlags: readonly string[];
  /** env: variables set unless the environment has them; missing ones alone cause a re-execution. */
  readonly env?: Readonly<Record<string, string>>;
  /** optOutVar: set to "1", the process runs as started. */
  readonly optOutVar: string;
  /**
   * v8Flags are V8 flags (`--name=value`) that Node refuses in NODE_OPTIONS: reexecTuned sets them
   * at run time (v8.setFlagsFromString), so a start through NODE_OPTIONS (the image) gets them
   * too. A flag of the same name on the command line wins. They apply to worker threads as well.
   */
  readonly v8Flags?: readonly string[];
}

/**
 * reexecTuned re-executes the process once (process.execve: same PID, so signals and supervisors
 * are unaffected) with the Node flags and environment of o, unless they are in effect already
 * (a launcher gave them: tunedLaunch), the runtime cannot, or o.optOutVar is "1". When it
 * re-executes, it does not return.
 */
export function reexecTuned(o: ReexecOptions): void {
  // Node's compile cache keeps the compiled (type-stripped) code of every module on disk, so a
  // start after the first compiles nothing: it took a tsdb start from ~2.2 to ~1.4 CPU-seconds
  // (bench/RESULTS.md, "Startup"). Binaries import the rest of their code after this call. The
  // re-executed process inherits the directory (NODE_DISABLE_COMPILE_CACHE=1 turns it off).
  // Enabled here, it cannot serve this file and the entry file, which Node type-stripped already
  // (loading TypeScript's stripper, a WASM module, for them): a launcher that sets
  // NODE_COMPILE_CACHE avoids that (tunedLaunch).
  enableCompileCache();
  for (const f of runtimeV8Flags(o, process.execArgv, process.env)) setFlagsFromString(f);
  const flags = missingTuning(o, process.execArgv, process.env);
  if (flags === undefined || typeof process.execve !== 'function') return;
  const cacheDir = getCompileCacheDir();
  // The cache is written at exit, which execve skips: without this, a start whose launcher set
  // NODE_COMPILE_CACHE but not the flags would miss the entry file and this one every time.
  flushCompileCache();
  process.execve(process.execPath, [process.execPath, ...flags, ...process.execArgv, ...process.argv.slice(1)],
    { ...o.env, ...(cacheDir === undefined ? {} : { NODE_COMPILE_CACHE: cacheDir }), ...process.env });
}

/**
 * missingTuning returns the Node flags to add when a process started with execArgv and env must
 * re-execute to get the tuning of o (possibly none, when only variables of o.env are missing), or
 * undefined when it runs as started: everything is in effect, or env[o.optOutVar] is "1".
 */
export function missingTuning(o: ReexecOptions, execArgv: readonly string[], env: Readonly<Record<string, string | undefined>>): readonly string[] | undefined {
  if (env[o.optOutVar] === '1') return undefined;
  const given = execArgv.some((a) => a.startsWith(o.keyFlag)) || (env.NODE_OPTIONS ?? '').includes(o.keyFlag);
  const flags = given ? [] : o.nodeFlags;
  const envMissing = Object.keys(o.env ?? {}).some((k) => env[k] === undefined);
  return flags.length === 0 && !envMissing ? undefined : flags;
}

/**
 * runtimeV8Flags returns the flags of o.v8Flags that reexecTuned sets: those not given on the
 * command line in any spelling (`_` for `-`, a boolean flag with or without `--no-`), none when opted out.
 */
export function runtimeV8Flags(o: ReexecOptions, execArgv: readonly string[], env: Readonly<Record<string, string | undefined>>): readonly string[] {
  if (env[o.optOutVar] === '1') return [];
  const name = (f: string) => f.split('=')[0]!.replaceAll('_', '-').replace(/^--no-/, '--');
  const given = new Set(execArgv.map(name));
  return (o.v8Flags ?? []).filter((f) => !given.has(name(f)));
}

/** TunedLaunch is what a launcher passes to start a binary in its tuning at once. */
export interface TunedLaunch {
  /** nodeFlags go before the script on node's command line. */
  readonly nodeFlags: readonly string[];
  /** env is added to the environment. */
  readonly env: Readonly<Record<string, string>>;
}

/**
 * tunedLaunch returns the Node flags and environment that start a binary with tuning o in one
 * process (reexecTuned has nothing to do): o's flags and variables, and NODE_COMPILE_CACHE (cacheDir,
 * by default the caller's NODE_COMPILE_CACHE or the directory reexecTuned uses, Node's default
 * <tmpdir>/node-compile-cache). With the cache enabled before Node loads the entry file, every
 * module, the entry too, comes compiled from it and TypeScript's stripper is never loaded.
 */
export function tunedLaunch(o: ReexecOptions, cacheDir = process.env.NODE_COMPILE_CACHE ?? join(tmpdir(), 'node-compile-cache')): TunedLaunch {
  return { nodeFlags: [...o.nodeFlags], env: { ...o.env, NODE_COMPILE_CACHE: cacheDir } };
}
