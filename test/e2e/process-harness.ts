import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** StartedProcess is a Strata binary (or fixture) running as a child process. */
export interface StartedProcess {
  readonly child: ChildProcess;
  /** output is everything written to stdout and stderr so far. */
  output(): string;
  /** waitForOutput resolves once the combined output matches re, with the match. */
  waitForOutput(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** exited resolves with the exit code (or signal name). */
  readonly exited: Promise<number | string>;
  kill(signal?: NodeJS.Signals): void;
}

/** startProcess runs `node <script> ...args` from the repo root with Node 24 (process.execPath). */
export function startProcess(script: string, args: readonly string[], env: Record<string, string> = {}): StartedProcess {
  return startCommand(process.execPath, [script, ...args], env);
}

/** startCommand runs any program from the repo root, its output collected like startProcess's. */
export function startCommand(file: string, args: readonly string[], env: Record<string, string> = {}): StartedProcess {
  const child = spawn(file, args, { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const waiters: Array<() => void> = [];
  const onData = (d: Buffer) => {
    out += d.toString();
    waiters.forEach((w) => w());
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => {
    waiters.forEach((w) => w());
    resolve(code ?? signal ?? -1);
  }));
  return {
    child,
    output: () => out,
    exited,
    kill: (signal = 'SIGTERM') => void child.kill(signal),
    waitForOutput(re, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${re} in output:\n${out}`)), timeoutMs);
        const check = () => {
          const m = out.match(re);
          if (m !== null) {
            clearTimeout(timer);
            resolve(m);
          } else if (child.exitCode !== null) {
            clearTimeout(timer);
            reject(new Error(`process exited (${child.exitCode}) before ${re} appeared in output:\n${out}`));
          }
        };
        waiters.push(check);
        check();
      });
    },
  };
}

/** runProcess runs a binary to completion and returns its exit code and output. */
export async function runProcess(script: string, args: readonly string[], env: Record<string, string> = {}) {
  const p = startProcess(script, args, env);
  const code = await p.exited;
  return { code, output: p.output() };
}
