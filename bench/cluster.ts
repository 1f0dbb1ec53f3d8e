// bench/cluster.ts: the cluster benchmark (issue 19). Loads the shared kit's workload (10k series ×
// 1,440 points by default, Prometheus text) into four topologies started fresh on loopback, one after
// another, and measures each the same way:
//   vm        VictoriaMetrics 1.79.5 single node (skipped when `victoria-metrics` is not installed)
//   single    Strata's single-node tsdb
//   rf1       2 × tsdb-storage, 1 × tsdb-insert, 1 × tsdb-select, -replicationFactor=1
//   rf2       the same with -replicationFactor=2
// Figures: ingest rows/s, CPU-seconds per 1M rows per process (and summed), bytes over the wire
// insert → storage per row (from tsdb-insert's own counters), bytes/sample on disk after
// force_flush + force_merge (summed over the storage nodes), peak RSS summed over the topology's
// processes, and the kit's 25-query set (sum of serial medians). Medians over --repeat runs.
//
//   node bench/cluster.ts [--series 10000] [--points 1440] [--repeat 3] [--topologies vm,single,rf1,rf2]
//                         [--kit ../shared/bench] [--work /tmp/cluster-bench] [--out report.md] [--cpu-prof DIR]
// --cpu-prof DIR runs every started process with --cpu-prof into DIR (profiles written at exit).

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, openSync, closeSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const repo = join(import.meta.dirname, '..');
const { values: a } = parseArgs({
  options: {
    series: { type: 'string', default: '10000' },
    points: { type: 'string', default: '1440' },
    repeat: { type: 'string', default: '3' },
    topologies: { type: 'string', default: 'vm,single,rf1,rf2' },
    kit: { type: 'string', default: process.env.STRATA_BENCH_KIT ?? join(repo, '..', 'shared', 'bench') },
    work: { type: 'string', default: '/tmp/cluster-bench' },
    out: { type: 'string' },
    'cpu-prof': { type: 'string' },
  },
});
mkdirSync(a.work, { recursive: true });

interface Meta { readonly rows: number; readonly series: number; readonly points: number }
interface Kit {
  generate(o: object): Promise<void>;
  defaultStart(points: number, interval: number): number;
  ingest(o: { base: string; file: string; path?: string; verify?: boolean; concurrency?: number }): Promise<{ rows_per_s: number }>;
  waitQueryable(base: string, meta: Meta): Promise<{ samples_ok: boolean; samples_seen: number; queryable_ms: number }>;
  runQueries(o: { base: string; meta: Meta; log: () => void }): Promise<{ serial_sum_median_ms: number; concurrent: { qps: number } }>;
  procStatus(pid: number): { hwm_kb: number };
  procCpuSec(pid: number): number;
  du(dir: string): Promise<{ apparent: number }>;
  settle(pid: number, o?: object): Promise<unknown>;
  readMeta(file: string): Meta;
  request(url: string, o?: object): Promise<{ status: number; body: Buffer }>;
}
const kit = {
  ...(await import(join(a.kit, 'gen.mjs'))),
  ...(await import(join(a.kit, 'ingest.mjs'))),
  ...(await import(join(a.kit, 'query.mjs'))),
  ...(await import(join(a.kit, 'lib.mjs'))),
} as Kit;

const node = process.execPath;
const cmd = (bin: string) => [node, join(repo, 'src/cmd', `${bin}.ts`)];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const freePort = () => new Promise<number>((resolve, reject) => {
  const s = createServer().listen(0, '127.0.0.1', () => { const p = (s.address() as { port: number }).port; s.close(() => resolve(p)); });
  s.on('error', reject);
});

interface Proc { readonly name: string; readonly child: ChildProcess; readonly pid: number; readonly http: string }
interface Topology {
  readonly procs: Proc[];
  readonly writeBase: string;
  readonly readBase: string;
  readonly storageHttp: string[];
  readonly dataDirs: string[];
  /** wireBytes reads the bytes tsdb-insert sent to storage nodes so far (cluster only). */
  readonly wireBytes?: () => Promise<number>;
}

function start(name: string, argv: string[], logDir: string): Proc {
  const fd = openSync(join(logDir, `${name}.log`), 'w');
  const env = a['cpu-prof'] === undefined ? process.env : { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --cpu-prof --cpu-prof-dir=${join(a['cpu-prof'], name)}` };
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', fd, fd], env });
  child.on('exit', () => closeSync(fd));
  const http = argv.find((x) => x.startsWith('-httpListenAddr='))!.split('=')[1]!;
  return { name, child, pid: child.pid!, http: `http://${http}` };
}

async function ready(p: Proc, path: string): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (p.child.exitCode !== null) throw new Error(`${p.name} exited with ${p.child.exitCode} during start`);
    try { if ((await kit.request(p.http + path, { timeoutMs: 2000 })).status === 200) return; } catch { /* not yet */ }
    await sleep(100);
  }
  throw new Error(`${p.name} not ready after 120 s`);
}

async function startTopology(kind: string, dir: string): Promise<Topology> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const addr = async () => `127.0.0.1:${await freePort()}`;
  if (kind === 'vm' || kind === 'single') {
    const data = join(dir, 'data');
    const http = await addr();
    const argv = kind === 'vm'
      ? ['victoria-metrics', `-storageDataPath=${data}`, `-httpListenAddr=${http}`, '-retentionPeriod=100y', '-search.disableCache']
      : [...cmd('tsdb'), `-storageDataPath=${data}`, `-httpListenAddr=${http}`, '-retentionPeriod=100y', '-search.disableCache', '-http.connTimeout=0'];
    const p = start(kind, argv, dir);
    await ready(p, '/api/v1/query?query=1');
    return { procs: [p], writeBase: p.http, readBase: p.http, storageHttp: [p.http], dataDirs: [data] };
  }
  const rf = kind === 'rf2' ? 2 : 1;
  const storages: Proc[] = [];
  const insertAddrs: string[] = [];
  const selectAddrs: string[] = [];
  for (let i = 0; i < 2; i++) {
    const [http, ins, sel] = [await addr(), await addr(), await addr()];
    insertAddrs.push(ins);
    selectAddrs.push(sel);
    storages.push(start(`storage-${i}`, [...cmd('tsdb-storage'), `-storageDataPath=${join(dir, `storage-${i}`)}`, `-httpListenAddr=${http}`,
      `-insertAddr=${ins}`, `-selectAddr=${sel}`, '-retentionPeriod=100y'], dir));
  }
  for (const s of storages) await ready(s, '/health');
  const insert = start('insert', [...cmd('tsdb-insert'), `-httpListenAddr=${await addr()}`, `-storageNode=${insertAddrs.join(',')}`,
    `-replicationFactor=${rf}`, '-http.connTimeout=0'], dir);
  const select = start('select', [...cmd('tsdb-select'), `-httpListenAddr=${await addr()}`, `-storageNode=${selectAddrs.join(',')}`,
    `-replicationFactor=${rf}`, '-search.disableCache'], dir);
  await ready(insert, '/health');
  await ready(select, '/select/0/prometheus/api/v1/query?query=1');
  const wireBytes = async () => {
    const text = (await kit.request(`${insert.http}/metrics`)).body.toString();
    let sum = 0;
    for (const m of text.matchAll(/^tsdb_rpc_client_sent_bytes_total\{[^}]*\} (\S+)$/gm)) sum += Number(m[1]);
    return sum;
  };
  return {
    procs: [...storages, insert, select],
    writeBase: `${insert.http}/insert/0/prometheus`,
    readBase: `${select.http}/select/0/prometheus`,
    storageHttp: storages.map((s) => s.http),
    dataDirs: storages.map((_, i) => join(dir, `storage-${i}`)),
    wireBytes,
  };
}

async function stop(t: Topology): Promise<void> {
  for (const p of [...t.procs].reverse()) {
    if (p.child.exitCode !== null) continue;
    p.child.kill('SIGTERM');
    for (let i = 0; i < 300 && p.child.exitCode === null; i++) await sleep(100);
    if (p.child.exitCode === null) p.child.kill('SIGKILL');
  }
}

interface Run {
  rowsPerS: number; cpuPerMRows: Record<string, number>; cpuPerMRowsTotal: number; wireBytesPerRow?: number;
  bytesPerSample: number; peakRssMiB: number; querySetMs: number; qps: number; samplesOk: boolean;
  /** queryCpuS: CPU-seconds per process during the query set (serial and concurrent phases). */
  queryCpuS: Record<string, number>;
}

async function runOnce(kind: string, rep: number, file: string, meta: Meta): Promise<Run> {
  const dir = join(a.work, `${kind}-${rep}`);
  const t = await startTopology(kind, dir);
  try {
    const cpu0 = t.procs.map((p) => kit.procCpuSec(p.pid));
    const wire0 = t.wireBytes === undefined ? 0 : await t.wireBytes();
    const ing = await kit.ingest({ base: t.writeBase, file, path: '/api/v1/import/prometheus', verify: false });
    const cpu = Object.fromEntries(t.procs.map((p, i) => [p.name, ((kit.procCpuSec(p.pid) - cpu0[i]!) / meta.rows) * 1e6]));
    const wire = t.wireBytes === undefined ? undefined : (await t.wireBytes() - wire0) / meta.rows;
    for (const s of t.storageHttp) await kit.request(`${s}/internal/force_flush`, { timeoutMs: 600e3 });
    const q = await kit.waitQueryable(t.readBase, meta);
    const qcpu0 = t.procs.map((p) => kit.procCpuSec(p.pid));
    const query = await kit.runQueries({ base: t.readBase, meta, log: () => {} });
    const queryCpuS = Object.fromEntries(t.procs.map((p, i) => [p.name, kit.procCpuSec(p.pid) - qcpu0[i]!]));
    for (const s of t.storageHttp) await kit.request(`${s}/internal/force_merge`, { timeoutMs: 600e3 });
    for (const p of t.procs) await kit.settle(p.pid, { timeoutMs: 120e3 });
    let disk = 0;
    for (const d of t.dataDirs) disk += (await kit.du(d)).apparent;
    const rss = t.procs.reduce((s, p) => s + kit.procStatus(p.pid).hwm_kb, 0) / 1024;
    return {
      rowsPerS: ing.rows_per_s, cpuPerMRows: cpu, cpuPerMRowsTotal: Object.values(cpu).reduce((x, y) => x + y, 0),
      ...(wire === undefined ? {} : { wireBytesPerRow: wire }),
      bytesPerSample: disk / meta.rows, peakRssMiB: rss, querySetMs: query.serial_sum_median_ms, qps: query.concurrent.qps, samplesOk: q.samples_ok,
      queryCpuS,
    };
  } finally {
    await stop(t);
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => { const v = [...xs].sort((p, q) => p - q); const m = v.length >> 1; return v.length % 2 ? v[m]! : (v[m - 1]! + v[m]!) / 2; };
const hasVm = spawnSync('sh', ['-c', 'command -v victoria-metrics']).status === 0;
const kinds = a.topologies.split(',').filter((k) => k !== 'vm' || hasVm);
const start0 = kit.defaultStart(Number(a.points), 60);
const file = join(a.work, `s${a.series}-p${a.points}-t${start0}.prom`);
await kit.generate({ series: Number(a.series), points: Number(a.points), interval: 60, start: start0, seed: 42, format: 'prom', out: file });
const meta = kit.readMeta(file);
const runs: Record<string, Run[]> = Object.fromEntries(kinds.map((k) => [k, []]));
for (let rep = 1; rep <= Number(a.repeat); rep++) {
  for (const k of kinds) {
    console.error(`[${new Date().toISOString().slice(11, 19)}] ${k} #${rep}`);
    runs[k]!.push(await runOnce(k, rep, file, meta));
  }
}

const fig = (k: string, f: (r: Run) => number | undefined) => {
  const xs = runs[k]!.map(f).filter((x): x is number => x !== undefined && Number.isFinite(x));
  return xs.length === 0 ? undefined : median(xs);
};
const fmt = (x: number | undefined, d = 0) => (x === undefined ? '–' : x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }));
const rows: [string, (r: Run) => number | undefined, number][] = [
  ['ingest rows/s', (r) => r.rowsPerS, 0],
  ['CPU-s per 1M rows, all processes', (r) => r.cpuPerMRowsTotal, 2],
  ['CPU-s per 1M rows, tsdb-insert', (r) => r.cpuPerMRows['insert'], 2],
  ['CPU-s per 1M rows, each storage node', (r) => (r.cpuPerMRows['storage-0'] === undefined ? undefined : (r.cpuPerMRows['storage-0'] + r.cpuPerMRows['storage-1']!) / 2), 2],
  ['bytes over the wire insert→storage per row', (r) => r.wireBytesPerRow, 1],
  ['bytes/sample on disk after merge (all nodes)', (r) => r.bytesPerSample, 3],
  ['peak RSS summed, MiB', (r) => r.peakRssMiB, 0],
  ['query set, sum of serial medians, ms', (r) => r.querySetMs, 0],
  ['4 concurrent clients, q/s', (r) => r.qps, 1],
  ['CPU-s in the query set, all processes', (r) => Object.values(r.queryCpuS).reduce((x, y) => x + y, 0), 1],
  ['CPU-s in the query set, tsdb-select', (r) => r.queryCpuS['select'], 1],
  ['CPU-s in the query set, storage nodes summed', (r) => (r.queryCpuS['storage-0'] === undefined ? undefined : r.queryCpuS['storage-0'] + r.queryCpuS['storage-1']!), 1],
];
let out = `Workload: ${meta.series} series × ${meta.points} points (${meta.rows} rows), Prometheus text, ${a.repeat} runs per topology, medians.\n\n`;
out += `| figure | ${kinds.join(' | ')} | rf1 / single | rf2 / single |\n|---|${kinds.map(() => '---|').join('')}---|---|\n`;
for (const [name, f, d] of rows) {
  const v = kinds.map((k) => fig(k, f));
  const ratio = (k: string) => { const x = kinds.includes(k) ? fig(k, f) : undefined; const s = kinds.includes('single') ? fig('single', f) : undefined; return x === undefined || s === undefined ? '–' : (x / s).toFixed(2); };
  out += `| ${name} | ${v.map((x) => fmt(x, d)).join(' | ')} | ${ratio('rf1')} | ${ratio('rf2')} |\n`;
}
out += `\nAll samples found through the read path: ${kinds.map((k) => `${k} ${runs[k]!.every((r) => r.samplesOk) ? 'yes' : 'NO'}`).join(', ')}.\n`;
const single = kinds.includes('single') && kinds.includes('rf1');
if (single) {
  const ing = fig('rf1', (r) => r.rowsPerS)! / fig('single', (r) => r.rowsPerS)!;
  const qs = fig('rf1', (r) => r.querySetMs)! / fig('single', (r) => r.querySetMs)!;
  out += `Floors: factor-1 ingestion ${ing.toFixed(2)}× the single node (floor ≥ 0.6: ${ing >= 0.6 ? 'met' : 'NOT met'}); query set ${qs.toFixed(2)}× (floor ≤ 1.5: ${qs <= 1.5 ? 'met' : 'NOT met'}).\n`;
}
console.log(out);
if (a.out !== undefined) writeFileSync(a.out, out);
