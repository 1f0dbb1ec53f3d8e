// bench/authproxy.ts: requests/s and latency through the auth proxy next to vmauth (Debian's
// victoria-metrics package) in the same run, using the shared wrk + nginx harness
// (../shared/bench/proxy/run.mjs, or $STRATA_PROXY_BENCH). Prints the harness table and a summary
// of authproxy/vmauth ratios against the goals of issue 18 (req/s >= 0.9x and p99 <= 1.2x at 16 and
// 128 connections) and the peak RSS of both over the run (goal: authproxy <= 128 MiB). Extra
// arguments go to the harness, e.g.
//   node bench/authproxy.ts --repeat 3 --duration 10
//   node bench/authproxy.ts --sizes small --conns 16,128 --repeat 1
// vmauth is optional: without it only nginx (the ceiling) and authproxy are measured.
// The issue lets the proxy use both cores, so the default is the harness's `--pin none` (wrk, nginx
// and the proxies share both cores; authproxy runs one thread per core, vmauth GOMAXPROCS=2); pass
// `--pin split` for the harness's default (each proxy alone on CPU 1: authproxy then runs one thread).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../', import.meta.url));
const harness = process.env.STRATA_PROXY_BENCH ?? join(repo, '..', 'shared', 'bench', 'proxy', 'run.mjs');
if (!existsSync(harness)) {
  process.stderr.write(`bench/authproxy: harness not found at ${harness}; set STRATA_PROXY_BENCH to run.mjs\n`);
  process.exit(2);
}
const which = (bin: string) => spawnSync('sh', ['-c', 'command -v "$1"', 'sh', bin], { encoding: 'utf8' }).stdout.trim();
const args = process.argv.slice(2);
const hasVmauth = which('vmauth') !== '';
const peerArgs = hasVmauth || args.includes('--targets') ? [] : ['--targets', 'nginx,candidate', '--vmauth', which('true')];
if (!hasVmauth) process.stderr.write('bench/authproxy: vmauth not installed (apt-get install victoria-metrics); measuring without the peer\n');
const json = join(mkdtempSync(join(tmpdir(), 'authproxy-bench-')), 'result.json');
const candidate = `${process.execPath} ${join(repo, 'src/cmd/authproxy.ts')} -httpListenAddr=127.0.0.1:{port} -auth.config={config} -loggerLevel=WARN`;
const pinArgs = args.includes('--pin') ? [] : ['--pin', 'none'];
const run = spawnSync(process.execPath, [harness, '--candidate', candidate, '--candidate-name', 'authproxy', '--json', json, ...pinArgs, ...peerArgs, ...args], { stdio: 'inherit' });
if (!existsSync(json)) process.exit(run.status ?? 1);

interface Summary { size: string; conns: number; target: string; rps_med: number; p50_ms_med: number; p99_ms_med: number; proxy_cpu_us_per_req_med: number; other_cores_max: number }
const GOAL = { rps: 0.9, p99: 1.2, peakRssMiB: 128 };
const result = JSON.parse(readFileSync(json, 'utf8')) as { summary: Summary[]; meta: { loadavg_end: number[] }; procs: Record<string, { peak_rss_kb?: number }> };
const find = (size: string, conns: number, target: string) => result.summary.find((s) => s.size === size && s.conns === conns && s.target === target);
const rows = [['size', 'conns', 'authproxy req/s', 'vmauth req/s', 'req/s ratio', 'p99 ms (ap / vm)', 'p99 ratio', 'CPU us/req ratio', 'other cores max', 'goals']];
for (const s of result.summary.filter((x) => x.target === 'authproxy')) {
  const v = find(s.size, s.conns, 'vmauth');
  const rps = v === undefined ? NaN : s.rps_med / v.rps_med;
  const p99 = v === undefined ? NaN : s.p99_ms_med / v.p99_ms_med;
  const gated = s.conns === 16 || s.conns === 128;
  const goals = v === undefined || !gated ? '' : rps >= GOAL.rps && p99 <= GOAL.p99 ? 'ok' : 'BELOW';
  rows.push([s.size, String(s.conns), s.rps_med.toFixed(0), v?.rps_med.toFixed(0) ?? '-', rps.toFixed(2), `${s.p99_ms_med.toFixed(2)} / ${v?.p99_ms_med.toFixed(2) ?? '-'}`,
    p99.toFixed(2), v === undefined ? '-' : (s.proxy_cpu_us_per_req_med / v.proxy_cpu_us_per_req_med).toFixed(2), s.other_cores_max.toFixed(2), goals]);
}
const width = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
process.stdout.write(`\nauthproxy vs vmauth (medians; goals: req/s ratio >= ${GOAL.rps} and p99 ratio <= ${GOAL.p99} at 16 and 128 connections)\n`);
for (const r of rows) process.stdout.write(`${r.map((c, i) => (i < 2 ? c.padEnd(width[i]!) : c.padStart(width[i]!))).join('  ')}\n`);
const peakMiB = (name: string) => ((result.procs[name]?.peak_rss_kb ?? NaN) / 1024).toFixed(1);
const apPeak = Number(peakMiB('authproxy'));
process.stdout.write(`peak RSS over the run: authproxy ${peakMiB('authproxy')} MiB, vmauth ${peakMiB('vmauth')} MiB (goal: authproxy <= ${GOAL.peakRssMiB} MiB: ${apPeak <= GOAL.peakRssMiB ? 'ok' : 'ABOVE'})\n`);
process.stdout.write(`load average at the end: ${result.meta.loadavg_end.map((x) => x.toFixed(2)).join(' ')}; raw results: ${json}\n`);
process.exit(run.status ?? 0);
