// bench/proxy-kit.ts: the pieces of the shared proxy harness (../shared/bench/proxy/run.mjs) that a
// proxy benchmark with its own credentials needs: a foreground nginx backend, wrk as the load
// generator (with any headers), and /proc readings of a process's CPU time and peak RSS and of the
// machine's other load. Same methods as run.mjs, so figures compare with bench/authproxy.ts.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const CLK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim() || 100);
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** which finds an executable on PATH ("" when missing). */
export function which(bin: string): string {
  return spawnSync('sh', ['-c', 'command -v "$1"', 'sh', bin], { encoding: 'utf8' }).stdout.trim();
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Launched is a started process (pinned with taskset when cpus is given). */
export interface Launched {
  readonly name: string;
  readonly child: ChildProcess;
  readonly pid: number;
  exited: boolean;
}

const launched: Launched[] = [];
process.on('exit', () => {
  for (const l of launched) if (!l.exited) l.child.kill('SIGKILL');
});

/** launch runs `sh -c 'exec CMD'` (so the PID is the command's), logging to logFile. */
export function launch(name: string, cmd: string, logFile: string, cpus?: string): Launched {
  const fd = openSync(logFile, 'a');
  const argv = cpus === undefined ? ['sh', '-c', `exec ${cmd}`] : ['taskset', '-c', cpus, 'sh', '-c', `exec ${cmd}`];
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const l: Launched = { name, child, pid: child.pid!, exited: false };
  child.on('exit', () => void (l.exited = true));
  launched.push(l);
  return l;
}

/** stop sends SIGTERM, then SIGKILL after 5 s. */
export async function stop(l: Launched): Promise<void> {
  if (l.exited) return;
  l.child.kill('SIGTERM');
  for (let i = 0; i < 50 && !l.exited; i++) await sleep(100);
  if (!l.exited) l.child.kill('SIGKILL');
}

/** get sends one GET and returns the status and body. */
export function get(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', () => resolve({ status: 0, body: Buffer.alloc(0) }));
    });
    req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, body: Buffer.alloc(0) }));
    req.end();
  });
}

/** waitFor polls until check resolves true or ms pass. */
export async function waitFor(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await sleep(150);
  }
  return false;
}

/** startNginx serves dir on a free loopback port with run.mjs' settings (single process, keep-alive without limit). */
export async function startNginx(nginx: string, work: string, dir: string, cpus?: string): Promise<{ proc: Launched; port: number }> {
  const port = await freePort();
  mkdirSync(join(work, 'tmp'), { recursive: true });
  const conf = join(work, 'nginx.conf');
  writeFileSync(conf, `daemon off;
master_process off;
worker_processes 1;
pid ${work}/nginx.pid;
error_log ${work}/nginx-error.log warn;
events { worker_connections 8192; }
http {
  access_log off;
  client_body_temp_path ${work}/tmp/body; proxy_temp_path ${work}/tmp/proxy; fastcgi_temp_path ${work}/tmp/fcgi;
  uwsgi_temp_path ${work}/tmp/uwsgi; scgi_temp_path ${work}/tmp/scgi;
  sendfile on; tcp_nopush on; tcp_nodelay on;
  keepalive_requests 100000000; keepalive_timeout 300s;
  open_file_cache max=16; open_file_cache_valid 3600s;
  default_type application/json;
  server { listen 127.0.0.1:${port}; root ${dir}; }
}
`);
  const proc = launch('nginx', `${nginx} -p ${work} -e ${work}/nginx-error.log -c ${conf}`, join(work, 'nginx.out'), cpus);
  if (!(await waitFor(async () => (await get(port, '/')).status > 0, 10_000))) throw new Error(`nginx did not start: ${readFileSync(join(work, 'nginx.out'), 'utf8')}`);
  return { proc, port };
}

// ---------- /proc ----------

function readStat(pid: number): { ppid: number; ticks: number } | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) };
  } catch {
    return undefined;
  }
}

function statusKb(pid: number, key: string): number {
  try {
    const m = new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m === null ? 0 : Number(m[1]);
  } catch {
    return 0;
  }
}

function procTree(root: number): number[] {
  const kids = new Map<number, number[]>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    const st = readStat(Number(d));
    if (st === undefined) continue;
    kids.set(st.ppid, [...(kids.get(st.ppid) ?? []), Number(d)]);
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) out.push(...(kids.get(out[i]!) ?? []));
  return out;
}

/** ProcWatch follows one process tree: CPU seconds (exited children still count) and peak RSS. */
export class ProcWatch {
  readonly #pid: number;
  readonly #ticks = new Map<number, number>();
  #treePeakKb = 0;
  #hwmKb = 0;

  constructor(pid: number) {
    this.#pid = pid;
  }

  sample(): this {
    let rss = 0;
    for (const p of procTree(this.#pid)) {
      const st = readStat(p);
      if (st !== undefined) this.#ticks.set(p, st.ticks);
      rss += statusKb(p, 'VmRSS');
    }
    this.#treePeakKb = Math.max(this.#treePeakKb, rss);
    const h = statusKb(this.#pid, 'VmHWM');
    if (h > 0) this.#hwmKb = h;
    return this;
  }

  cpuSeconds(): number {
    this.sample();
    let t = 0;
    for (const v of this.#ticks.values()) t += v;
    return t / CLK;
  }

  peakRssMiB(): number {
    return Math.max(this.#hwmKb, this.#treePeakKb) / 1024;
  }
}

/** busyTicks is the machine's busy CPU time so far, in seconds (all CPUs). */
export function busySeconds(): number {
  let busy = 0;
  for (const l of readFileSync('/proc/stat', 'utf8').split('\n')) {
    const m = /^cpu(\d+)\s+(.*)$/.exec(l);
    if (m === null) continue;
    const v = m[2]!.trim().split(/\s+/).map(Number);
    const total = v.slice(0, 8).reduce((x, y) => x + y, 0);
    busy += total - v[3]! - v[4]!;
  }
  return busy / CLK;
}

// ---------- wrk ----------

/** WrkResult is what one wrk run measured. */
export interface WrkResult {
  readonly rps: number;
  readonly requests: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly socketErrors: number;
  /** wrkCpuSeconds is wrk's own CPU time (to tell the other load apart). */
  readonly wrkCpuSeconds: number;
  readonly raw: string;
}

const toMs = (v: string, u: string) => Number(v) * ({ us: 1e-3, ms: 1, s: 1e3, m: 60e3, h: 3600e3 } as Record<string, number>)[u]!;

function parseWrk(out: string): WrkResult {
  const lat: Record<string, number> = {};
  for (const m of out.matchAll(/^\s*(50|99)%\s+([\d.]+)(us|ms|s|m|h)\s*$/gm)) lat[m[1]!] = toMs(m[2]!, m[3]!);
  const se = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const ws = /^@@WRKSTAT .*\)\s+(.*)$/m.exec(out);
  const wf = ws === null ? undefined : ws[1]!.trim().split(/\s+/);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN),
    requests: Number(/(\d+) requests in/.exec(out)?.[1] ?? 0),
    p50Ms: lat['50'] ?? NaN,
    p99Ms: lat['99'] ?? NaN,
    non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0),
    socketErrors: se === null ? 0 : se.slice(1).reduce((x, y) => x + Number(y), 0),
    wrkCpuSeconds: wf === undefined ? NaN : (Number(wf[13]) + Number(wf[14])) / CLK,
    raw: out,
  };
}

/** wrk runs the load generator (HTTP/1.1 keep-alive, --latency) with headers, pinned to cpus when given. */
export function wrk(o: { wrk: string; url: string; conns: number; seconds: number; threads: number; headers: Record<string, string>; cpus?: string }): Promise<WrkResult> {
  const args = ['-t', String(Math.min(o.threads, o.conns)), '-c', String(o.conns), '-d', `${o.seconds}s`, '--timeout', '10s', '--latency'];
  for (const [k, v] of Object.entries(o.headers)) args.push('-H', `${k}: ${v}`);
  args.push(o.url);
  // sh reaps wrk, then prints its own /proc stat, whose cutime+cstime are wrk's CPU time (as run.mjs does).
  const sh = ['sh', '-c', 'wrk="$1"; shift; "$wrk" "$@"; rc=$?; echo "@@WRKSTAT $(cat /proc/$$/stat)"; exit $rc', 'sh', o.wrk, ...args];
  const argv = o.cpus === undefined ? sh : ['taskset', '-c', o.cpus, ...sh];
  return new Promise((resolve) => {
    const c = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    c.stdout.on('data', (d: Buffer) => (out += d.toString()));
    c.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const t = setTimeout(() => c.kill('SIGKILL'), (o.seconds + 30) * 1000);
    c.on('close', () => {
      clearTimeout(t);
      resolve(parseWrk(out));
    });
  });
}

/** Stats are the median and range of a list. */
export interface Stats {
  readonly med: number;
  readonly min: number;
  readonly max: number;
}

export function stats(xs: readonly number[]): Stats {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return { med: NaN, min: NaN, max: NaN };
  const m = s.length >> 1;
  return { med: s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2, min: s[0]!, max: s[s.length - 1]! };
}
