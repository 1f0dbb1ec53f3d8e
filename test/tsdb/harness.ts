// Running the single-node `tsdb` binary in process-level tests: start it on 127.0.0.1:0 with a
// temp data dir, learn its HTTP and receiver addresses from the log, stop it with SIGTERM or
// SIGKILL, and make sure nothing outlives a test file (killAll in afterEach/afterAll).

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
