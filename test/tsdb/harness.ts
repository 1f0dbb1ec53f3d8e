// Running the single-node `tsdb` binary in process-level tests: start it on 127.0.0.1:0 with a
// temp data dir, learn its HTTP and receiver addresses from the log, stop it with SIGTERM or
// SIGKILL, and make sure nothing outlives a test file (killAll in afterEach/afterAll).

import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findBinary } from '../../scripts/test-deps.ts';
import { startProcess, type StartedProcess } from '../e2e/process-harness.ts';

export const TSDB_BINARY = 'src/cmd/tsdb.ts';

/** Tsdb is a running `tsdb` process serving HTTP on 127.0.0.1. */
export interface Tsdb {
  readonly proc: StartedProcess;
  /** base is `http://127.0.0.1:<port>`. */
  readonly base: string;
  readonly pid: number;
  readonly dataDir: string;
  /** receivers holds the bound `host:port` of each network receiver that was enabled. */
  readonly receivers: Readonly<Partial<Record<'graphite' | 'opentsdb' | 'opentsdbHTTP', string>>>;
  /** stop sends SIGTERM (a graceful shutdown) and resolves with the exit status. */
  stop(): Promise<number | string>;
  /** kill sends SIGKILL and resolves once the process is gone. */
  kill(): Promise<number | string>;
}

const running = new Set<StartedProcess>();

/**
 * startTsdb starts `tsdb` on `dataDir` with extra `args` (flags such as -retentionPeriod) and
 * resolves once it logs its listening address. Rejects with the process output when it exits
 * first or does not get ready within 20 s.
 */
export async function startTsdb(dataDir: string, args: readonly string[] = []): Promise<Tsdb> {
  const proc = startProcess(TSDB_BINARY, ['-httpListenAddr=127.0.0.1:0', `-storageDataPath=${dataDir}`, '-loggerDisableTimestamps', ...args]);
  running.add(proc);
  void proc.exited.then(() => running.delete(proc));
  const m = await proc.waitForOutput(/listening on (http:\/\/127\.0\.0\.1:\d+)/, 30_000);
  const receivers: Record<string, string> = {};
  for (const r of proc.output().matchAll(/(graphite|opentsdb|opentsdbHTTP) receiver listening on (\S+)/g)) receivers[r[1]!] = r[2]!;
  const signal = (sig: NodeJS.Signals) => {
    if (proc.child.exitCode === null && proc.child.signalCode === null) proc.kill(sig);
    return proc.exited;
  };
  return { proc, base: m[1]!, pid: proc.child.pid!, dataDir, receivers, stop: () => signal('SIGTERM'), kill: () => signal('SIGKILL') };
}

/**
 * runTsdb runs `tsdb` with args until it exits (a start expected to fail), registered for killAll:
 * should it start after all (a test timed out and afterEach killed the process holding the data
 * dir, or a check regressed), it does not outlive the test file.
 */
export async function runTsdb(args: readonly string[]): Promise<{ code: number | string; output: string }> {
  const proc = track(startProcess(TSDB_BINARY, args));
  const code = await proc.exited;
  return { code, output: proc.output() };
}

/** killAll SIGKILLs every tsdb (or other process registered with track) still running. */
export async function killAll(): Promise<void> {
  const procs = [...running];
  for (const p of procs) p.kill('SIGKILL');
  await Promise.all(procs.map((p) => p.exited));
}

/** track registers a process started elsewhere (Prometheus, vmagent) for killAll. */
export function track(p: StartedProcess): StartedProcess {
  running.add(p);
  void p.exited.then(() => running.delete(p));
  return p;
}

/**
 * startBinary runs an executable that is not a Strata script (Prometheus, vmagent) in cwd, with
 * the StartedProcess interface, registered for killAll.
 */
export function startBinary(path: string, args: readonly string[], cwd: string): StartedProcess {
  const child = spawn(path, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const waiters = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    waiters.forEach((w) => w());
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<number | string>((resolve) => {
    child.on('error', (err) => {
      out += `cannot run ${path}: ${err.message}\n`;
      resolve(-1);
    });
    child.on('exit', (code, signal) => resolve(code ?? signal ?? -1));
  });
  void exited.then(() => waiters.forEach((w) => w()));
  return track({
    child,
    output: () => out,
    exited,
    kill: (signal = 'SIGTERM') => void child.kill(signal),
    waitForOutput(re, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const done = () => {
          waiters.delete(check);
          clearTimeout(timer);
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`timed out waiting for ${re} in the output of ${path}:\n${out}`));
        }, timeoutMs);
        const check = () => {
          const m = out.match(re);
          if (m !== null) {
            done();
            resolve(m);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            done();
            reject(new Error(`${path} exited (${child.exitCode ?? child.signalCode}) before ${re} appeared in its output:\n${out}`));
          }
        };
        waiters.add(check);
        check();
      });
    },
  });
}

/**
 * requireBinary finds an executable on PATH (or in the sbin directories) and throws, naming the
 * Debian package that ships it, when it is missing: interop tests must fail, not skip. `npm test`
 * installs the packages of scripts/test-deps.txt first.
 */
export function requireBinary(name: string, debianPackage: string): string {
  const path = findBinary(name);
  if (path !== undefined) return path;
  throw new Error(`cannot find the "${name}" binary on PATH: install the Debian package "${debianPackage}" (apt-get install ${debianPackage}; \`npm test\` does this for the packages in scripts/test-deps.txt)`);
}

const tempDirs: string[] = [];

/** makeTempDir creates a fresh directory under the OS temp dir; removeTempDirs deletes them all. */
export async function makeTempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `strata-${prefix}-`));
  tempDirs.push(dir);
  return dir;
}

export async function removeTempDirs(): Promise<void> {
  await Promise.all(tempDirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
}

/** rssBytes reads VmRSS of a live process from /proc/<pid>/status. */
export async function rssBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const m = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  if (m === null) throw new Error(`cannot find VmRSS in /proc/${pid}/status`);
  return Number(m[1]) * 1024;
}

/** sleep waits ms milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * clearOfDayEnd returns once at least marginMs remain in the current UTC day, waiting for the next
 * day when fewer do. Index routes answer for whole UTC days ("today" by default), so a test file
 * that writes "the last hour" and then asks for today must not have midnight fall in between.
 */
export async function clearOfDayEnd(marginMs: number): Promise<void> {
  const day = 86_400_000;
  const left = day - (Date.now() % day);
  if (left < marginMs) await sleep(left + 1_000);
}
