// bench/gateway.ts: requests/s, latency, CPU per request and peak RSS of the JWT gateway proxying a
// small query answer with a valid token, next to vmauth (Debian's victoria-metrics package)
// proxying the same answer with Basic auth, in one run. The backend is a single-process nginx
// serving the answer at the cluster path the gateway rewrites to
// (/select/1:0/prometheus/api/v1/query), so both proxies forward the same upstream request:
//   gateway: GET /api/v1/query?query=up with `Authorization: Bearer <RS256 token, tenant 1:0,
//            extra_labels {job: node}>` → /select/1:0/prometheus/api/v1/query?query=up&extra_label=job%3Dnode
//   vmauth:  GET /select/1:0/prometheus/api/v1/query?query=up&extra_label=job%3Dnode with Basic auth
// Points are interleaved (order rotated each repetition) like ../shared/bench/proxy/run.mjs, whose
// methods bench/proxy-kit.ts repeats. Goals (the issue): req/s >= 0.8x vmauth, p99 <= 1.5x.
//
//   node bench/gateway.ts [--conns 16,128] [--repeat 3] [--duration 10] [--warmup 2] [--pin split|none]
//                         [--json out.json] [--work /tmp/gateway-bench]
//
// --pin split (default): wrk, nginx and this driver on CPU 0, each proxy alone on CPU 1 (the gateway
// is one event loop; vmauth then runs GOMAXPROCS=1). --pin none: everything shares every core.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { signToken, testKey } from '../src/app/gateway/testdata/tokens.ts';
import { busySeconds, freePort, get, launch, type Launched, ProcWatch, startNginx, stats, stop, waitFor, which, wrk, type WrkResult } from './proxy-kit.ts';

const repo = join(import.meta.dirname, '..');
const { values: a } = parseArgs({
  options: {
    conns: { type: 'string', default: '16,128' },
    repeat: { type: 'string', default: '3' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    threads: { type: 'string', default: '2' },
    pin: { type: 'string', default: 'split' },
    json: { type: 'string' },
    work: { type: 'string', default: '/tmp/gateway-bench' },
  },
});
const tools = { wrk: which('wrk'), nginx: which('nginx') || '/usr/sbin/nginx', vmauth: which('vmauth') };
for (const [name, path] of Object.entries(tools)) {
  if (path === '' || (name === 'nginx' && which(path) === '')) {
    process.stderr.write(`bench/gateway: ${name} not found; on Debian: apt-get install wrk nginx-light victoria-metrics\n`);
    process.exit(2);
  }
}
const CONNS = a.conns.split(',').map(Number);
const REPEAT = Number(a.repeat);
const DURATION = Number(a.duration);
const WARMUP = Number(a.warmup);
const split = a.pin === 'split';
const LOAD_CPUS = split ? '0' : undefined;
const PROXY_CPUS = split ? '1' : undefined;
const log = (s: string) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${s}\n`);

mkdirSync(a.work, { recursive: true });
const work = mkdtempSync(join(a.work, 'run-'));
const www = join(work, 'www');
const TENANT_PATH = '/select/1:0/prometheus/api/v1/query';
mkdirSync(join(www, '/select/1:0/prometheus/api/v1'), { recursive: true });
const ANSWER = '{"status":"success","data":{"resultType":"vector","result":[{"metric":{"__name__":"up","job":"node","instance":"10.0.0.1:9100"},"value":[1700000000,"1"]}]}}\n';
writeFileSync(join(www, TENANT_PATH), ANSWER);

const nginx = await startNginx(tools.nginx, work, www, LOAD_CPUS);
const backend = `http://127.0.0.1:${nginx.port}`;
const key = testKey('RS256');
writeFileSync(join(work, 'jwt.pem'), key.pem);
const token = await signToken(key, { access: { tenant_id: { account_id: 1, project_id: 0 }, extra_labels: { job: 'node' }, mode: 1 }, exp: Math.floor(Date.now() / 1000) + 86_400 });
const BASIC = `Basic ${Buffer.from('bench:benchpw').toString('base64')}`;
writeFileSync(join(work, 'auth.yml'), `users:\n- username: bench\n  password: benchpw\n  url_prefix: "${backend}"\n`);

interface Target {
  readonly name: 'gateway' | 'vmauth';
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly cmd: (port: number) => string;
  port: number;
  proc?: Launched;
  watch?: ProcWatch;
}
const node = process.execPath;
const targets: Target[] = [
  {
    name: 'gateway', path: '/api/v1/query?query=up', headers: { Authorization: `Bearer ${token}` }, port: 0,
    cmd: (p) => `${node} ${join(repo, 'src/cmd/gateway.ts')} -eula -httpListenAddr=127.0.0.1:${p} -enable.auth -clusterMode -read.url=${backend} -write.url=${backend} -auth.publicKeyFiles=${join(work, 'jwt.pem')} -loggerLevel=WARN`,
  },
  {
    name: 'vmauth', path: `${TENANT_PATH}?query=up&extra_label=job%3Dnode`, headers: { Authorization: BASIC }, port: 0,
    cmd: (p) => `${tools.vmauth} -httpListenAddr=127.0.0.1:${p} -auth.config=${join(work, 'auth.yml')}`,
  },
];
for (const t of targets) {
  t.port = await freePort();
  log(`starting ${t.name}`);
  t.proc = launch(t.name, t.cmd(t.port), join(work, `${t.name}.log`), PROXY_CPUS);
  if (!(await waitFor(async () => (await get(t.port, t.path, t.headers)).status === 200, 60_000))) {
    process.stderr.write(`${t.name} did not answer 200 within 60 s; its log:\n${readFileSync(join(work, `${t.name}.log`), 'utf8').slice(-3000)}\n`);
    process.exit(1);
  }
  const ok = (await get(t.port, t.path, t.headers)).body.toString() === ANSWER;
  const refused = (await get(t.port, t.path)).status;
  log(`  ${t.name} ready: answer ${ok ? 'byte-exact' : 'DIFFERS'}, without credentials ${refused}`);
  if (!ok || refused !== 401) process.exit(1);
  t.watch = new ProcWatch(t.proc.pid).sample();
}
const rssTimer = setInterval(() => targets.forEach((t) => t.watch!.sample()), 250);

interface Point { conns: number; target: string; rep: number; w: WrkResult; cpuUsPerReq: number; otherCores: number }
const points: Point[] = [];
const started = new Date();
const total = CONNS.length * REPEAT * targets.length;
log(`${total} runs of ${WARMUP}+${DURATION} s, pin=${a.pin}; load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
for (const conns of CONNS) {
  for (let rep = 0; rep < REPEAT; rep++) {
    for (let i = 0; i < targets.length; i++) {
      const t = targets[(i + rep) % targets.length]!;
      const url = `http://127.0.0.1:${t.port}${t.path}`;
      if (WARMUP > 0) await wrk({ wrk: tools.wrk, url, conns, seconds: WARMUP, threads: Number(a.threads), headers: t.headers, cpus: LOAD_CPUS });
      const cpu0 = t.watch!.cpuSeconds();
      const busy0 = busySeconds();
      const t0 = performance.now();
      const w = await wrk({ wrk: tools.wrk, url, conns, seconds: DURATION, threads: Number(a.threads), headers: t.headers, cpus: LOAD_CPUS });
      const wall = (performance.now() - t0) / 1000;
      const proxyCpu = t.watch!.cpuSeconds() - cpu0;
      // Cores used by everything else during the run (other sessions' jobs), as run.mjs reports them.
      const otherCores = (busySeconds() - busy0 - proxyCpu - w.wrkCpuSeconds) / wall;
      const p: Point = { conns, target: t.name, rep, w: { ...w, raw: Number.isFinite(w.rps) ? '' : w.raw }, cpuUsPerReq: (proxyCpu * 1e6) / w.requests, otherCores };
      points.push(p);
      log(`c=${conns} ${t.name} rep${rep + 1}: ${w.rps.toFixed(0)} req/s p50 ${w.p50Ms.toFixed(2)} ms p99 ${w.p99Ms.toFixed(2)} ms cpu ${p.cpuUsPerReq.toFixed(1)} us/req other ${otherCores.toFixed(2)} cores${w.non2xx > 0 ? ` NON-2XX ${w.non2xx}` : ''}${w.socketErrors > 0 ? ` socket errors ${w.socketErrors}` : ''}`);
    }
  }
}
clearInterval(rssTimer);
const rss = Object.fromEntries(targets.map((t) => [t.name, t.watch!.sample().peakRssMiB()]));
for (const t of targets) await stop(t.proc!);
await stop(nginx.proc);

const fmt = (s: { med: number; min: number; max: number }, d: number) => `${s.med.toFixed(d)} [${s.min.toFixed(d)}–${s.max.toFixed(d)}]`;
const rows: string[] = ['| conns | proxy | req/s | p50 ms | p99 ms | CPU µs/req | other cores (max) | errors |', '|---|---|---|---|---|---|---|---|'];
const summary: Record<string, unknown>[] = [];
const ratioRows: string[] = ['| conns | req/s gateway / vmauth | p99 gateway / vmauth | CPU/req gateway / vmauth | goals (req/s ≥ 0.8×, p99 ≤ 1.5×) |', '|---|---|---|---|---|'];
for (const conns of CONNS) {
  const agg: Record<string, { rps: ReturnType<typeof stats>; p99: ReturnType<typeof stats>; cpu: ReturnType<typeof stats> }> = {};
  for (const t of targets) {
    const ps = points.filter((p) => p.conns === conns && p.target === t.name);
    const g = { rps: stats(ps.map((p) => p.w.rps)), p50: stats(ps.map((p) => p.w.p50Ms)), p99: stats(ps.map((p) => p.w.p99Ms)), cpu: stats(ps.map((p) => p.cpuUsPerReq)), other: stats(ps.map((p) => p.otherCores)) };
    agg[t.name] = g;
    const errors = ps.reduce((n, p) => n + p.w.non2xx + p.w.socketErrors, 0);
    rows.push(`| ${conns} | ${t.name} | ${fmt(g.rps, 0)} | ${fmt(g.p50, 2)} | ${fmt(g.p99, 2)} | ${fmt(g.cpu, 1)} | ${g.other.max.toFixed(2)} | ${errors} |`);
    summary.push({ conns, target: t.name, rps: g.rps, p50_ms: g.p50, p99_ms: g.p99, cpu_us_per_req: g.cpu, other_cores: g.other, errors });
  }
  const rps = agg.gateway!.rps.med / agg.vmauth!.rps.med;
  const p99 = agg.gateway!.p99.med / agg.vmauth!.p99.med;
  const cpu = agg.gateway!.cpu.med / agg.vmauth!.cpu.med;
  ratioRows.push(`| ${conns} | ${rps.toFixed(2)} | ${p99.toFixed(2)} | ${cpu.toFixed(2)} | ${rps >= 0.8 && p99 <= 1.5 ? 'met' : `**not met** (${[rps < 0.8 ? 'req/s' : '', p99 > 1.5 ? 'p99' : ''].filter(Boolean).join(', ')})`} |`);
}
const out = [
  `gateway vs vmauth, small query answer (${ANSWER.length} B), ${REPEAT}× interleaved, ${WARMUP} s warm-up + ${DURATION} s per run, wrk -t${a.threads}, pin=${a.pin}; medians [min–max]`,
  '', ...rows, '', ...ratioRows, '',
  `peak RSS: gateway ${rss.gateway!.toFixed(1)} MiB, vmauth ${rss.vmauth!.toFixed(1)} MiB; load average at the end ${loadavg().map((x) => x.toFixed(2)).join(' ')}; started ${started.toISOString()}`,
].join('\n');
process.stdout.write(`${out}\n`);
if (a.json !== undefined) writeFileSync(a.json, JSON.stringify({ started, argv: process.argv.slice(2), summary, rss, points }, null, 1));
rmSync(work, { recursive: true, force: true });
process.exit(0);
