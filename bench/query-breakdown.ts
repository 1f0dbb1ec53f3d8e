// Where query time goes (a script, not a test): the query set of bench/query-latency.ts run
// in-process against a tsdb data dir (for example one that query-latency.ts loaded), each query
// split into storage search (time spent inside Searcher.searchSeries), evaluation (the rest of
// the engine) and JSON rendering (select's envelope). No HTTP, so the figures exclude the
// server's request handling and the network.
//
//   node bench/query-breakdown.ts <tsdb data dir> [--reps 5] [--only <query name substring>]
//        [--end <unix s>] [--cpu-prof <dir>]
//
// The data dir is opened by the storage engine (take a copy if a server uses it). Instant
// queries run at --end, range queries over the 24 h before it at step 60 s; without --end the
// newest sample time of node_load1 is used.

import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { envelope } from '../src/app/select/handle-query.ts';
import { instant, range, type QueryOptions, type QueryResult } from '../src/lib/query/index.ts';
import { openStorage } from '../src/lib/storage/index.ts';
import type { SearchQuery, Searcher, SeriesSamples } from '../src/lib/storageapi/index.ts';

const { values: a, positionals } = parseArgs({ allowPositionals: true, options: {
  reps: { type: 'string', default: '5' }, only: { type: 'string' }, end: { type: 'string' }, 'cpu-prof': { type: 'string' },
} });
const dataPath = positionals[0];
if (dataPath === undefined) {
  console.error('usage: node bench/query-breakdown.ts <tsdb data dir> [--reps N] [--only NAME] [--end UNIX_S] [--cpu-prof DIR]');
  process.exit(2);
}

// The peer toolkit's expressions (query.mjs), repeated here so the script runs without it.
const PROMQL: readonly (readonly [string, string])[] = [
  ['one_series', 'node_load1{instance="host-00001:9100"}'],
  ['rate', 'rate(node_network_receive_bytes_total[5m])'],
  ['sum_by_rate', 'sum by (job, mode) (rate(node_cpu_seconds_total[5m]))'],
  ['cpu_util', '1 - avg by (instance) (rate(node_cpu_seconds_total{mode="idle"}[5m]))'],
  ['hist_quantile', 'histogram_quantile(0.99, sum by (le, handler) (rate(http_request_duration_seconds_bucket[5m])))'],
  ['topk', 'topk(10, rate(node_disk_written_bytes_total[5m]))'],
  ['count_by', 'count by (job, device) (node_filesystem_avail_bytes)'],
  ['avg_over_time', 'avg_over_time(node_memory_MemAvailable_bytes[1h])'],
  ['regex_filter', 'sum by (instance) (rate(node_network_transmit_bytes_total{device=~"eth.*",instance=~"host-000[0-4].*"}[5m]))'],
  ['binary_ratio', 'node_filesystem_avail_bytes{fstype!="tmpfs"} / node_filesystem_size_bytes{fstype!="tmpfs"}'],
];

/** TimedSearcher measures the wall time spent inside the wrapped searchSeries iterations. */
class TimedSearcher implements Pick<Searcher, 'searchSeries'> {
  readonly inner: Searcher;
  ms = 0;
  series = 0;
  samples = 0;

  constructor(inner: Searcher) {
    this.inner = inner;
  }

  async *searchSeries(q: SearchQuery, signal: AbortSignal): AsyncIterable<SeriesSamples> {
    const it = this.inner.searchSeries(q, signal)[Symbol.asyncIterator]();
    for (;;) {
      const t0 = performance.now();
      const r = await it.next();
      this.ms += performance.now() - t0;
      if (r.done === true) return;
      this.series++;
      this.samples += r.value.timestamps.length;
      yield r.value;
    }
  }
}

const median = (xs: number[]): number => xs.sort((x, y) => x - y)[xs.length >> 1]!;

async function main(): Promise<void> {
  const storage = await openStorage({ dataPath: dataPath!, retentionMs: 100 * 365 * 86_400_000, backgroundMerges: false });
  const timed = new TimedSearcher(storage);
  const searcher = timed as unknown as Searcher;
  const opts: QueryOptions = { now: Date.now, lookbackDeltaMs: 300_000, subqueryStepMs: 60_000 };
  let endMs = a.end === undefined ? NaN : Number(a.end) * 1000;
  if (Number.isNaN(endMs)) {
    for await (const s of storage.searchSeries({ tenant: { accountID: 0, projectID: 0 }, matcherSets: [[{ name: '__name__', type: '=', value: 'node_load1' }]], timeRange: { minTimestamp: 0, maxTimestamp: Date.now() }, maxSeries: 0 }, new AbortController().signal)) {
      endMs = Math.max(Number.isNaN(endMs) ? 0 : endMs, s.timestamps.at(-1) ?? 0);
    }
  }
  const cases: { name: string; run: () => Promise<QueryResult> }[] = [];
  for (const [name, q] of PROMQL) cases.push({ name: `i:${name}`, run: () => instant(searcher, q, endMs, opts) });
  for (const [name, q] of PROMQL) cases.push({ name: `r:${name}`, run: () => range(searcher, q, endMs - 86_340_000, endMs, 60_000, opts) });
  const session = a['cpu-prof'] === undefined ? null : new Session();
  if (session !== null) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  console.log(`end ${new Date(endMs).toISOString()}, ${a.reps} reps, medians in ms\n`);
  console.log('| query | total | storage | evaluation | JSON | series fetched | samples fetched | JSON bytes |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const c of cases.filter((x) => a.only === undefined || x.name.includes(a.only))) {
    const total: number[] = [];
    const store: number[] = [];
    const json: number[] = [];
    let bytes = 0;
    await c.run(); // warm-up
    for (let i = 0; i < Number(a.reps); i++) {
      timed.ms = 0;
      timed.series = 0;
      timed.samples = 0;
      const t0 = performance.now();
      const res = await c.run();
      const t1 = performance.now();
      const body = envelope(res, t1 - t0);
      const t2 = performance.now();
      total.push(t2 - t0);
      store.push(timed.ms);
      json.push(t2 - t1);
      bytes = body.length;
    }
    const [t, s, j] = [median(total), median(store), median(json)];
    console.log(`| ${c.name} | ${t.toFixed(1)} | ${s.toFixed(1)} | ${(t - s - j).toFixed(1)} | ${j.toFixed(1)} | ${timed.series} | ${timed.samples} | ${bytes} |`);
  }
  if (session !== null) {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync(a['cpu-prof']!, { recursive: true });
    const file = join(a['cpu-prof']!, `query-breakdown-${Date.now()}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    console.log(`\nCPU profile: ${file}`);
  }
  await storage.close();
}

await main();
