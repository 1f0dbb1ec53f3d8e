// The two sides of bench/backup.ts: Strata (tsdb + backupmanager) and VictoriaMetrics
// (victoria-metrics + vmbackup/vmrestore from Debian's package), driven the same way: start the
// server, back up fully, back up incrementally, restore into a fresh directory.

import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createRemoteFs, createRestoreMark, type RemoteFsOptions } from '../src/lib/backup/index.ts';

export const repo = fileURLToPath(new URL('../', import.meta.url));

/** Target is a backup destination kind with the flags each tool needs for it. */
export interface Target {
  readonly name: 'fs' | 's3';
  /** url returns the destination URL for `peer` in repetition `rep`. */
  url(peer: string, rep: number): string;
  readonly strataFlags: readonly string[];
  readonly vmFlags: readonly string[];
  readonly remoteOptions: RemoteFsOptions;
}

/** Measure is one timed step: wall seconds and the bytes it moved (uploaded or downloaded). */
export interface Measure {
  readonly seconds: number;
  readonly bytes: number;
}

/** Proc is a started child with its output. */
export interface Proc {
  readonly child: ChildProcess;
  output(): string;
  waitFor(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  readonly exited: Promise<number>;
  /** stop sends SIGTERM to this child's pid and waits for it. */
  stop(): Promise<number>;
}

/** start runs a command with its output collected. */
export function start(cmd: string, args: readonly string[]): Proc {
  const child = spawn(cmd, args, { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const waiters = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const w of waiters) w();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<number>((resolve) => child.on('exit', (code) => {
    for (const w of waiters) w();
    resolve(code ?? -1);
  }));
  return {
    child,
    output: () => out,
    exited,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
    waitFor: (re, timeoutMs = 1_800_000) => new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${re} from ${cmd}:\n${out.slice(-2000)}`)), timeoutMs);
      const check = () => {
        const m = out.match(re);
        if (m) {
          clearTimeout(timer);
          waiters.delete(check);
          resolve(m);
        } else if (child.exitCode !== null) {
          clearTimeout(timer);
          waiters.delete(check);
          reject(new Error(`${cmd} exited with ${child.exitCode} before ${re}:\n${out.slice(-2000)}`));
        }
      };
      waiters.add(check);
      check();
    }),
  };
}

/** run runs a command to completion and returns its wall time and output; a failure throws. */
export async function run(cmd: string, args: readonly string[]): Promise<{ seconds: number; output: string }> {
  const t0 = performance.now();
  const p = start(cmd, args);
  const code = await p.exited;
  const seconds = (performance.now() - t0) / 1000;
  if (code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${code}:\n${p.output().slice(-3000)}`);
  return { seconds, output: p.output() };
}

/** freePort returns a port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Peer is one side of the comparison. */
export interface Peer {
  readonly name: 'strata' | 'vm';
  /** serve starts the TSDB on `dataDir`; it answers at the returned base URL. */
  serve(dataDir: string): Promise<{ base: string; proc: Proc }>;
  /** backups starts backing up the TSDB at `base` into `dst`. */
  backups(base: string, dataDir: string, dst: string, target: Target): Promise<Backups>;
  /** restore restores the backup `dst` into the empty directory `dataDir`. */
  restore(dst: string, dataDir: string, target: Target): Promise<Measure>;
}

/** Backups makes the full backup, then incremental ones, into one destination. */
export interface Backups {
  full(): Promise<Measure>;
  incremental(): Promise<Measure>;
  close(): Promise<void>;
}

const node = process.execPath;

/** strata: tsdb, and the backupmanager with every interval off so a run is the `latest` sync alone. */
export const strata: Peer = {
  name: 'strata',
  async serve(dataDir) {
    const port = await freePort();
    const proc = start(node, ['src/cmd/tsdb.ts', `-storageDataPath=${dataDir}`, `-httpListenAddr=127.0.0.1:${port}`, '-retentionPeriod=100y', '-loggerLevel=WARN']);
    const base = `http://127.0.0.1:${port}`;
    await waitHealthy(base, proc);
    return { base, proc };
  },
  async backups(base, dataDir, dst, target) {
    const port = await freePort();
    const t0 = performance.now();
    const bm = start(node, [
      'src/cmd/backupmanager.ts', `-httpListenAddr=127.0.0.1:${port}`, `-dst=${dst}`, `-storageDataPath=${dataDir}`, `-snapshot.createURL=${base}/snapshot/create`,
      '-runOnStart', '-disableHourly', '-disableDaily', '-disableWeekly', '-disableMonthly', ...target.strataFlags,
    ]);
    let runs = 0;
    // Each run logs "uploaded N parts (B bytes)" for latest, then "backup run finished".
    const nextRun = async (t: number): Promise<Measure> => {
      runs++;
      await bm.waitFor(new RegExp(`(?:backup run (?:finished in|failed)[\\s\\S]*?){${runs}}`));
      if (/backup run failed/.test(bm.output())) throw new Error(`backupmanager run failed:\n${bm.output().slice(-3000)}`);
      const uploads = [...bm.output().matchAll(/\/latest: uploaded \d+ parts \((\d+) bytes\)/g)];
      return { seconds: (performance.now() - t) / 1000, bytes: Number(uploads[runs - 1]?.[1]) };
    };
    return {
      full: () => nextRun(t0),
      async incremental() {
        const t = performance.now();
        const res = await fetch(`http://127.0.0.1:${port}/api/v1/backups`, { method: 'POST' });
        if (res.status !== 201) throw new Error(`POST /api/v1/backups: HTTP ${res.status} ${await res.text()}`);
        return nextRun(t);
      },
      async close() {
        await bm.stop();
      },
    };
  },
  async restore(dst, dataDir, target) {
    const remote = await createRemoteFs(dst, target.remoteOptions);
    await createRestoreMark({ dataDir, backup: 'latest', dst: remote, openRemote: (u) => createRemoteFs(u, target.remoteOptions) });
    await remote.close();
    const { seconds, output } = await run(node, ['src/cmd/backupmanager.ts', `-storageDataPath=${dataDir}`, ...target.strataFlags, 'restore']);
    return { seconds, bytes: Number(/downloaded (\d+) bytes/.exec(output)?.[1] ?? NaN) };
  },
};

/** vm: victoria-metrics with vmbackup (-dst pointing at the previous backup makes it incremental) and vmrestore. */
export const vm: Peer = {
  name: 'vm',
  async serve(dataDir) {
    const port = await freePort();
    const proc = start('victoria-metrics', [`-storageDataPath=${dataDir}`, `-httpListenAddr=127.0.0.1:${port}`, '-retentionPeriod=100y', '-loggerLevel=WARN']);
    const base = `http://127.0.0.1:${port}`;
    await waitHealthy(base, proc);
    return { base, proc };
  },
  async backups(base, dataDir, dst, target) {
    const once = async (): Promise<Measure> => {
      const { seconds, output } = await run('vmbackup', [`-storageDataPath=${dataDir}`, `-snapshot.createURL=${base}/snapshot/create`, `-dst=${dst}`, '-httpListenAddr=127.0.0.1:0', ...target.vmFlags]);
      return { seconds, bytes: Number(/uploaded (\d+) bytes/.exec(output)?.[1] ?? NaN) };
    };
    return { full: once, incremental: once, close: async () => {} };
  },
  async restore(dst, dataDir, target) {
    const { seconds, output } = await run('vmrestore', [`-src=${dst}`, `-storageDataPath=${dataDir}`, '-httpListenAddr=127.0.0.1:0', ...target.vmFlags]);
    return { seconds, bytes: Number(/(?:downloaded|restored) (\d+) bytes|backed up (\d+) bytes/.exec(output)?.slice(1).find((x) => x !== undefined) ?? NaN) };
  },
};

async function waitHealthy(base: string, proc: Proc): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (proc.child.exitCode !== null) throw new Error(`server exited with ${proc.child.exitCode}:\n${proc.output().slice(-3000)}`);
    try {
      if ((await fetch(`${base}/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`server at ${base} not healthy after 60 s:\n${proc.output().slice(-3000)}`);
}
