// Running the backupmanager binary in process tests.

import { spawn, type ChildProcess } from 'node:child_process';
import { repoRoot, startProcess, type StartedProcess } from '../e2e/process-harness.ts';

export const BINARY = 'src/cmd/backupmanager.ts';

// Every process a test starts, so that a failing test cannot leave one running.
const started = new Map<ChildProcess, Promise<unknown>>();

function track(child: ChildProcess, exited: Promise<unknown>): void {
  started.set(child, exited);
  void exited.then(() => started.delete(child));
}

/** killStarted kills (SIGKILL, by pid) every process the tests started that still runs; call it in afterAll. */
export async function killStarted(): Promise<void> {
  const running = [...started].filter(([c]) => c.exitCode === null && c.signalCode === null);
  for (const [c] of running) c.kill('SIGKILL');
  await Promise.all(running.map(([, exited]) => exited));
}

/** startTracked is startProcess for a process killStarted will clean up. */
export function startTracked(script: string, args: readonly string[], env: Record<string, string> = {}): StartedProcess {
  const p = startProcess(script, args, env);
  track(p.child, p.exited);
  return p;
}

/** RunningBackupManager is a backupmanager serving on 127.0.0.1. */
export interface RunningBackupManager {
  readonly proc: StartedProcess;
  readonly base: string;
  /** stop sends SIGTERM and resolves with the exit status. */
  stop(): Promise<number | string>;
}

/** startBackupManager starts the server with `args` and waits until it listens. */
export async function startBackupManager(args: readonly string[], env: Record<string, string> = {}): Promise<RunningBackupManager> {
  const proc = startTracked(BINARY, ['-httpListenAddr=127.0.0.1:0', '-loggerDisableTimestamps', ...args], env);
  const m = await proc.waitForOutput(/listening for http requests on (http:\/\/127\.0\.0\.1:\d+)/);
  return {
    proc,
    base: m[1] ?? '',
    stop: async () => {
      proc.kill('SIGTERM');
      return proc.exited;
    },
  };
}

/** CommandResult is how a CLI command ended: status, stdout (results) and stderr (logs). */
export interface CommandResult {
  readonly code: number | string;
  readonly stdout: string;
  readonly stderr: string;
}

/** runCommand runs one CLI command of the binary to completion. */
export function runCommand(args: readonly string[], env: Record<string, string> = {}): Promise<CommandResult> {
  const child = spawn(process.execPath, [BINARY, '-loggerDisableTimestamps', ...args], { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<CommandResult>((resolve) => child.on('close', (code, signal) => resolve({ code: code ?? signal ?? -1, stdout, stderr })));
  track(child, done);
  return done;
}

/** basicAuth is the Authorization header for -httpAuth.* credentials. */
export function basicAuth(user: string, pass: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}` };
}

/** metricLine returns the value of one exposition line such as `backupmanager_backup_in_progress 0`. */
export function metricOf(exposition: string, series: string): number | undefined {
  const line = exposition.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
