// Storage engine benchmark (not a test): node_exporter-like data generated in-process, written
// straight into src/lib/storage (no HTTP, no parsing), then force-merged.
//
//   node bench/storage-engine.ts [series=10000] [points=1440] [intervalSec=60]
//
// Prints rows/s of addRows (wall time spent inside addRows, which includes waiting for flushes
// when they fall behind; main-thread CPU time inside addRows, which does not depend on the load
// of the machine; and wall time of the whole ingestion), bytes per sample on disk after
// forceMerge (data + index), and peak RSS. The peer
// figures (VictoriaMetrics 1.79.5 on the same shape of data, over HTTP) come from the issue.

import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MetricRow } from '../src/lib/storageapi/api.ts';
import { openStorage } from '../src/lib/storage/index.ts';

const SERIES = Number(process.argv[2] ?? 10_000);
const POINTS = Number(process.argv[3] ?? 1440);
const INTERVAL_MS = Number(process.argv[4] ?? 60) * 1000;
const PER_TARGET = 500; // a node_exporter target exposes a few hundred series

/** Kind of series and how its value moves between scrapes. */
type Kind = 'cpuSeconds' | 'bytesCounter' | 'bytesGauge' | 'ratioGauge' | 'constant' | 'smallCounter';

interface Series {
  readonly key: string; // the text a Prometheus parser would hand over as rawKey
  readonly row: { labels: { name: string; value: string }[] };
  readonly kind: Kind;
  value: number;
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const rand = rng(42);
const KINDS: [Kind, number][] = [['cpuSeconds', 0.2], ['bytesCounter', 0.15], ['smallCounter', 0.1], ['bytesGauge', 0.15], ['ratioGauge', 0.1], ['constant', 0.3]];

function pickKind(): Kind {
  let r = rand();
  for (const [k, p] of KINDS) if ((r -= p) < 0) return k;
  return 'constant';
}

function makeSeries(): Series[][] {
  const targets: Series[][] = [];
  for (let t = 0; t * PER_TARGET < SERIES; t++) {
    const list: Series[] = [];
    for (let i = 0; i < PER_TARGET && t * PER_TARGET + i < SERIES; i++) {
      const kind = pickKind();
      const name = `node_${kind}_${i % 37}`;
      const labels = [
        { name: '__name__', value: name },
        { name: 'instance', value: `host-${t}.example.com:9100` },
        { name: 'job', value: 'node' },
        { name: 'device', value: `dev${i}` },
      ].sort((a, b) => (a.name < b.name ? -1 : 1));
      const key = `${name}{instance="host-${t}.example.com:9100",job="node",device="dev${i}"}`;
      const value = kind === 'constant' ? Math.round(rand() * 1e6) * 4096 : kind === 'ratioGauge' ? Math.round(rand() * 100) / 100 : Math.round(rand() * 1e6);
      list.push({ key, row: { labels }, kind, value });
    }
    targets.push(list);
  }
  return targets;
}

function step(s: Series): void {
  switch (s.kind) {
    case 'cpuSeconds':
      s.value = Math.round((s.value + 55 + rand() * 10) * 100) / 100;
      break;
    case 'bytesCounter':
      s.value += Math.round(rand() * 200_000);
      break;
    case 'smallCounter':
      s.value += rand() < 0.3 ? 1 + Math.floor(rand() * 3) : 0;
      break;
    case 'bytesGauge':
      s.value = Math.max(0, s.value + Math.round((rand() - 0.5) * 64) * 4096);
      break;
    case 'ratioGauge':
      s.value = Math.max(0, Math.round((s.value + (rand() - 0.5) * 0.2) * 100) / 100);
      break;
    case 'constant':
      break;
  }
}

function dirBytes(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    n += e.isDirectory() ? dirBytes(p) : statSync(p).size;
  }
  return n;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'strata-bench-'));
  const targets = makeSeries();
  const now = Date.now();
  const start = Math.floor((now - POINTS * INTERVAL_MS) / INTERVAL_MS) * INTERVAL_MS;
  // Knobs for experiments: STRATA_BENCH_MAX_BUFFERED_ROWS, STRATA_BENCH_THREADS (0 = flush and
  // merge on the main thread), STRATA_BENCH_MERGES=0 (no background merges during ingestion).
  const env = process.env;
  const s = await openStorage({
    dataPath: dir,
    now: () => now,
    retentionMs: 400 * 86_400_000,
    maxBufferedRows: Number(env.STRATA_BENCH_MAX_BUFFERED_ROWS ?? 0) || undefined,
    backgroundThreads: env.STRATA_BENCH_THREADS === undefined ? undefined : Number(env.STRATA_BENCH_THREADS),
    backgroundMerges: env.STRATA_BENCH_MERGES !== '0',
  });
  const tenant = { accountID: 0, projectID: 0 };
  const peak = { heapUsed: 0, heapTotal: 0, external: 0, arrayBuffers: 0, rss: 0 };
  const sample = setInterval(() => {
    const m = process.memoryUsage();
    for (const k of Object.keys(peak) as (keyof typeof peak)[]) peak[k] = Math.max(peak[k], m[k]);
  }, 100);
  let inAdd = 0;
  let cpuInAdd = 0; // main-thread CPU ms inside addRows: the append path's cost, whatever the machine's load
  let rows = 0;
  const wall0 = performance.now();
  const procCpu0 = process.cpuUsage();
  const mainCpu0 = process.threadCpuUsage();
  for (let p = 0; p < POINTS; p++) {
    const ts = start + p * INTERVAL_MS;
    for (const list of targets) {
      // One scrape: rawKeys are substrings of one body, as a parser would produce them.
      const body = list.map((x) => x.key).join('\n');
      const batch: MetricRow[] = new Array(list.length);
      let off = 0;
      for (let i = 0; i < list.length; i++) {
        const x = list[i]!;
        step(x);
        batch[i] = { labels: x.row.labels, timestamp: ts + Math.floor(rand() * 3), value: x.value, rawKey: body.substring(off, off + x.key.length) };
        off += x.key.length + 1;
      }
      const t0 = performance.now();
      const c0 = process.threadCpuUsage();
      await s.addRows(tenant, batch);
      const c1 = process.threadCpuUsage(c0);
      cpuInAdd += (c1.user + c1.system) / 1000;
      inAdd += performance.now() - t0;
      rows += batch.length;
    }
  }
  await s.forceFlush();
  const ingestWall = performance.now() - wall0;
  const rssAfterIngest = process.memoryUsage().rss;
  const ms = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;
  const procCpu = ms(process.cpuUsage(procCpu0));
  const mainCpu = ms(process.threadCpuUsage(mainCpu0));
  const m0 = performance.now();
  await s.forceMerge();
  const mergeMs = performance.now() - m0;
  // Read everything back once: one series at a time, as a query would.
  const q0 = performance.now();
  let readSamples = 0;
  let readSeries = 0;
  const all = { tenant, matcherSets: [[{ name: '__name__', type: '=~' as const, value: 'node_.*' }]], timeRange: { minTimestamp: start, maxTimestamp: now }, maxSeries: 0 };
  for await (const x of s.searchSeries(all, new AbortController().signal)) {
    readSamples += x.timestamps.length;
    readSeries++;
  }
  const readMs = performance.now() - q0;
  const st = s.stats();
  const dataBytes = dirBytes(join(dir, 'data'));
  const indexBytes = dirBytes(join(dir, 'indexdb'));
  await s.close();
  rmSync(dir, { recursive: true, force: true });
  const peakRss = process.resourceUsage().maxRSS * 1024;
  clearInterval(sample);
  const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 2 });
  console.log(`series=${SERIES} points=${POINTS} rows=${rows} (jittered ±2ms timestamps, ${PER_TARGET} series per addRows call)`);
  console.log(`addRows only:        ${fmt(rows / (inAdd / 1000))} rows/s (${fmt(inAdd)} ms wall)`);
  console.log(`addRows CPU:         ${fmt(rows / (cpuInAdd / 1000))} rows per CPU-second of the main thread (${fmt(cpuInAdd)} ms)`);
  console.log(`ingest wall (+flush): ${fmt(rows / (ingestWall / 1000))} rows/s (${fmt(ingestWall)} ms)`);
  console.log(`ingest CPU:          main thread ${fmt(mainCpu)} ms (bench data generation included), other threads ${fmt(procCpu - mainCpu)} ms (flushes, merges, GC)`);
  console.log(`forceMerge:          ${fmt(mergeMs)} ms`);
  console.log(`read back:           ${readSeries} series, ${fmt(readSamples / (readMs / 1000))} samples/s (${fmt(readMs)} ms)`);
  console.log(`bytes/sample:        ${fmt((dataBytes + indexBytes) / rows)} (data ${fmt(dataBytes / rows)}, index ${fmt(indexBytes / rows)}); parts ${st.tiers.small.parts + st.tiers.big.parts}`);
  console.log(`peak RSS:            ${fmt(peakRss / 2 ** 20)} MiB (after ingestion ${fmt(rssAfterIngest / 2 ** 20)} MiB)`);
  const mib = (n: number) => fmt(n / 2 ** 20);
  console.log(`peaks sampled every 100ms: heapUsed ${mib(peak.heapUsed)} heapTotal ${mib(peak.heapTotal)} external ${mib(peak.external)} arrayBuffers ${mib(peak.arrayBuffers)} rss ${mib(peak.rss)} MiB`);
}

await main();
