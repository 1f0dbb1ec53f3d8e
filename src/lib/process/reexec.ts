// Imported by the binaries before anything else (by path, not through index.ts, which loads the
// whole runtime): it must stay free of project imports.
import { enableCompileCache, getCompileCacheDir } from 'node:module';

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
}

/**
 * reexecTuned re-executes the process once (process.execve: same PID, so signals and supervisors
 * are unaffected) with the Node flags and environment of o, unless they are in effect already,
 * the runtime cannot, or o.optOutVar is "1". When it re-executes, it does not return.
 */
export function reexecTuned(o: ReexecOptions): void {
  // Node's compile cache keeps the compiled (type-stripped) code of every module on disk, so a
  // start after the first compiles nothing: it took a tsdb start from ~2.2 to ~1.4 CPU-seconds
  // (bench/RESULTS.md, "Startup"). Binaries import the rest of their code after this call. The
  // re-executed process inherits the directory (NODE_DISABLE_COMPILE_CACHE=1 turns it off).
  enableCompileCache();
  const cacheDir = getCompileCacheDir();
  const given = process.execArgv.some((a) => a.startsWith(o.keyFlag)) || (process.env.NODE_OPTIONS ?? '').includes(o.keyFlag);
  const flags = given ? [] : o.nodeFlags;
  const env = o.env ?? {};
  const envMissing = Object.keys(env).some((k) => process.env[k] === undefined);
  if ((flags.length === 0 && !envMissing) || typeof process.execve !== 'function' || process.env[o.optOutVar] === '1') return;
  process.execve(process.execPath, [process.execPath, ...flags, ...process.execArgv, ...process.argv.slice(1)], { ...env, ...(cacheDir === undefined ? {} : { NODE_COMPILE_CACHE: cacheDir }), ...process.env });
}
