// bench/startup.ts: startup to first answer (issue 18 item 4). Starts Strata's tsdb --runs times on
// an empty data dir and on a loaded one, and VictoriaMetrics 1.79.5 the same way (skipped when
// `victoria-metrics` is not installed), interleaved, and prints medians [min-max] of:
//   first answer, ms   from spawn to the first 200 of GET /api/v1/query?query=1 (the shared kit's
//                      "startup to first answer"; the kit polls every 100 ms, this every --poll-ms)
//   CPU-s              utime+stime of the server process at that answer (/proc/<pid>/stat, 10 ms
//                      ticks), including a re-execution of itself; the figure to trust on a busy machine
//   RSS, MiB           VmRSS at that answer
// with the ratios to VictoriaMetrics. Strata is started two ways:
//   launched   as the launchers start it (npm start, bench/tsdb.ts, the images): its Node flags and
//              environment given (src/lib/process/tuning.ts), so it runs in one process with every
//              module from Node's compile cache
//   bare       `node src/cmd/tsdb.ts` with none of them: it re-executes itself (reexec.ts)
// The loaded data dirs (--series × --points of the kit's workload, Prometheus text, force-merged)
// are made once with the kit's run.mjs --keep and reused; --data-strata/--data-vm give others.
// Every start of a loaded dir reuses the same dir (a start does not change it).
//
//   node bench/startup.ts [--runs 7] [--series 10000] [--points 1440] [--launch launched,bare]
//                         [--no-data] [--no-peer] [--data-strata DIR] [--data-vm DIR] [--tsdb PATH]
//                         [--before PATH] [--poll-ms 2] [--kit ../shared/bench] [--work /tmp/startup-bench] [--out report.md]
// --tsdb runs another checkout's src/cmd/tsdb.ts; --before PATH adds starts of that one (the
// src/cmd/tsdb.ts of a before worktree) in each --launch way, interleaved with the others, and the
// CPU ratio of each way to the before's same way.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { tunedLaunch } from '../src/lib/process/reexec.ts';
import { TSDB_TUNING } from '../src/lib/process/tuning.ts';

const repo = join(import.meta.dirname, '..');
const { values: a } = parseArgs({
  options: {
    runs: { type: 'string', default: '7' },
    series: { type: 'string', default: '10000' },
    points: { type: 'string', default: '1440' },
    launch: { type: 'string', default: 'launched,bare' },
    'no-data': { type: 'boolean', default: false },
    'no-peer': { type: 'boolean', default: false },
    'data-strata': { type: 'string' },
    'data-vm': { type: 'string' },
    tsdb: { type: 'string', default: join(repo, 'src/cmd/tsdb.ts') },
    before: { type: 'string' },
    'poll-ms': { type: 'string', default: '2' },
    kit: { type: 'string', default: process.env.STRATA_BENCH_KIT ?? join(repo, '..', 'shared', 'bench') },
    work: { type: 'string', default: '/tmp/startup-bench' },
    out: { type: 'string' },
  },
});
mkdirSync(a.work, { recursive: true });
const tsdbPath = resolve(a.tsdb);
const pollMs = Number(a['poll-ms']);
const peer = !a['no-peer'] && spawnSync('sh', ['-c', 'command -v victoria-metrics'], { encoding: 'utf8' }).status === 0;
if (!a['no-peer'] && !peer) console.error('victoria-metrics is not installed: measuring Strata alone (apt-get install victoria-metrics for the peer)');
const log = (s: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${s}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// The environment every server starts from: the caller's, without anything that tunes Node, so
// "bare" is a plain start and "launched" gets exactly what tunedLaunch adds.
const TUNING_VARS = ['NODE_OPTIONS', 'NODE_COMPILE_CACHE', 'NODE_DISABLE_COMPILE_CACHE', ...Object.keys(TSDB_TUNING.env ?? {})];
const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !TUNING_VARS.includes(k))) as Record<string, string>;
const launched = tunedLaunch(TSDB_TUNING);

interface Server {
  readonly name: string;
  /** argv for a data dir and listen address. */
  argv(data: string, addr: string): string[];
  readonly env: Record<string, string>;
}
const tsdbArgs = (data: string, addr: string) => [`-storageDataPath=${data}`, `-httpListenAddr=${addr}`, '-retentionPeriod=100y', '-search.disableCache'];
const SERVERS: Record<string, Server> = {
  vm: {
    name: 'VictoriaMetrics', env: baseEnv,
    argv: (d, addr) => ['victoria-metrics', `-storageDataPath=${d}`, `-httpListenAddr=${addr}`, '-retentionPeriod=100y', '-search.disableCache'],
  },
  launched: {
    name: 'tsdb, launched', env: { ...baseEnv, ...launched.env },
    argv: (d, addr) => [process.execPath, ...launched.nodeFlags, tsdbPath, ...tsdbArgs(d, addr)],
  },
  bare: { name: 'tsdb, bare', env: baseEnv, argv: (d, addr) => [process.execPath, tsdbPath, ...tsdbArgs(d, addr)] },
};
const launches = a.launch.split(',').filter((s) => s !== '');
for (const v of launches) if (v !== 'launched' && v !== 'bare') throw new Error(`unknown --launch "${v}": use launched and/or bare`);
if (a.before !== undefined) {
  const before = resolve(a.before);
  for (const v of launches) {
    const way = SERVERS[v]!;
    SERVERS[`before-${v}`] = { name: `tsdb before, ${v}`, env: way.env, argv: (d, addr) => way.argv(d, addr).map((x) => (x === tsdbPath ? before : x)) };
  }
}
const variants = [...(peer ? ['vm'] : []), ...(a.before === undefined ? [] : launches.map((v) => `before-${v}`)), ...launches];

const freePort = () => new Promise<number>((res, rej) => {
  const s = createServer().listen(0, '127.0.0.1', () => { const p = (s.address() as { port: number }).port; s.close(() => res(p)); });
  s.on('error', rej);
});
/** get resolves with the status of one GET on a fresh connection, or 0 when it fails. */
const get = (url: string) => new Promise<number>((res) => {
  const req = request(url, { agent: false, timeout: 5000 }, (r) => { r.resume(); r.on('end', () => res(r.statusCode ?? 0)); });
  req.on('timeout', () => req.destroy());
  req.on('error', () => res(0));
  req.end();
});
function procCpuSec(pid: number): number {
  const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}
const rssMiB = (pid: number) => Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

interface Sample { readonly ms: number; readonly cpuS: number; readonly rssMiB: number }

/** startOnce starts a server on data, waits for its first answer, reads its figures and stops it. */
async function startOnce(s: Server, data: string): Promise<Sample> {
  const addr = `127.0.0.1:${await freePort()}`;
  const argv = s.argv(data, addr);
  const t0 = performance.now();
  const child = spawn(argv[0]!, argv.slice(1), { stdio: 'ignore', env: s.env });
  let exited = false;
  child.on('exit', () => (exited = true));
  try {
    for (;;) {
      if (exited) throw new Error(`${s.name} exited during start: ${argv.join(' ')}`);
      if (await get(`http://${addr}/api/v1/query?query=1`) === 200) break;
      if (performance.now() - t0 > 60_000) throw new Error(`${s.name} gave no answer within 60 s`);
      await sleep(pollMs);
    }
    const ms = performance.now() - t0;
    return { ms, cpuS: procCpuSec(child.pid!), rssMiB: rssMiB(child.pid!) };
  } finally {
    if (!exited) {
      child.kill('SIGTERM');
      for (let i = 0; i < 300 && !exited; i++) await sleep(100);
      if (!exited) child.kill('SIGKILL');
    }
  }
}

/** loadedDirs makes (once) a force-merged data dir per server with the kit's run.mjs --keep. */
function loadedDirs(): { strata: string; vm: string | undefined } {
  if (a['data-strata'] !== undefined) return { strata: a['data-strata'], vm: a['data-vm'] };
  const prep = join(a.work, `loaded-s${a.series}-p${a.points}`);
  const strata = join(prep, 'srv-startupstrata-1');
  const vm = join(prep, 'srv-startupvm-1');
  const done = join(prep, 'done');
  if (!existsSync(done) || (peer && !existsSync(vm))) {
    log(`loading ${a.series} series × ${a.points} points into ${prep} (once)`);
    // -http.connTimeout=0 as bench/tsdb.ts: the kit's keep-alive connections must not be closed under it.
    const tsdb = [process.execPath, ...launched.nodeFlags, tsdbPath, '-storageDataPath={data} -httpListenAddr={addr} -retentionPeriod=100y -http.connTimeout=0'].join(' ');
    const envPrefix = Object.entries(launched.env).map(([k, v]) => `${k}=${v}`).join(' ');
    const args = [join(a.kit, 'run.mjs'), '--server', `startupstrata=env ${envPrefix} ${tsdb}`,
      ...(peer ? ['--server', 'startupvm=victoria-metrics -storageDataPath={data} -httpListenAddr={addr} -retentionPeriod=100y'] : []),
      '--series', a.series, '--points', a.points, '--repeat', '1', '--no-query', '--keep', '--work', prep];
    const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
    if (r.status !== 0) throw new Error(`run.mjs could not load the data dirs (exit ${r.status}): ${args.join(' ')}`);
    writeFileSync(done, `${new Date().toISOString()}\n`);
  }
  return { strata, vm: peer ? vm : undefined };
}

const dirs = a['no-data'] ? undefined : loadedDirs();
const cases: Array<{ dir: 'empty' | 'loaded'; v: string }> = [];
for (const dir of ['empty', ...(dirs === undefined ? [] : ['loaded'] as const)] as const) {
  for (const v of variants) if (!(dir === 'loaded' && v === 'vm' && dirs?.vm === undefined)) cases.push({ dir, v });
}
const samples = new Map<string, Sample[]>(cases.map((c) => [`${c.dir}/${c.v}`, []]));

// A first start of each fills Node's compile cache (or VictoriaMetrics' page cache); not counted.
for (const c of cases) await startCase(c);
for (let run = 1; run <= Number(a.runs); run++) {
  for (const c of cases) samples.get(`${c.dir}/${c.v}`)!.push(await startCase(c));
  log(`run ${run}/${a.runs} done`);
}

async function startCase(c: { dir: 'empty' | 'loaded'; v: string }): Promise<Sample> {
  const s = SERVERS[c.v]!;
  if (c.dir === 'loaded') return startOnce(s, c.v === 'vm' ? dirs!.vm! : dirs!.strata);
  const d = mkdtempSync(join(a.work, 'empty-'));
  try {
    return await startOnce(s, d);
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => {
  const v = [...xs].sort((p, q) => p - q);
  const m = v.length >> 1;
  return v.length % 2 === 1 ? v[m]! : (v[m - 1]! + v[m]!) / 2;
};
const fmt = (xs: number[], d: number) => `${median(xs).toFixed(d)} [${Math.min(...xs).toFixed(d)}–${Math.max(...xs).toFixed(d)}]`;
const ratio = (x: number[], y: number[] | undefined) => (y === undefined ? '–' : (median(x) / median(y)).toFixed(2));

const lines = [
  `## Startup to first answer (bench/startup.ts), ${new Date().toISOString().slice(0, 16)}Z`,
  '',
  `\`node bench/startup.ts ${process.argv.slice(2).join(' ')}\` — ${a.runs} starts each, interleaved, after one unmeasured start; medians [min–max]; ` +
  `loaded = ${dirs === undefined ? 'not run' : `${a.series} series × ${a.points} points, force-merged`}; load average at the end ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}.`,
  '',
  '| data dir | server | first answer, ms | CPU-s | RSS at the answer, MiB | ms / VM | CPU / VM | CPU / before |',
  '|---|---|---|---|---|---|---|---|',
  ...cases.map((c) => {
    const x = samples.get(`${c.dir}/${c.v}`)!;
    const vm = c.v === 'vm' ? undefined : samples.get(`${c.dir}/vm`);
    const before = c.v === 'vm' || c.v.startsWith('before-') ? undefined : samples.get(`${c.dir}/before-${c.v}`);
    return `| ${c.dir} | ${SERVERS[c.v]!.name} | ${fmt(x.map((s) => s.ms), 0)} | ${fmt(x.map((s) => s.cpuS), 2)} | ${fmt(x.map((s) => s.rssMiB), 0)} | ` +
      `${ratio(x.map((s) => s.ms), vm?.map((s) => s.ms))} | ${ratio(x.map((s) => s.cpuS), vm?.map((s) => s.cpuS))} | ${ratio(x.map((s) => s.cpuS), before?.map((s) => s.cpuS))} |`;
  }),
  '',
  'Goals (issue 18): first answer within 300 ms on an empty data dir, within 1 s on the loaded one.',
];
console.log(lines.join('\n'));
if (a.out !== undefined) writeFileSync(a.out, `${lines.join('\n')}\n`);
