// bench/tsdb.ts: the TSDB ingestion benchmark (issue 3 item 8). Runs the shared peer kit's run.mjs
// with Strata's tsdb next to VictoriaMetrics 1.79.5 (`victoria-metrics`, skipped when not
// installed) on the same generated workload, once per ingestion format, and prints run.mjs' table
// (medians [min-max] of --repeat runs, other-load columns, ratios) plus a summary of the figures
// the issue names: ingestion rows/s per format, disk bytes per sample after force_merge, peak RSS
// and export rows/s, each with the peer's figure and the ratio, and the floors checked.
//
//   node bench/tsdb.ts [--series 10000] [--points 1440] [--repeat 3] [--formats prom,influx,jsonl,rw]
//                      [--node-flags "…"] [--tsdb-flags "…"] [--no-peer]
//                      [--kit /work/shared/bench] [--work /tmp/tsdb-bench] [--start MS] [--out report.md]
//
// The Prometheus-text run also times the query set and a full export (as the kit does); the other
// formats only load, flush and merge. tsdb gets -http.connTimeout=0 (see bench/RESULTS.md) and
// -search.disableCache, and starts as launchers start it (tunedLaunch: its Node flags, malloc
// settings and compile cache given, so it does not re-execute itself); --node-flags replaces the flags.

import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { tunedLaunch } from '../src/lib/process/reexec.ts';
import { TSDB_TUNING } from '../src/lib/process/tuning.ts';

const repo = join(import.meta.dirname, '..');
const { values: a } = parseArgs({
  options: {
    series: { type: 'string', default: '10000' },
    points: { type: 'string', default: '1440' },
    repeat: { type: 'string', default: '3' },
    formats: { type: 'string', default: 'prom,influx,jsonl,rw' },
    'node-flags': { type: 'string' },
    'tsdb-flags': { type: 'string', default: '' },
    'no-peer': { type: 'boolean', default: false },
    kit: { type: 'string', default: process.env.STRATA_BENCH_KIT ?? join(repo, '..', 'shared', 'bench') },
    work: { type: 'string', default: '/tmp/tsdb-bench' },
    out: { type: 'string' },
    start: { type: 'string' },
  },
});
mkdirSync(a.work, { recursive: true });

const FLOORS = { ingest: 0.5, bytesPerSample: 1.5, rss: 2 };
const peer = !a['no-peer'] && spawnSync('sh', ['-c', 'command -v victoria-metrics'], { encoding: 'utf8' }).status === 0;
if (!a['no-peer'] && !peer) console.error('victoria-metrics is not installed: measuring Strata alone (apt-get install victoria-metrics for the peer)');
// -search.disableCache as the kit's `vm` preset runs VictoriaMetrics: repeated queries are computed,
// not answered from a result cache.
// run.mjs runs `sh -c 'exec COMMAND'`: env(1) sets the variables and execs node, keeping the PID.
const launch = tunedLaunch(TSDB_TUNING);
const tsdb = ['env', ...Object.entries(launch.env).map(([k, v]) => `${k}=${v}`), process.execPath, a['node-flags'] ?? launch.nodeFlags.join(' '),
  join(repo, 'src/cmd/tsdb.ts'), '-storageDataPath={data} -httpListenAddr={addr} -http.connTimeout=0 -search.disableCache', a['tsdb-flags']]
  .filter((s) => s !== '').join(' ');
// The workload's time range is pinned for the whole benchmark, so every format loads the same samples.
const kitGen = (await import(join(a.kit, 'gen.mjs'))) as { defaultStart(points: number, interval: number): number };
const start = a.start ?? String(kitGen.defaultStart(Number(a.points), 60));

interface RunResult {
  readonly ingest?: { readonly rows_per_s: number; readonly samples_ok?: boolean };
  readonly bytes_per_sample_merged?: number;
  readonly mem?: { readonly hwm_kb: number };
  readonly export?: { readonly rows_per_s?: number; readonly ok?: boolean };
}
interface Figures { readonly [figure: string]: { readonly strata: number; readonly vm: number | undefined } }

/** runKit runs run.mjs for one format; resolves with its table (stdout) and parsed JSON results. */
function runKit(format: string): Promise<{ table: string; args: string[]; results: Record<string, RunResult[]> }> {
  const json = join(a.work, `tsdb-${format}.json`);
  const args = [
    join(a.kit, 'run.mjs'), ...(peer ? ['--server', 'vm'] : []), '--server', `strata=${tsdb}`,
    '--series', a.series, '--points', a.points, '--repeat', a.repeat, '--format', format, '--start', start,
    '--work', a.work, '--json', json, ...(format === 'prom' ? ['--export'] : ['--no-query']),
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let table = '';
    child.stdout.on('data', (c: Buffer) => (table += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`run.mjs --format ${format} exited with code ${code}`));
      const parsed = JSON.parse(readFileSync(json, 'utf8')) as { results: Record<string, RunResult[]> };
      resolve({ table, args, results: parsed.results });
    });
  });
}

const median = (xs: (number | undefined)[]): number => {
  const v = xs.filter((x): x is number => Number.isFinite(x)).sort((p, q) => p - q);
  if (v.length === 0) return NaN;
  const m = v.length >> 1;
  return v.length % 2 ? v[m]! : (v[m - 1]! + v[m]!) / 2;
};

function figures(format: string, r: Record<string, RunResult[]>): Figures {
  const both = (f: (x: RunResult) => number | undefined) => ({ strata: median((r.strata ?? []).map(f)), vm: peer ? median((r.vm ?? []).map(f)) : undefined });
  const out: Record<string, { strata: number; vm: number | undefined }> = {
    [`ingestion rows/s (${format})`]: both((x) => x.ingest?.rows_per_s),
    [`disk bytes/sample after force_merge (${format})`]: both((x) => x.bytes_per_sample_merged),
    [`peak RSS MiB (${format})`]: both((x) => (x.mem ? x.mem.hwm_kb / 1024 : undefined)),
  };
  if (format === 'prom') out['export rows/s'] = both((x) => x.export?.rows_per_s);
  return out;
}

const fmt = (x: number | undefined, d = 0) => (x === undefined || !Number.isFinite(x) ? '-' : x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }));

const sections: string[] = [];
const summary: string[] = ['| figure | Strata | VictoriaMetrics 1.79.5 | Strata/VM |', '|---|---|---|---|'];
const checks: string[] = [];
for (const format of a.formats.split(',').map((f) => f.trim()).filter(Boolean)) {
  console.error(`\n== format ${format}`);
  const { table, args, results } = await runKit(format);
  process.stdout.write(table);
  sections.push(`### ${format}\n\n\`node ${args.map((x) => (/\s/.test(x) ? `"${x}"` : x)).join(' ')}\`\n${table}`);
  for (const [name, f] of Object.entries(figures(format, results))) {
    const d = name.startsWith('disk') ? 3 : name.startsWith('peak') ? 1 : 0;
    summary.push(`| ${name} | ${fmt(f.strata, d)} | ${fmt(f.vm, d)} | ${f.vm ? fmt(f.strata / f.vm, 2) : '-'} |`);
  }
  const bad = Object.values(results).flat().filter((x) => x.ingest?.samples_ok === false || x.export?.ok === false).length;
  if (bad > 0) checks.push(`${format}: ${bad} run(s) lost or miscounted samples (see the table)`);
  if (format === 'prom' && peer) {
    const fig = figures(format, results);
    const ratio = (k: string) => fig[k]!.strata / fig[k]!.vm!;
    const check = (what: string, r: number, ok: boolean, floor: string) => checks.push(`${ok ? 'PASS' : 'FAIL'} ${what}: ${fmt(r, 2)}× VictoriaMetrics (floor ${floor})`);
    check('ingestion rows/s', ratio('ingestion rows/s (prom)'), ratio('ingestion rows/s (prom)') >= FLOORS.ingest, `>= ${FLOORS.ingest}×`);
    check('bytes/sample after merge', ratio('disk bytes/sample after force_merge (prom)'), ratio('disk bytes/sample after force_merge (prom)') <= FLOORS.bytesPerSample, `<= ${FLOORS.bytesPerSample}×`);
    check('peak RSS', ratio('peak RSS MiB (prom)'), ratio('peak RSS MiB (prom)') <= FLOORS.rss, `<= ${FLOORS.rss}×`);
  }
}

const report = [
  `## TSDB ingestion vs VictoriaMetrics 1.79.5 (bench/tsdb.ts), ${new Date().toISOString().slice(0, 16)}Z`,
  '',
  `\`node bench/tsdb.ts ${process.argv.slice(2).join(' ')}\` — ${a.series} series × ${a.points} points, ${a.repeat} repetitions; medians.`,
  '',
  summary.join('\n'),
  '',
  checks.length ? checks.map((c) => `- ${c}`).join('\n') : '- (no peer: floors not checked)',
  '',
  ...sections,
].join('\n');
console.log(`\n${summary.join('\n')}\n\n${checks.join('\n')}`);
const out = a.out ?? join(a.work, `tsdb-bench-${new Date().toISOString().replace(/[:.]/g, '-')}.md`);
writeFileSync(out, report + '\n');
console.error(`\nreport written to ${out}`);
