// Query latency benchmark (a script, not a test): VictoriaMetrics 1.79.5 and tsdb on the same
// node_exporter-like workload, the peer toolkit's query set (/work/shared/bench/query.mjs: 10
// PromQL expressions as instant and as 24 h range queries, step 60 s, plus index and export
// calls), serial and with 4 concurrent clients.
//
//   node bench/query-latency.ts [--series 10000] [--points 1440] [--rounds 3] [--reps 5]
//        [--work /tmp/tsdb-bench] [--start <ms>] [--cache] [--only vm|strata] [--json out.json]
//        [--tsdb-flags='-search.queryWorkers=2 ...'] (extra flags for the Strata server only; with '=', since they start with a dash)
//
// Each server is loaded once into a data dir kept under --work (loaded/<server>-<workload>,
// force-flushed and force-merged), then every round starts each server on its loaded dir (the
// order alternates between rounds), runs the query set once untimed, then timed, and stops it.
// Figures are medians over the rounds of each round's serial median. Both servers run with their result caches off
// (VictoriaMetrics -search.disableCache, tsdb -search.disableCache); --cache turns both on.
// "other load" is the CPU the rest of the machine used meanwhile, in cores: the machine is
// shared, and a round with a high value is noisy.

import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values: a } = parseArgs({ options: {
  series: { type: 'string', default: '10000' }, points: { type: 'string', default: '1440' }, interval: { type: 'string', default: '60' },
  rounds: { type: 'string', default: '3' }, reps: { type: 'string', default: '5' }, concurrency: { type: 'string', default: '4' },
  work: { type: 'string', default: '/tmp/tsdb-bench' }, start: { type: 'string' }, kit: { type: 'string', default: '/work/shared/bench' },
  cache: { type: 'boolean', default: false }, only: { type: 'string' }, json: { type: 'string' },
  'tsdb-flags': { type: 'string', default: '' },
} });

const ROOT = resolve(import.meta.dirname, '..');
const NODE = join(ROOT, 'node_modules/.bin/node');

interface Server {
  readonly name: string;
  readonly cmd: (data: string, addr: string) => string;
}

const SERVERS: readonly Server[] = [
  { name: 'vm', cmd: (d, addr) => `victoria-metrics -storageDataPath=${d} -httpListenAddr=${addr} -retentionPeriod=100y -loggerLevel=ERROR${a.cache ? '' : ' -search.disableCache'}` },
  { name: 'strata', cmd: (d, addr) => `${NODE} ${join(ROOT, 'src/cmd/tsdb.ts')} -storageDataPath=${d} -httpListenAddr=${addr} -retentionPeriod=100y -loggerLevel=ERROR${a.cache ? '' : ' -search.disableCache'}${a['tsdb-flags'] === '' ? '' : ` ${a['tsdb-flags']}`}` },
];

// The peer toolkit is plain JavaScript without types: the few functions used are typed here.
interface Stats { median: number; min: number; max: number }
interface QueryRun { serial: Record<string, Stats & { series?: number; err?: string }>; serial_sum_median_ms: number; concurrent: { qps: number } }
interface Kit {
  generate(o: Record<string, unknown>): Promise<void>;
  defaultStart(points: number, interval: number): number;
  GENERATOR_VERSION: number;
  ingest(o: { base: string; file: string }): Promise<{ rows_per_s: number }>;
  runQueries(o: { base: string; meta: unknown; reps: number; concurrency: number; rounds: number }): Promise<QueryRun>;
  buildQueries(meta: unknown): { list: { path: string; params: Record<string, string | number> }[] };
  qs(params: Record<string, string | number>): string;
  readMeta(file: string): unknown;
  request(url: string, o?: { method?: string }): Promise<{ status: number }>;
  settledDu(pid: number, dir: string): Promise<unknown>;
  waitQueryable(base: string, meta: unknown): Promise<{ samples_ok: boolean; samples_seen: number }>;
}

async function loadKit(dir: string): Promise<Kit> {
  const mod = async (f: string): Promise<Record<string, unknown>> => import(pathToFileURL(join(dir, f)).href) as Promise<Record<string, unknown>>;
  return { ...(await mod('gen.mjs')), ...(await mod('ingest.mjs')), ...(await mod('query.mjs')), ...(await mod('lib.mjs')) } as unknown as Kit;
}

const log = (s: string): void => console.error(`[${new Date().toISOString().slice(11, 19)}] ${s}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => res(port));
    }).on('error', rej);
  });
}

/** cpuSeconds reads utime+stime of a process, or of the whole machine (busy time over all cores). */
function cpuSeconds(pid?: number): number {
  if (pid === undefined) {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    return (f[0]! + f[1]! + f[2]! + f[5]! + f[6]! + f[7]!) / 100;
  }
  const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

interface Running {
  readonly base: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

async function start(kit: Kit, server: Server, data: string): Promise<Running> {
  const addr = `127.0.0.1:${await freePort()}`;
  const logFd = openSync(`${data}.log`, 'a');
  const child = spawn('sh', ['-c', `exec ${server.cmd(data, addr)}`], { stdio: ['ignore', logFd, logFd] });
  closeSync(logFd);
  let exited = false;
  const done = new Promise<void>((r) => child.once('exit', () => {
    exited = true;
    r();
  }));
  const base = `http://${addr}`;
  for (let i = 0; ; i++) {
    if (exited) throw new Error(`${server.name} exited during start; see ${data}.log`);
    if ((await kit.request(`${base}/health`).catch(() => ({ status: 0 }))).status === 200) break;
    if (i > 600) throw new Error(`${server.name} not ready after 60 s; see ${data}.log`);
    await sleep(100);
  }
  return {
    base, child, stop: async () => {
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await done;
      clearTimeout(t);
    },
  };
}

/** loaded returns a data dir holding the workload for server, loading it the first time. */
async function loaded(kit: Kit, server: Server, file: string, key: string): Promise<string> {
  const dir = join(a.work, 'loaded', `${server.name}-${key}`);
  if (existsSync(`${dir}.loaded`)) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  log(`${server.name}: loading ${file}`);
  const s = await start(kit, server, dir);
  try {
    const r = await kit.ingest({ base: s.base, file });
    log(`${server.name}: ${Math.round(r.rows_per_s).toLocaleString('en-US')} rows/s`);
    // VictoriaMetrics merges in the background after answering and keeps new parts in memory
    // for a few seconds; a stop before they are written loses them: wait until it is idle.
    await kit.request(`${s.base}/internal/force_merge`).catch(() => undefined);
    await kit.settledDu(s.child.pid!, dir);
  } finally {
    await s.stop();
  }
  // Every sample must be there after a restart, or the comparison would be meaningless.
  const check = await start(kit, server, dir);
  try {
    const v = await kit.waitQueryable(check.base, kit.readMeta(file));
    if (!v.samples_ok) throw new Error(`${server.name} holds ${v.samples_seen} samples after a restart, not all of ${file}`);
  } finally {
    await check.stop();
  }
  writeFileSync(`${dir}.loaded`, new Date().toISOString());
  return dir;
}

interface Round { readonly run: QueryRun; readonly otherCores: number }

async function measure(kit: Kit, server: Server, dir: string, meta: unknown): Promise<Round> {
  const s = await start(kit, server, dir);
  try {
    const pid = s.child.pid!;
    // One untimed pass over the whole set first: the figures are for a warmed-up server (for
    // tsdb, code the JIT has optimised), not for the first requests after a start.
    for (const q of kit.buildQueries(meta).list) await kit.request(`${s.base}${q.path}?${kit.qs(q.params)}`);
    const m0 = cpuSeconds();
    const s0 = cpuSeconds(pid);
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const run = await kit.runQueries({ base: s.base, meta, reps: Number(a.reps), concurrency: Number(a.concurrency), rounds: 2 });
    const wall = (performance.now() - t0) / 1000;
    const c = process.cpuUsage(c0);
    const other = cpuSeconds() - m0 - (cpuSeconds(pid) - s0) - (c.user + c.system) / 1e6;
    return { run, otherCores: Math.max(0, other / wall) };
  } finally {
    await s.stop();
  }
}

const median = (xs: readonly number[]): number => {
  const s = xs.filter(Number.isFinite).sort((x, y) => x - y);
  if (s.length === 0) return NaN;
  return s.length % 2 === 1 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const fmt = (x: number, d = 2): string => (Number.isFinite(x) ? x.toFixed(d) : '-');

function table(results: Map<string, Round[]>): string {
  const names = [...results.keys()];
  const first = results.get(names[0]!)![0]!.run;
  const rows = [`| query | ${names.map((n) => `${n} ms`).join(' | ')} |${names.length > 1 ? ' ratio |' : ''}`, `|---|${names.map(() => '---|').join('')}${names.length > 1 ? '---|' : ''}`];
  const ratios: number[] = [];
  const per = (n: string, q: string) => median(results.get(n)!.map((r) => r.run.serial[q]?.err === undefined ? r.run.serial[q]?.median ?? NaN : NaN));
  for (const q of Object.keys(first.serial)) {
    const ms = names.map((n) => per(n, q));
    const ratio = ms[1]! / ms[0]!;
    if (names.length > 1) ratios.push(ratio);
    rows.push(`| ${q} | ${ms.map((x) => fmt(x)).join(' | ')} |${names.length > 1 ? ` ${fmt(ratio)} |` : ''}`);
  }
  const agg = (label: string, f: (r: Round) => number, d = 1) => {
    const v = names.map((n) => median(results.get(n)!.map(f)));
    rows.push(`| **${label}** | ${v.map((x) => fmt(x, d)).join(' | ')} |${names.length > 1 ? ` ${fmt(v[1]! / v[0]!)} |` : ''}`);
  };
  agg('sum of serial medians, ms', (r) => r.run.serial_sum_median_ms);
  agg(`${a.concurrency} concurrent clients, q/s`, (r) => r.run.concurrent.qps);
  agg('other load, cores', (r) => r.otherCores, 2);
  if (ratios.length > 0) rows.push(`| **median of per-query ratios** | | | ${fmt(median(ratios))} |`);
  return rows.join('\n');
}

async function main(): Promise<void> {
  const kit = await loadKit(a.kit);
  const P = { series: Number(a.series), points: Number(a.points), interval: Number(a.interval), seed: 42 };
  const startMs = a.start === undefined ? kit.defaultStart(P.points, P.interval) : Number(a.start);
  const key = `g${kit.GENERATOR_VERSION}-s${P.series}-p${P.points}-i${P.interval}-t${startMs}-seed${P.seed}`;
  const file = join(a.work, 'data', `${key}.prom`);
  mkdirSync(join(a.work, 'data'), { recursive: true });
  if (!existsSync(`${file}.meta.json`)) {
    log(`generating ${file}`);
    await kit.generate({ ...P, start: startMs, format: 'prom', out: file });
  }
  const meta = kit.readMeta(file);
  const servers = SERVERS.filter((s) => a.only === undefined || s.name === a.only);
  const dirs = new Map<string, string>();
  for (const s of servers) dirs.set(s.name, await loaded(kit, s, file, key));
  const results = new Map<string, Round[]>(servers.map((s) => [s.name, []]));
  for (let r = 0; r < Number(a.rounds); r++) {
    for (const s of r % 2 === 0 ? servers : [...servers].reverse()) {
      log(`round ${r + 1}: ${s.name}`);
      const round = await measure(kit, s, dirs.get(s.name)!, meta);
      log(`  sum of serial medians ${fmt(round.run.serial_sum_median_ms, 1)} ms, ${fmt(round.run.concurrent.qps, 1)} q/s, other load ${fmt(round.otherCores)} cores`);
      results.get(s.name)!.push(round);
    }
  }
  console.log(`\nworkload ${key}, ${a.rounds} rounds x ${a.reps} reps, caches ${a.cache ? 'on' : 'off'}\n`);
  console.log(table(results));
  if (a.json !== undefined) writeFileSync(a.json, JSON.stringify({ args: a, key, results: Object.fromEntries(results) }, null, 1));
}

await main();
